#include "tpnet/fabric/fabric_profile.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>

#include "tpnet/fabric/allreduce_time.hpp"
#include "tpnet/fabric/link.hpp"
#include "tpnet/fabric/switch_spec.hpp"
#include "tpnet/traffic/collective.hpp"

namespace tpnet {
namespace {

/// Node names compare as the catalogs do: without regard to case.
bool same_node_name(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

/// A table's measured time less its bytes at the bus bandwidth of the fabric
/// it was measured on, at `block`: linear between measured sizes, the
/// smallest's below them, and above them falling, linearly in log(size), to 0
/// at the size that bus bandwidth was measured at (where, by that
/// measurement, nothing is left over). Taking the bytes out at the measured
/// fabric's rate, not the priced profile's, keeps the fixed cost a property of
/// the measurement: a slower profile then only adds byte time, never removes
/// latency.
double table_excess(const SmallAllReduceTable& t, Bytes block) {
  const BitRate bus = t.measured_bus_bandwidth;
  const Bytes bus_size = t.measured_bus_bandwidth_size;
  const double factor = allreduce_sent_factor(t.ranks, CollectiveAlgorithm::ring);
  auto excess = [&](const SmallAllReducePoint& p) {
    return std::max(0.0, (p.time - p.size * factor / bus).value());
  };
  const double x = block.count();
  const auto& pts = t.points;
  if (x <= pts.front().size.count()) return excess(pts.front());
  for (std::size_t i = 1; i < pts.size(); ++i) {
    if (x <= pts[i].size.count()) {
      const double x0 = pts[i - 1].size.count();
      const double x1 = pts[i].size.count();
      const double w = (x - x0) / (x1 - x0);
      return excess(pts[i - 1]) * (1.0 - w) + excess(pts[i]) * w;
    }
  }
  const double last = pts.back().size.count();
  if (x >= bus_size.count() || !(bus_size.count() > last)) return 0.0;
  return excess(pts.back()) * (1.0 - std::log(x / last) / std::log(bus_size.count() / last));
}

double allreduce_ring_steps(int ranks) {
  return static_cast<double>(allreduce_steps(ranks, CollectiveAlgorithm::ring));
}

void require_collective(Bytes bytes, int ranks) {
  if (ranks < 1) throw InputError("ranks must be at least 1", InputLocation::for_key("tp"));
  if (bytes.count() < 0.0) {
    throw InputError("a collective's size cannot be negative", InputLocation::for_key("block"));
  }
}

/// A direct cable's or a ring's measurement says nothing about more ranks
/// than it joined: a switchless profile never prices them.
void require_within_topology(const FabricProfile& profile, int ranks) {
  if (profile.max_ranks > 0 && ranks > profile.max_ranks) {
    const std::string joined =
        profile.topology == FabricTopology::direct
            ? fmt::format("a direct cable joining {} nodes", profile.max_ranks)
            : fmt::format("a {} of at most {} nodes", to_string(profile.topology),
                          profile.max_ranks);
    throw InputError(fmt::format("profile {} was measured on {}; {} ranks need a switch (give a "
                                 "switch profile, auto or nominal)",
                                 profile.name, joined, ranks),
                     InputLocation::for_key("fabric"));
  }
}

/// The sizes at which the per-byte cost of a collective on `profile` changes
/// slope (a built-in curve's points; none for the others).
std::vector<Bytes> fabric_breakpoints(const FabricProfile& profile) {
  std::vector<Bytes> sizes;
  if (profile.source == FabricSource::builtin) {
    for (const auto& p : profile.curve.points) sizes.push_back(p.size);
  }
  return sizes;
}

}  // namespace

/// The fixed cost of one all-reduce of `block` on `ranks` ranks: the table of
/// that rank count; otherwise the table of the most ranks not above it (the
/// fewest when none is), moved along ring steps by the cost of a step between
/// the two nearest tables at the smallest size both measured (a hop's latency
/// is a small-message cost; at larger sizes protocol switches make the
/// difference between tables noise); one table alone scales by steps.
Seconds shared_allreduce_latency(const std::vector<SmallAllReduceTable>& small, Bytes block,
                                 int ranks) {
  if (small.empty() || ranks < 2) return {};
  std::vector<const SmallAllReduceTable*> tables;
  tables.reserve(small.size());
  for (const auto& t : small) tables.push_back(&t);
  std::sort(tables.begin(), tables.end(),
            [](const auto* a, const auto* b) { return a->ranks < b->ranks; });
  for (const auto* t : tables) {
    if (t->ranks == ranks) return Seconds(table_excess(*t, block));
  }
  std::size_t base = 0;
  while (base + 1 < tables.size() && tables[base + 1]->ranks <= ranks) ++base;
  const SmallAllReduceTable& from = *tables[base];
  const double steps = allreduce_ring_steps(ranks) - allreduce_ring_steps(from.ranks);
  if (tables.size() == 1) {
    return Seconds(table_excess(from, block) * allreduce_ring_steps(ranks) /
                   allreduce_ring_steps(from.ranks));
  }
  const std::size_t other = base + 1 < tables.size() ? base + 1 : base - 1;
  const SmallAllReduceTable& a = *tables[std::min(base, other)];
  const SmallAllReduceTable& b = *tables[std::max(base, other)];
  const Bytes smallest = std::max(a.points.front().size, b.points.front().size);
  const double per_step =
      std::max(0.0, (table_excess(b, smallest) - table_excess(a, smallest)) /
                        (allreduce_ring_steps(b.ranks) - allreduce_ring_steps(a.ranks)));
  return Seconds(std::max(0.0, table_excess(from, block) + per_step * steps));
}

namespace {

/// `value(i)` of the curve's point i, read at `size`: linear in log(size)
/// between points, the nearest point's outside them (docs/formulas.md s.22).
template <typename Value>
double along_sizes(const std::vector<BusBandwidthPoint>& pts, Bytes size, const Value& value) {
  const double x = size.count();
  if (x <= pts.front().size.count()) return value(0);
  for (std::size_t i = 1; i < pts.size(); ++i) {
    if (x <= pts[i].size.count()) {
      const double w = std::log(x / pts[i - 1].size.count()) /
                       std::log(pts[i].size.count() / pts[i - 1].size.count());
      return value(i - 1) * (1.0 - w) + value(i) * w;
    }
  }
  return value(pts.size() - 1);
}

}  // namespace

double builtin_seconds_per_byte(const FabricProfile& profile, Bytes size) {
  const BusBandwidthCurve& c = profile.curve;
  const auto& pts = c.points;
  const auto& spb = profile.end == FabricEnd::slowest   ? c.slowest_seconds_per_byte
                    : profile.end == FabricEnd::fastest ? c.fastest_seconds_per_byte
                                                        : c.seconds_per_byte;
  if (pts.empty() || spb.size() != pts.size()) {
    return 1.0 / profile.bus_bandwidth.bytes_per_second();
  }
  return along_sizes(pts, size, [&](std::size_t i) { return spb[i]; });
}

FabricProfile fabric_at_end(const FabricProfile& profile, FabricEnd end) {
  FabricProfile out = profile;
  if (profile.source == FabricSource::builtin) out.end = end;
  return out;
}

bool has_spread(const FabricProfile& profile) {
  return profile.source == FabricSource::builtin &&
         profile.curve.slowest_seconds_per_byte != profile.curve.fastest_seconds_per_byte;
}

ExtraRange extra_range(
    const FabricProfile& from, const FabricProfile& to, Seconds central,
    const std::function<Seconds(const FabricProfile&, const FabricProfile&)>& extra) {
  if (!has_spread(from) && !has_spread(to)) return {central, central};
  // The extra is smallest with the first link at its slowest and the second
  // at its fastest, largest the other way round; each link's end is one
  // curve its measurements allow, taken whole (s.29).
  const Seconds a =
      extra(fabric_at_end(from, FabricEnd::slowest), fabric_at_end(to, FabricEnd::fastest));
  const Seconds b =
      extra(fabric_at_end(from, FabricEnd::fastest), fabric_at_end(to, FabricEnd::slowest));
  return {std::min({a, b, central}), std::max({a, b, central})};
}

PerByteGap largest_per_byte_gap(const FabricProfile& from, const FabricProfile& to, int ranks,
                                CollectiveAlgorithm algorithm, Bytes smallest, Bytes largest) {
  // Between breakpoints both per-byte costs are linear in log(size) (or
  // constant), so their difference is largest at an end or a breakpoint.
  std::vector<Bytes> sizes{smallest, largest};
  for (const auto* p : {&from, &to}) {
    for (const Bytes s : fabric_breakpoints(*p)) {
      if (s > smallest && s < largest) sizes.push_back(s);
    }
  }
  PerByteGap gap;
  bool first = true;
  for (const Bytes s : sizes) {
    const double sent = (s * allreduce_sent_factor(std::max(2, ranks), algorithm)).count();
    const double f =
        fabric_allreduce(from, s, std::max(2, ranks), algorithm).transfer.value() / sent;
    const double t = fabric_allreduce(to, s, std::max(2, ranks), algorithm).transfer.value() / sent;
    if (first || t - f > gap.seconds_per_byte) {
      gap = PerByteGap{t - f, s, BitRate(8.0 / f), BitRate(8.0 / t)};
      first = false;
    }
  }
  return gap;
}

std::string_view to_string(FabricSource source) {
  switch (source) {
    case FabricSource::calibration:
      return "calibration";
    case FabricSource::builtin:
      return "built-in";
    case FabricSource::nominal:
      return "nominal";
  }
  return "unknown";
}

std::string_view to_string(FabricTopology topology) {
  switch (topology) {
    case FabricTopology::none:
      return "none";
    case FabricTopology::direct:
      return "direct";
    case FabricTopology::ring:
      return "ring";
    case FabricTopology::switched:
      return "switch";
  }
  return "unknown";
}

FabricAllReduce fabric_allreduce(const FabricProfile& profile, Bytes block, int ranks,
                                 CollectiveAlgorithm algorithm) {
  require_collective(block, ranks);
  require_within_topology(profile, ranks);
  if (ranks == 1) return {};
  switch (profile.source) {
    case FabricSource::nominal: {
      const AllReduceTraffic traffic = allreduce_traffic(block, ranks, algorithm);
      if (!profile.small.empty()) {
        const Seconds latency = shared_allreduce_latency(profile.small, block, ranks);
        const Seconds transfer = allreduce_transfer_time(traffic, profile.link.rate);
        return {latency + transfer, latency, transfer};
      }
      const Seconds latency = allreduce_latency(traffic, profile.link, profile.collective);
      const Seconds transfer = allreduce_transfer_time(traffic, profile.link.rate);
      return {latency + transfer, latency, transfer};
    }
    case FabricSource::calibration: {
      const AllReduceCalibration& c = *profile.measured_curve;
      const Seconds time = calibrated_allreduce_time(c, block, ranks, profile.link.rate);
      const Seconds latency = std::min(
          time, Seconds(std::max(0.0, c.alpha.value())) *
                    (static_cast<double>(allreduce_steps(ranks, CollectiveAlgorithm::ring)) /
                     allreduce_steps(c.ranks, CollectiveAlgorithm::ring)));
      return {time, latency, time - latency};
    }
    case FabricSource::builtin: {
      const Bytes sent = block * allreduce_sent_factor(ranks, algorithm);
      const Seconds latency = shared_allreduce_latency(profile.small, block, ranks);
      const Seconds transfer(sent.count() * builtin_seconds_per_byte(profile, block));
      return {latency + transfer, latency, transfer};
    }
  }
  return {};
}

Seconds fabric_allgather(const FabricProfile& profile, Bytes sent_per_node, int ranks) {
  require_collective(sent_per_node, ranks);
  require_within_topology(profile, ranks);
  if (ranks == 1) return {};
  const double steps = ranks - 1;
  switch (profile.source) {
    case FabricSource::nominal: {
      if (!profile.small.empty()) {
        return shared_allreduce_latency(profile.small, sent_per_node, ranks) * 0.5 +
               sent_per_node / profile.link.rate;
      }
      const Bytes gathered = sent_per_node * (static_cast<double>(ranks) / steps);
      const AllReduceTraffic traffic =
          allreduce_traffic(gathered, ranks, CollectiveAlgorithm::ring);
      if (const auto& alpha = profile.collective.latency_override) {
        return alpha->base + alpha->per_step * steps + sent_per_node / profile.link.rate;
      }
      return choose_nccl_allgather(gathered, nccl_setup(traffic, profile.link, profile.collective))
          .chosen.time;
    }
    case FabricSource::calibration: {
      const AllReduceCalibration& c = *profile.measured_curve;
      const Seconds step = Seconds(std::max(0.0, c.alpha.value())) /
                           static_cast<double>(allreduce_steps(c.ranks, CollectiveAlgorithm::ring));
      return step * steps + sent_per_node / calibrated_rate(c, profile.link.rate);
    }
    case FabricSource::builtin: {
      // A ring all-gather passes N-1 steps, half an all-reduce's 2(N-1).
      const Bytes gathered = sent_per_node * (static_cast<double>(ranks) / steps);
      return shared_allreduce_latency(profile.small, sent_per_node, ranks) * 0.5 +
             Seconds(sent_per_node.count() * builtin_seconds_per_byte(profile, gathered));
    }
  }
  return {};
}

BitRate fabric_rate(const FabricProfile& profile) {
  switch (profile.source) {
    case FabricSource::builtin:
      return profile.bus_bandwidth;
    case FabricSource::calibration:
      return calibrated_rate(*profile.measured_curve, profile.link.rate);
    case FabricSource::nominal:
      return profile.link.rate;
  }
  return profile.link.rate;
}

BitRate healthy_bus_bandwidth(const FabricProfile& profile, Bytes size) {
  const auto& pts = profile.curve.points;
  if (profile.source != FabricSource::builtin || pts.empty()) return fabric_rate(profile);
  const double bps =
      along_sizes(pts, size, [&](std::size_t i) { return pts[i].bus_bandwidth.bits_per_second(); });
  return BitRate(bps * profile.curve_scale);
}

FabricProfile nominal_fabric(const Link& link, const CollectiveSettings& settings) {
  FabricProfile p;
  p.name = "nominal";
  p.source = FabricSource::nominal;
  p.link = link;
  p.collective = settings;
  p.description = "NCCL's tuner model at the link's nominal rate";
  p.provenance.emplace_back(
      settings.latency_override
          ? "latency: the user's alpha-beta override; bytes at the nominal rate"
          : "latency: NCCL 2.28.3's tuning model (src/graph/tuning.cc); bytes "
            "at the nominal rate");
  return p;
}

FabricProfile calibration_fabric(std::shared_ptr<const AllReduceCalibration> curve,
                                 const std::string& origin, const Link& link) {
  FabricProfile p;
  p.name = origin;
  p.source = FabricSource::calibration;
  p.link = link;
  p.measured_curve = std::move(curve);
  const AllReduceCalibration& c = *p.measured_curve;
  p.description = fmt::format("measured: {} ranks on {} ({})", c.ranks, c.link, c.source);
  p.provenance.push_back(
      fmt::format("the measured all-reduce curve of {}, moved to {} by docs/formulas.md s.19",
                  p.name, link.name));
  return p;
}

FabricProfile default_fabric(const std::vector<FabricProfile>& catalog, const Link& link,
                             const CollectiveSettings& settings, std::string_view node,
                             FabricTopology topology) {
  // A user's latency override is an explicit ask for the alpha-beta model.
  if (settings.latency_override) return nominal_fabric(link, settings);
  bool node_measured = false;
  const FabricProfile* chosen = nullptr;
  for (const auto& p : catalog) {
    if (!same_node_name(p.node, node)) continue;
    node_measured = true;
    if (p.topology != topology || p.for_link != (link.preset.empty() ? link.name : link.preset))
      continue;
    // Several switch profiles of one link: the catalog's default.
    if (chosen == nullptr || (p.is_default && !chosen->is_default)) chosen = &p;
  }
  if (chosen != nullptr && (chosen->is_default || topology != FabricTopology::switched)) {
    FabricProfile out = *chosen;
    out.link = link;
    return out;
  }
  FabricProfile p = nominal_fabric(link, settings);
  if (node_measured) {
    // The node has measured paths, not this one: say so rather than let a
    // nominal rate pass for a measurement. Its fixed cost is the node's
    // measured one (a property of the NICs and NCCL, shared by every path),
    // so a slower unmeasured link never prices a collective below a measured
    // faster one the way NCCL's tuner latencies would.
    for (const auto& b : catalog) {
      if (same_node_name(b.node, node)) {
        p.small = b.small;
        break;
      }
    }
    p.description = fmt::format(
        "no measured profile for this path ({}{} on {}): bytes at the nominal {}, which real "
        "links do not reach; fixed cost from the node's measured small all-reduces",
        link.name,
        topology == FabricTopology::switched ? std::string()
                                             : fmt::format(", {}", to_string(topology)),
        node, rate_label(link.rate));
    p.provenance = {p.description};
  }
  return p;
}

std::string range_text(const ExtraRange& range) {
  // Rounded first, so that -0.001 prints as +0.00 and not as -0.00.
  auto seconds = [](Seconds s) { return std::round(s.value() * 100.0) / 100.0 + 0.0; };
  return fmt::format("{:+.2f} to {:+.2f} s", seconds(range.low), seconds(range.high));
}

std::string describe(const FabricProfile& profile) {
  switch (profile.source) {
    case FabricSource::builtin:
      return profile.name + " (built-in, from public measurements)";
    case FabricSource::calibration:
      return profile.name + " (calibration, measured)";
    case FabricSource::nominal:
      return profile.collective.latency_override ? "nominal (user's alpha-beta latency)"
                                                 : "nominal (NCCL tuner model)";
  }
  return profile.name;
}

}  // namespace tpnet
