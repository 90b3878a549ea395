#include "tpnet/io/fabric_yaml.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <string>

#include "catalog_yaml.hpp"
#include "tpnet/base/quantity.hpp"
#include "tpnet/fabric/switch_spec.hpp"
#include "yaml_fields.hpp"

namespace tpnet {
namespace {

struct RdmaPath {
  BitRate rate;
  BitRate line_rate;
  std::string source;
};

struct NcclPath {
  BusBandwidthCurve curve;  ///< seconds_per_byte filled once the fixed cost is known
};

template <typename Path>
const Path& named_path(const std::map<std::string, Path>& paths, const YAML::Node& map,
                       const std::string& origin, std::string_view key, std::string_view what) {
  const std::string name = yaml::required_string(map, origin, key);
  const auto it = paths.find(name);
  if (it == paths.end()) {
    std::string known;
    for (const auto& [n, p] : paths) known += (known.empty() ? "" : ", ") + n;
    throw InputError(fmt::format("'{}' is not a path of the {} section; use {}", name, what, known),
                     yaml::where(map[std::string(key)], origin, key));
  }
  return it->second;
}

std::string gbps(BitRate rate) { return fmt::format("{:.2f} Gb/s", rate.bits_per_second() / 1e9); }

std::vector<SmallAllReduceTable> parse_small(const YAML::Node& list, const std::string& origin,
                                             const std::map<std::string, NcclPath>& nccl) {
  if (!list.IsDefined() || list.IsNull()) {
    throw InputError("required key is missing", yaml::where(list, origin, "small_allreduce"));
  }
  if (!list.IsSequence() || list.size() == 0) {
    throw InputError("expected a list of {ranks, source, measured_on, points}",
                     yaml::where(list, origin, "small_allreduce"));
  }
  std::vector<SmallAllReduceTable> out;
  for (const auto& item : list) {
    yaml::require_map(item, origin, "small_allreduce entry (ranks, source, measured_on, points)");
    yaml::reject_unknown_keys(item, origin, {"ranks", "source", "measured_on", "points"});
    SmallAllReduceTable t;
    t.ranks = static_cast<int>(yaml::required_integer(item, origin, "ranks", 2, 4096));
    t.source = yaml::required_string(item, origin, "source");
    const NcclPath& measured = named_path(nccl, item, origin, "measured_on", "nccl");
    t.measured_on = yaml::required_string(item, origin, "measured_on");
    // The curve's smallest size: the measurement the fixed cost fades out at.
    t.measured_bus_bandwidth = measured.curve.points.front().bus_bandwidth;
    t.measured_bus_bandwidth_size = measured.curve.points.front().size;
    const YAML::Node points = item["points"];
    if (!points.IsSequence() || points.size() == 0) {
      throw InputError("expected a list of {size, time}", yaml::where(item, origin, "points"));
    }
    for (const auto& p : points) {
      yaml::require_map(p, origin, "point (size, time)");
      yaml::reject_unknown_keys(p, origin, {"size", "time"});
      SmallAllReducePoint point{catalog_yaml::required_bytes(p, origin, "size"),
                                yaml::required_quantity(p, origin, "time", parse_duration)};
      if (!t.points.empty() && !(point.size > t.points.back().size)) {
        throw InputError("sizes must increase", yaml::where(p, origin, "size"));
      }
      t.points.push_back(point);
    }
    for (const auto& other : out) {
      if (other.ranks == t.ranks) {
        throw InputError(fmt::format("ranks {} is listed twice", t.ranks),
                         yaml::where(item, origin, "ranks"));
      }
    }
    out.push_back(std::move(t));
  }
  return out;
}

template <typename Path, typename Read>
std::map<std::string, Path> parse_paths(const YAML::Node& map, const std::string& origin,
                                        std::string_view key, Read read) {
  const YAML::Node node = map[std::string(key)];
  if (!node.IsDefined() || !node.IsMap() || node.size() == 0) {
    throw InputError("expected a mapping of path names", yaml::where(map, origin, key));
  }
  std::map<std::string, Path> out;
  for (const auto& entry : node) {
    const auto name = entry.first.as<std::string>();
    out.emplace(name, yaml::with_key_prefix(std::string(key) + "." + name + ".",
                                            [&] { return read(entry.second); }));
  }
  return out;
}

}  // namespace

std::vector<FabricProfile> parse_fabric_catalog(std::string_view text, const std::string& origin) {
  const YAML::Node root = yaml::load_document(text, origin);
  yaml::require_map(root, origin, "a fabric catalog");
  yaml::reject_unknown_keys(root, origin, {"node", "small_allreduce", "rdma", "nccl", "profiles"});
  const std::string node = yaml::required_string(root, origin, "node");
  const auto rdma = parse_paths<RdmaPath>(root, origin, "rdma", [&](const YAML::Node& m) {
    yaml::require_map(m, origin, "rdma path (rate, line_rate, source)");
    yaml::reject_unknown_keys(m, origin, {"rate", "line_rate", "source"});
    RdmaPath p{catalog_yaml::required_rate(m, origin, "rate"),
               catalog_yaml::required_rate(m, origin, "line_rate"),
               yaml::required_string(m, origin, "source")};
    if (p.rate > p.line_rate) {
      throw InputError("is faster than its line_rate", yaml::where(m, origin, "rate"));
    }
    return p;
  });
  const auto nccl = parse_paths<NcclPath>(root, origin, "nccl", [&](const YAML::Node& m) {
    yaml::require_map(m, origin, "nccl path (ranks, collective, source, points)");
    yaml::reject_unknown_keys(m, origin, {"ranks", "collective", "source", "points"});
    NcclPath p;
    p.curve.ranks = static_cast<int>(yaml::required_integer(m, origin, "ranks", 2, 4096));
    const std::string collective = yaml::required_string(m, origin, "collective");
    if (collective != "all_reduce" && collective != "all_gather") {
      throw InputError("'" + collective + "' is not a collective; allowed all_reduce, all_gather",
                       yaml::where(m["collective"], origin, "collective"));
    }
    p.curve.all_gather = collective == "all_gather";
    p.curve.source = yaml::required_string(m, origin, "source");
    const YAML::Node points = m["points"];
    if (!points.IsSequence() || points.size() == 0) {
      throw InputError("expected a list of {size, bus_bandwidth}",
                       yaml::where(m, origin, "points"));
    }
    for (const auto& pt : points) {
      yaml::require_map(pt, origin, "point (size, bus_bandwidth)");
      yaml::reject_unknown_keys(pt, origin, {"size", "bus_bandwidth"});
      BusBandwidthPoint point{catalog_yaml::required_bytes(pt, origin, "size"),
                              catalog_yaml::required_rate(pt, origin, "bus_bandwidth")};
      if (!(point.size.count() > 0.0)) {
        throw InputError("must be positive", yaml::where(pt, origin, "size"));
      }
      if (!p.curve.points.empty() && !(point.size > p.curve.points.back().size)) {
        throw InputError("sizes must increase", yaml::where(pt, origin, "size"));
      }
      p.curve.points.push_back(point);
    }
    return p;
  });
  auto nccl_paths = nccl;
  const auto small = parse_small(root["small_allreduce"], origin, nccl);
  // Each curve's seconds per sent byte: the measured time less the fixed cost
  // every profile shares, never below the path's own RDMA rate (s.22).
  for (auto& [name, path] : nccl_paths) {
    BusBandwidthCurve& c = path.curve;
    const auto r = rdma.find(name);
    if (r == rdma.end()) {
      throw InputError(fmt::format("nccl path '{}' has no rdma path of the same name (its RDMA "
                                   "rate floors the curve)",
                                   name),
                       yaml::where(root["nccl"], origin, "nccl"));
    }
    const double floor = 1.0 / r->second.rate.bytes_per_second();
    const double n = c.ranks;
    const double factor = c.all_gather ? (n - 1.0) / n : 2.0 * (n - 1.0) / n;
    for (const auto& pt : c.points) {
      const double sent = pt.size.count() * factor;
      const double time = sent / pt.bus_bandwidth.bytes_per_second();
      const double fixed =
          shared_allreduce_latency(small, pt.size, c.ranks).value() * (c.all_gather ? 0.5 : 1.0);
      c.seconds_per_byte.push_back(std::max(floor, (time - fixed) / sent));
    }
  }

  std::string latency_line;
  for (const auto& t : small) {
    latency_line +=
        (latency_line.empty() ? "" : "; ") +
        fmt::format(
            "small all-reduces on {} ranks ({} sizes, bytes taken out at "
            "{}'s {}): {}",
            t.ranks, t.points.size(), t.measured_on, gbps(t.measured_bus_bandwidth), t.source);
  }

  const YAML::Node list = root["profiles"];
  if (!list.IsSequence() || list.size() == 0) {
    throw InputError("expected a list of profiles", yaml::where(root, origin, "profiles"));
  }
  std::vector<FabricProfile> out;
  for (const auto& item : list) {
    yaml::require_map(item, origin, "profile");
    yaml::reject_unknown_keys(
        item, origin, {"name", "link", "default", "description", "path", "nccl", "rdma_devices"});
    FabricProfile p;
    p.source = FabricSource::builtin;
    p.name = yaml::required_string(item, origin, "name");
    p.node = node;
    p.for_link = yaml::required_string(item, origin, "link");
    p.link = parse_link(p.for_link, yaml::where(item["link"], origin, "link"));
    if (const auto flag = yaml::optional_string(item, origin, "default")) {
      if (*flag != "true" && *flag != "false") {
        throw InputError("expected true or false", yaml::where(item["default"], origin, "default"));
      }
      p.is_default = *flag == "true";
    }
    p.description = yaml::required_string(item, origin, "description");
    p.rdma_devices = static_cast<int>(yaml::required_integer(item, origin, "rdma_devices", 1, 16));
    p.small = small;

    // The path's own RDMA rate, measured.
    const std::string path_name = yaml::required_string(item, origin, "path");
    const RdmaPath& r = named_path(rdma, item, origin, "path", "rdma");
    p.provenance.push_back(fmt::format("RDMA rate {} measured: {}", gbps(r.rate), r.source));
    // NCCL's bus bandwidth by size: measured on this path, or on another path
    // of the same devices, moved to this path by the two measured RDMA rates.
    const std::string curve_name = yaml::optional_string(item, origin, "nccl").value_or(path_name);
    const NcclPath& n =
        named_path(nccl_paths, item, origin, item["nccl"].IsDefined() ? "nccl" : "path", "nccl");
    p.curve = n.curve;
    std::string sizes;
    for (const auto& pt : p.curve.points) {
      sizes += fmt::format("{}{} {:.2f} GB/s", sizes.empty() ? "" : ", ", format_bytes(pt.size),
                           pt.bus_bandwidth.bytes_per_second() / 1e9);
    }
    const std::string measured = fmt::format("NCCL {} bus bandwidth measured on {} ranks ({}): {}",
                                             p.curve.all_gather ? "all_gather" : "all-reduce",
                                             p.curve.ranks, sizes, p.curve.source);
    if (curve_name == path_name) {
      p.provenance.push_back(measured);
    } else {
      const RdmaPath& of = named_path(rdma, item, origin, "nccl", "rdma");
      p.curve_scale = r.rate / of.rate;
      p.provenance.push_back(fmt::format(
          "no NCCL measurement on this path: {}'s, times {:.4f}, this path's RDMA rate over "
          "{}'s ({} / {}); {}",
          curve_name, p.curve_scale, curve_name, gbps(r.rate), gbps(of.rate), measured));
    }
    p.bus_bandwidth = BitRate(8.0 / builtin_seconds_per_byte(p, p.curve.points.back().size));
    p.provenance.push_back(latency_line);
    for (const auto& other : out) {
      if (other.name == p.name) {
        throw InputError("profile '" + p.name + "' is listed twice",
                         yaml::where(item, origin, "name"));
      }
    }
    out.push_back(std::move(p));
  }
  return out;
}

}  // namespace tpnet
