#include "tpnet/io/fabric_yaml.hpp"

#include <fmt/format.h>

#include <map>
#include <string>

#include "catalog_yaml.hpp"
#include "tpnet/fabric/switch_catalog.hpp"
#include "tpnet/quantity.hpp"
#include "yaml_fields.hpp"

namespace tpnet {
namespace {

struct RdmaPath {
  BitRate rate;
  BitRate line_rate;
  std::string source;
};

struct NcclPath {
  BitRate bus_bandwidth;
  Bytes size;
  std::string source;
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
    t.measured_bus_bandwidth = measured.bus_bandwidth;
    t.measured_bus_bandwidth_size = measured.size;
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
    yaml::require_map(m, origin, "nccl path (bus_bandwidth, size, source)");
    yaml::reject_unknown_keys(m, origin, {"bus_bandwidth", "size", "source"});
    return NcclPath{catalog_yaml::required_rate(m, origin, "bus_bandwidth"),
                    catalog_yaml::required_bytes(m, origin, "size"),
                    yaml::required_string(m, origin, "source")};
  });
  const auto small = parse_small(root["small_allreduce"], origin, nccl);

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
    yaml::reject_unknown_keys(item, origin,
                              {"name", "link", "default", "description", "path", "line_rate",
                               "line_efficiency_of", "nccl_efficiency_of", "rdma_devices"});
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

    // RDMA rate of the path: measured, or a line rate at a measured path's
    // share of its line rate.
    BitRate path_rate;
    if (item["path"].IsDefined()) {
      const RdmaPath& r = named_path(rdma, item, origin, "path", "rdma");
      path_rate = r.rate;
      p.provenance.push_back(fmt::format("RDMA rate {} measured: {}", gbps(r.rate), r.source));
    } else {
      const RdmaPath& of = named_path(rdma, item, origin, "line_efficiency_of", "rdma");
      const BitRate line = catalog_yaml::required_rate(item, origin, "line_rate");
      path_rate = line * (of.rate / of.line_rate);
      p.provenance.push_back(fmt::format(
          "RDMA rate {} derived, not measured: line rate {} x {:.4f}, the share of its line rate "
          "{} reached ({} of {}: {})",
          gbps(path_rate), gbps(line), of.rate / of.line_rate,
          yaml::required_string(item, origin, "line_efficiency_of"), gbps(of.rate),
          gbps(of.line_rate), of.source));
    }
    // NCCL's bus bandwidth: measured on the path, or the RDMA rate at a
    // measured path's NCCL efficiency (NCCL bus bandwidth / RDMA rate).
    const std::string path_name = yaml::optional_string(item, origin, "path").value_or("");
    if (const auto it = nccl.find(path_name); it != nccl.end()) {
      p.bus_bandwidth = it->second.bus_bandwidth;
      p.bus_bandwidth_size = it->second.size;
      p.provenance.push_back(fmt::format("NCCL bus bandwidth {} measured: {}",
                                         gbps(p.bus_bandwidth), it->second.source));
    } else {
      const std::string of_name = yaml::required_string(item, origin, "nccl_efficiency_of");
      const NcclPath& n = named_path(nccl, item, origin, "nccl_efficiency_of", "nccl");
      const RdmaPath& r = named_path(rdma, item, origin, "nccl_efficiency_of", "rdma");
      const double efficiency = n.bus_bandwidth / r.rate;
      p.bus_bandwidth = path_rate * efficiency;
      p.bus_bandwidth_size = n.size;
      p.provenance.push_back(fmt::format(
          "NCCL bus bandwidth {} derived: RDMA rate x {:.4f}, NCCL's efficiency on {} ({} of {})",
          gbps(p.bus_bandwidth), efficiency, of_name, gbps(n.bus_bandwidth), gbps(r.rate)));
    }
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
