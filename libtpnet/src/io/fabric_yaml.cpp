#include "tpnet/io/fabric_yaml.hpp"

#include "tpnet/io/link_presets.hpp"
#include "tpnet/traffic/collective.hpp"

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

/// All-reduce rates read off a path's RDMA port counters during real
/// prefill (the `prefill_bursts` section): whole all-reduces at exactly the
/// sizes and rank count a workload ran, counted with their packet headers.
struct BurstPoint {
  Bytes size;
  BitRate rate;  ///< counted bytes over time, the central figure
  BitRate slowest;
  BitRate fastest;
};

struct PrefillBursts {
  int ranks = 0;
  std::string source;
  double counted_over_sent_low = 1.0;   ///< counted bytes per formula byte, least
  double counted_over_sent_high = 1.0;  ///< and most
  std::map<std::string, std::vector<BurstPoint>> paths;
};

PrefillBursts parse_bursts(const YAML::Node& root, const std::string& origin) {
  PrefillBursts b;
  const YAML::Node m = root["prefill_bursts"];
  if (!m.IsDefined() || m.IsNull()) return b;
  yaml::require_map(m, origin, "prefill_bursts (ranks, source, counted_over_sent, paths)");
  yaml::reject_unknown_keys(m, origin, {"ranks", "source", "counted_over_sent", "paths"});
  b.ranks = static_cast<int>(yaml::required_integer(m, origin, "ranks", 2, 4096));
  b.source = yaml::required_string(m, origin, "source");
  const YAML::Node over = m["counted_over_sent"];
  yaml::require_map(over, origin, "counted_over_sent (low, high)");
  yaml::reject_unknown_keys(over, origin, {"low", "high"});
  b.counted_over_sent_low = yaml::required_number(over, origin, "low", 1.0, 2.0);
  b.counted_over_sent_high = yaml::required_number(over, origin, "high", 1.0, 2.0);
  if (b.counted_over_sent_high < b.counted_over_sent_low) {
    throw InputError("is below low", yaml::where(over["high"], origin, "high"));
  }
  const YAML::Node paths = m["paths"];
  if (!paths.IsMap() || paths.size() == 0) {
    throw InputError("expected a mapping of rdma path names", yaml::where(m, origin, "paths"));
  }
  for (const auto& entry : paths) {
    const auto name = entry.first.as<std::string>();
    if (!entry.second.IsSequence() || entry.second.size() == 0) {
      throw InputError("expected a list of {size, rate, slowest, fastest}",
                       yaml::where(entry.second, origin, name));
    }
    std::vector<BurstPoint> points;
    for (const auto& pt : entry.second) {
      yaml::require_map(pt, origin, "burst (size, rate, slowest, fastest)");
      yaml::reject_unknown_keys(pt, origin, {"size", "rate", "slowest", "fastest"});
      BurstPoint bp;
      bp.size = catalog_yaml::required_message_size(pt, origin, "size");
      bp.rate = catalog_yaml::required_rate(pt, origin, "rate");
      bp.slowest = catalog_yaml::optional_rate(pt, origin, "slowest").value_or(bp.rate);
      bp.fastest = catalog_yaml::optional_rate(pt, origin, "fastest").value_or(bp.rate);
      if (!(bp.size.count() > 0.0)) {
        throw InputError("must be positive", yaml::where(pt, origin, "size"));
      }
      if (bp.slowest > bp.rate || bp.rate > bp.fastest) {
        throw InputError("slowest <= rate <= fastest must hold", yaml::where(pt, origin, "rate"));
      }
      if (!points.empty() && !(bp.size > points.back().size)) {
        throw InputError("sizes must increase", yaml::where(pt, origin, "size"));
      }
      points.push_back(bp);
    }
    b.paths.emplace(name, std::move(points));
  }
  return b;
}

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
                                             const std::map<std::string, NcclPath>& nccl,
                                             const PrefillBursts& bursts) {
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
    // Whole all-reduces measured at smaller sizes on that path (prefill
    // bursts), the largest near the RDMA rate: the fixed cost is gone by the
    // largest of them, and the smaller ones keep what is left of it.
    if (const auto it = bursts.paths.find(t.measured_on); it != bursts.paths.end()) {
      t.measured_bus_bandwidth_size =
          std::min(t.measured_bus_bandwidth_size, it->second.back().size);
    }
    const YAML::Node points = item["points"];
    if (!points.IsSequence() || points.size() == 0) {
      throw InputError("expected a list of {size, time}", yaml::where(item, origin, "points"));
    }
    for (const auto& p : points) {
      yaml::require_map(p, origin, "point (size, time)");
      yaml::reject_unknown_keys(p, origin, {"size", "time"});
      SmallAllReducePoint point{catalog_yaml::required_message_size(p, origin, "size"),
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

/// A path's prefill bursts into its curve: between the smallest and the
/// largest burst size the bursts replace the NCCL run's points (they are
/// whole all-reduces at exactly those sizes and rank count, on the cluster
/// itself), and each burst's seconds per sent byte is its counted bytes
/// over its rate, less the shared fixed cost, never below the path's RDMA
/// rate; its slow end at the most counted bytes and the slowest rate, its
/// fast end at the fewest and the fastest (s.22, s.29).
void merge_bursts(BusBandwidthCurve& c, const std::vector<BurstPoint>& points,
                  const PrefillBursts& bursts, double floor,
                  const std::vector<SmallAllReduceTable>& small) {
  const double lo = points.front().size.count();
  const double hi = points.back().size.count();
  BusBandwidthCurve merged = c;
  merged.points.clear();
  merged.seconds_per_byte.clear();
  merged.slowest_seconds_per_byte.clear();
  merged.fastest_seconds_per_byte.clear();
  auto add = [&](const BusBandwidthPoint& pt, double central, double slow, double fast) {
    merged.points.push_back(pt);
    merged.seconds_per_byte.push_back(central);
    merged.slowest_seconds_per_byte.push_back(slow);
    merged.fastest_seconds_per_byte.push_back(fast);
  };
  const double factor = 2.0 * (bursts.ranks - 1.0) / bursts.ranks;
  const double middle = (bursts.counted_over_sent_low + bursts.counted_over_sent_high) / 2.0;
  auto per_byte = [&](Bytes size, double counted, BitRate rate) {
    const double sent = size.count() * factor;
    const double time = sent * counted / rate.bytes_per_second();
    const double fixed = shared_allreduce_latency(small, size, bursts.ranks).value();
    return std::max(floor, (time - fixed) / sent);
  };
  std::size_t i = 0;
  if (c.points.empty() || c.points.front().size.count() >= lo) {
    // No NCCL point below the bursts: up to the largest small all-reduce the
    // bytes keep the rate the tables' own bytes were taken out at, so those
    // tables' measurements come back (s.22), and from there they move
    // towards the first burst.
    Bytes largest;
    for (const auto& t : small) largest = std::max(largest, t.points.back().size);
    const BitRate bus = small.front().measured_bus_bandwidth;
    if (largest.count() < lo) {
      const double spb = 1.0 / bus.bytes_per_second();
      add(BusBandwidthPoint{largest, bus}, spb, spb, spb);
    }
  }
  for (; i < c.points.size() && c.points[i].size.count() < lo; ++i) {
    add(c.points[i], c.seconds_per_byte[i], c.slowest_seconds_per_byte[i],
        c.fastest_seconds_per_byte[i]);
  }
  for (const BurstPoint& b : points) {
    const double central = per_byte(b.size, middle, b.rate);
    add(BusBandwidthPoint{b.size, BitRate(8.0 / central)}, central,
        per_byte(b.size, bursts.counted_over_sent_high, b.slowest),
        per_byte(b.size, bursts.counted_over_sent_low, b.fastest));
  }
  for (; i < c.points.size(); ++i) {
    if (c.points[i].size.count() <= hi) continue;
    add(c.points[i], c.seconds_per_byte[i], c.slowest_seconds_per_byte[i],
        c.fastest_seconds_per_byte[i]);
  }
  c = std::move(merged);
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

/// topology (switch, direct, ring; switch when absent), max_nodes (a
/// direct cable joins 2; a ring needs it) and nccl_settings.
void parse_topology(const YAML::Node& item, const std::string& origin, FabricProfile& p) {
  const std::string topology = yaml::optional_string(item, origin, "topology").value_or("switch");
  if (topology == "switch") {
    p.topology = FabricTopology::switched;
  } else if (topology == "direct") {
    p.topology = FabricTopology::direct;
    p.max_ranks = 2;
  } else if (topology == "ring") {
    p.topology = FabricTopology::ring;
  } else {
    throw InputError("'" + topology + "' is not a topology; allowed switch, direct, ring",
                     yaml::where(item["topology"], origin, "topology"));
  }
  if (item["max_nodes"].IsDefined()) {
    if (p.topology == FabricTopology::switched) {
      throw InputError("only a direct cable or a ring joins a limited number of nodes",
                       yaml::where(item["max_nodes"], origin, "max_nodes"));
    }
    p.max_ranks = static_cast<int>(yaml::required_integer(item, origin, "max_nodes", 2, 64));
  } else if (p.topology == FabricTopology::ring) {
    throw InputError("a ring profile needs max_nodes (the most nodes it was measured with)",
                     yaml::where(item, origin, "max_nodes"));
  }
  const YAML::Node settings = item["nccl_settings"];
  if (settings.IsDefined()) {
    if (!settings.IsSequence()) {
      throw InputError("expected a list of NAME=value",
                       yaml::where(settings, origin, "nccl_settings"));
    }
    for (const auto& s : settings) {
      const std::string text = s.IsScalar() ? s.as<std::string>() : std::string();
      if (text.find('=') == std::string::npos || text.front() == '=') {
        throw InputError("expected NAME=value", yaml::where(s, origin, "nccl_settings"));
      }
      p.nccl_settings.push_back(text);
    }
  }
}

}  // namespace

std::vector<FabricProfile> parse_fabric_catalog(std::string_view text, const std::string& origin) {
  const YAML::Node root = yaml::load_document(text, origin);
  yaml::require_map(root, origin, "a fabric catalog");
  yaml::reject_unknown_keys(
      root, origin, {"node", "small_allreduce", "rdma", "nccl", "prefill_bursts", "profiles"});
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
      BusBandwidthPoint point{catalog_yaml::required_message_size(pt, origin, "size"),
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
  const PrefillBursts bursts = parse_bursts(root, origin);
  for (const auto& [name, points] : bursts.paths) {
    if (rdma.find(name) == rdma.end()) {
      throw InputError(fmt::format("'{}' is not a path of the rdma section", name),
                       yaml::where(root["prefill_bursts"]["paths"], origin, name));
    }
  }
  const auto small = parse_small(root["small_allreduce"], origin, nccl, bursts);
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
    const double factor =
        ring_sent_factor(c.all_gather ? Collective::all_gather : Collective::all_reduce, c.ranks);
    for (const auto& pt : c.points) {
      const double sent = pt.size.count() * factor;
      const double time = sent / pt.bus_bandwidth.bytes_per_second();
      const double fixed =
          shared_allreduce_latency(small, pt.size, c.ranks).value() * (c.all_gather ? 0.5 : 1.0);
      c.seconds_per_byte.push_back(std::max(floor, (time - fixed) / sent));
    }
    // One run, one figure a size: no spread of its own (s.29).
    c.slowest_seconds_per_byte = c.seconds_per_byte;
    c.fastest_seconds_per_byte = c.seconds_per_byte;
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
        item, origin,
        {"name", "link", "default", "description", "path", "nccl", "rdma_devices", "topology",
         "max_nodes", "small_allreduce", "nccl_settings"});
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
    std::string profile_latency_line;
    parse_topology(item, origin, p);
    // A topology whose fixed cost differs from the node's shared one (a
    // ring's patched NCCL) carries its own small all-reduces: they replace
    // the shared tables of the same rank count and keep the others, so rank
    // counts it did not measure still move along ring steps (s.22).
    if (item["small_allreduce"].IsDefined()) {
      const auto own = parse_small(item["small_allreduce"], origin, nccl, bursts);
      std::erase_if(p.small, [&](const SmallAllReduceTable& shared) {
        return std::any_of(own.begin(), own.end(),
                           [&](const auto& t) { return t.ranks == shared.ranks; });
      });
      p.small.insert(p.small.end(), own.begin(), own.end());
      for (const auto& t : own) {
        profile_latency_line +=
            (profile_latency_line.empty() ? "" : "; ") +
            fmt::format(
                "this topology's own small all-reduces on {} ranks, in place of the shared "
                "table of that rank count ({} sizes, bytes taken out at {}'s {}): {}",
                t.ranks, t.points.size(), t.measured_on, gbps(t.measured_bus_bandwidth), t.source);
      }
    }

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
    for (auto* spb : {&p.curve.seconds_per_byte, &p.curve.slowest_seconds_per_byte,
                      &p.curve.fastest_seconds_per_byte}) {
      for (double& v : *spb) v /= p.curve_scale;
    }
    if (const auto it = bursts.paths.find(path_name); it != bursts.paths.end()) {
      merge_bursts(p.curve, it->second, bursts, 1.0 / r.rate.bytes_per_second(), small);
      std::string rates;
      for (const auto& b : it->second) {
        rates += fmt::format("{}{} {:.0f} Gb/s", rates.empty() ? "" : ", ", format_bytes(b.size),
                             b.rate.bits_per_second() / 1e9);
        if (b.slowest < b.fastest) {
          rates += fmt::format(" ({:.0f}-{:.0f})", b.slowest.bits_per_second() / 1e9,
                               b.fastest.bits_per_second() / 1e9);
        }
      }
      p.provenance.push_back(fmt::format(
          "all-reduces of prefill on {} ranks, read off the RDMA port counters at 1 ms ({}; "
          "counted bytes over sent {:.2f}-{:.2f}), replacing the curve between their sizes: {}",
          bursts.ranks, rates, bursts.counted_over_sent_low, bursts.counted_over_sent_high,
          bursts.source));
    }
    p.bus_bandwidth = BitRate(8.0 / builtin_seconds_per_byte(p, p.curve.points.back().size));
    // The fixed cost after the RDMA rate and the NCCL run, before the bursts.
    std::size_t at = std::min<std::size_t>(2, p.provenance.size());
    p.provenance.insert(p.provenance.begin() + static_cast<std::ptrdiff_t>(at++), latency_line);
    if (!profile_latency_line.empty()) {
      p.provenance.insert(p.provenance.begin() + static_cast<std::ptrdiff_t>(at++),
                          profile_latency_line);
    }
    for (const auto& setting : p.nccl_settings) {
      p.provenance.push_back("needs " + setting + " to initialise on a " +
                             std::string(to_string(p.topology)));
    }
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
