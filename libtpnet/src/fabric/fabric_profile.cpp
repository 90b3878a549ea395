#include "tpnet/fabric/fabric_profile.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "../io/builtin_models.hpp"
#include "../io/catalog_lookup.hpp"
#include "tpnet/fabric/link.hpp"
#include "tpnet/fabric/switch_spec.hpp"
#include "tpnet/io/fabric_yaml.hpp"
#include "tpnet/traffic/collective.hpp"

namespace tpnet {
namespace {

InputLocation fabric_key() { return InputLocation::for_key("fabric"); }

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

double ring_steps(int ranks) {
  return static_cast<double>(allreduce_steps(ranks, CollectiveAlgorithm::ring));
}

void require_collective(Bytes bytes, int ranks) {
  if (ranks < 1) throw InputError("ranks must be at least 1", InputLocation::for_key("tp"));
  if (bytes.count() < 0.0) {
    throw InputError("a collective's size cannot be negative", InputLocation::for_key("block"));
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
  const double steps = ring_steps(ranks) - ring_steps(from.ranks);
  if (tables.size() == 1) {
    return Seconds(table_excess(from, block) * ring_steps(ranks) / ring_steps(from.ranks));
  }
  const std::size_t other = base + 1 < tables.size() ? base + 1 : base - 1;
  const SmallAllReduceTable& a = *tables[std::min(base, other)];
  const SmallAllReduceTable& b = *tables[std::max(base, other)];
  const Bytes smallest = std::max(a.points.front().size, b.points.front().size);
  const double per_step = std::max(0.0, (table_excess(b, smallest) - table_excess(a, smallest)) /
                                            (ring_steps(b.ranks) - ring_steps(a.ranks)));
  return Seconds(std::max(0.0, table_excess(from, block) + per_step * steps));
}

double builtin_seconds_per_byte(const FabricProfile& profile, Bytes size) {
  const BusBandwidthCurve& c = profile.curve;
  const auto& pts = c.points;
  const auto& spb = c.seconds_per_byte;
  if (pts.empty() || spb.size() != pts.size()) {
    return 1.0 / profile.bus_bandwidth.bytes_per_second();
  }
  const double scale = profile.curve_scale > 0.0 ? profile.curve_scale : 1.0;
  const double x = size.count();
  if (x <= pts.front().size.count()) return spb.front() / scale;
  for (std::size_t i = 1; i < pts.size(); ++i) {
    if (x <= pts[i].size.count()) {
      const double w = std::log(x / pts[i - 1].size.count()) /
                       std::log(pts[i].size.count() / pts[i - 1].size.count());
      return (spb[i - 1] * (1.0 - w) + spb[i] * w) / scale;
    }
  }
  return spb.back() / scale;
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

FabricAllReduce fabric_allreduce(const FabricProfile& profile, Bytes block, int ranks,
                                 CollectiveAlgorithm algorithm) {
  require_collective(block, ranks);
  if (ranks == 1) return {};
  switch (profile.source) {
    case FabricSource::nominal: {
      const AllReducePlan plan = plan_allreduce(block, ranks, algorithm);
      if (!profile.small.empty()) {
        const Seconds latency = shared_allreduce_latency(profile.small, block, ranks);
        const Seconds transfer = allreduce_transfer_time(plan, profile.link.rate);
        return {latency + transfer, latency, transfer};
      }
      const Seconds latency = allreduce_latency(plan, profile.link);
      const Seconds transfer = allreduce_transfer_time(plan, profile.link.rate);
      return {latency + transfer, latency, transfer};
    }
    case FabricSource::calibration: {
      const AllReduceCalibration& c = *profile.calibration->allreduce;
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
  if (ranks == 1) return {};
  const double steps = ranks - 1;
  switch (profile.source) {
    case FabricSource::nominal: {
      if (!profile.small.empty()) {
        return shared_allreduce_latency(profile.small, sent_per_node, ranks) * 0.5 +
               sent_per_node / profile.link.rate;
      }
      const Bytes gathered = sent_per_node * (static_cast<double>(ranks) / steps);
      const AllReducePlan plan = plan_allreduce(gathered, ranks, CollectiveAlgorithm::ring);
      if (const auto& alpha = profile.link.latency.override) {
        return alpha->base + alpha->per_step * steps + sent_per_node / profile.link.rate;
      }
      return choose_nccl_allgather(gathered, nccl_setup(plan, profile.link)).chosen.time;
    }
    case FabricSource::calibration: {
      const AllReduceCalibration& c = *profile.calibration->allreduce;
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
      return calibrated_rate(*profile.calibration->allreduce, profile.link.rate);
    case FabricSource::nominal:
      return profile.link.rate;
  }
  return profile.link.rate;
}

const std::vector<FabricProfile>& builtin_fabric_profiles() {
  static const std::vector<FabricProfile> profiles = [] {
    std::vector<FabricProfile> all;
    for (const auto& entry : detail::builtin_fabric_texts()) {
      auto some = parse_fabric_catalog(entry.text,
                                       "built-in models/fabrics/" + std::string(entry.file_name));
      all.insert(all.end(), some.begin(), some.end());
    }
    return all;
  }();
  return profiles;
}

std::vector<std::string> builtin_fabric_names() {
  std::vector<std::string> names;
  for (const auto& p : builtin_fabric_profiles()) names.push_back(p.name);
  return names;
}

FabricProfile nominal_fabric(const Link& link) {
  FabricProfile p;
  p.name = "nominal";
  p.source = FabricSource::nominal;
  p.link = link;
  p.description = "NCCL's tuner model at the link's nominal rate";
  p.provenance.emplace_back(
      link.latency.override ? "latency: the user's alpha-beta override; bytes at the nominal rate"
                            : "latency: NCCL 2.28.3's tuning model (src/graph/tuning.cc); bytes "
                              "at the nominal rate");
  return p;
}

namespace {

/// The preset a link is: by its name, else by its rate, so that `200Gb/s`
/// and `200G` (one quantity spelled two ways) get one profile.
std::string_view preset_of(const Link& link) {
  const auto& presets = link_presets();
  for (const auto& preset : presets) {
    if (link.name == preset.name) return preset.name;
  }
  for (const auto& preset : presets) {
    if (same_rate(BitRate::gigabits_per_second(preset.gigabits_per_second), link.rate)) {
      return preset.name;
    }
  }
  return link.name;
}

}  // namespace

FabricProfile default_fabric(const Link& link, std::string_view node) {
  // A user's latency override is an explicit ask for the alpha-beta model.
  if (link.latency.override) return nominal_fabric(link);
  bool node_measured = false;
  for (const auto& p : builtin_fabric_profiles()) {
    if (!detail::same_name(p.node, node)) continue;
    node_measured = true;
    if (p.is_default && p.for_link == preset_of(link)) {
      FabricProfile out = p;
      out.link = link;
      return out;
    }
  }
  FabricProfile p = nominal_fabric(link);
  if (node_measured) {
    // The node has measured paths, not this one: say so rather than let a
    // nominal rate pass for a measurement. Its fixed cost is the node's
    // measured one (a property of the NICs and NCCL, shared by every path),
    // so a slower unmeasured link never prices a collective below a measured
    // faster one the way NCCL's tuner latencies would.
    for (const auto& b : builtin_fabric_profiles()) {
      if (detail::same_name(b.node, node)) {
        p.small = b.small;
        break;
      }
    }
    p.description = fmt::format(
        "no measured profile for this path ({} on {}): bytes at the nominal {}, which real links "
        "do not reach; fixed cost from the node's measured small all-reduces",
        link.name, node, rate_label(link.rate));
    p.provenance = {p.description};
  }
  return p;
}

FabricProfile resolve_fabric(std::string_view spec, const Link& link, std::string_view node,
                             std::shared_ptr<const Calibration> calibration) {
  if (spec.empty() || spec == "auto") return default_fabric(link, node);
  if (spec == "nominal") return nominal_fabric(link);
  if (calibration) {
    if (!calibration->allreduce) {
      throw InputError(calibration->origin +
                           ": has no allreduce section; a fabric profile needs a "
                           "measured all-reduce sweep",
                       fabric_key());
    }
    FabricProfile p;
    p.name = calibration->origin;
    p.source = FabricSource::calibration;
    p.link = link;
    p.calibration = std::move(calibration);
    const AllReduceCalibration& c = *p.calibration->allreduce;
    p.description = fmt::format("measured: {} ranks on {} ({})", c.ranks, c.link, c.source);
    p.provenance.push_back(
        fmt::format("the measured all-reduce curve of {}, moved to {} by docs/formulas.md s.19",
                    p.name, link.name));
    return p;
  }
  for (const auto& p : builtin_fabric_profiles()) {
    if (!detail::same_name(p.name, spec)) continue;
    if (!same_rate(p.link.rate, link.rate)) {
      throw InputError(
          fmt::format("profile {} describes {} links ({}), not {} ({}); give one profile per link "
                      "or auto",
                      p.name, p.for_link, rate_label(p.link.rate), link.name,
                      rate_label(link.rate)),
          fabric_key());
    }
    FabricProfile out = p;
    out.link = link;
    return out;
  }
  auto names = builtin_fabric_names();
  names.emplace_back("nominal");
  names.emplace_back("auto");
  throw InputError(detail::unknown_name_message("fabric profile", spec, names) +
                       " (a calibration.yaml path also works)",
                   fabric_key());
}

std::string describe(const FabricProfile& profile) {
  switch (profile.source) {
    case FabricSource::builtin:
      return profile.name + " (built-in, from public measurements)";
    case FabricSource::calibration:
      return profile.name + " (calibration, measured)";
    case FabricSource::nominal:
      return profile.link.latency.override ? "nominal (user's alpha-beta latency)"
                                           : "nominal (NCCL tuner model)";
  }
  return profile.name;
}

}  // namespace tpnet
