#include "tpnet/fabric/nccl_model.hpp"
#include "tpnet/base/text.hpp"
#include "tpnet/fabric/nccl_list.hpp"
#include "tpnet/traffic/collective.hpp"

#include <algorithm>
#include <bit>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <string>

#include <fmt/format.h>

namespace tpnet {

const NcclTuningConstants& nccl_2_28_tuning() {
  // Transcribed from NCCL 2.28.3, src/graph/tuning.cc (baseLat, hwLat,
  // llMaxBws, perChMax*Bws, treeCorrectionFactor and the refinements in
  // ncclTopoTuneModel / ncclTopoGetAlgoTime). Volta's per-channel caps are
  // those of the 2.2x releases; the file keeps them unchanged.
  static const NcclTuningConstants constants{
      .source = "NCCL 2.28.3, src/graph/tuning.cc",
      .base_latency_us = {{6.8, 14.0, 8.4}, {6.6, 14.0, 8.4}},
      .net_latency_us = {{5.0, 8.5, 14.0}, {2.7, 4.0, 14.0}},
      .pci_latency_us = {{1.0, 1.9, 4.0}, {1.0, 2.5, 5.7}},
      .nvlink_latency_us = {{0.6, 1.25, 4.0}, {0.6, 1.9, 3.4}},
      .ll_max_bw = {{39.0, 39.0, 20.4},
                    {87.7, 22.5, 19.0},
                    {141.0, 45.0, 35.0},
                    {282.0, 90.0, 70.0}},
      .ring_ll128_max_bw_per_channel = {{20.0, 20.0, 20.0},
                                        {20.0, 20.0, 20.0},
                                        {36.7, 36.7, 36.7},
                                        {73.4, 73.4, 73.4}},
      .tree_ll128_max_bw_per_channel = {{20.0, 20.0, 20.0},
                                        {20.0, 20.0, 20.0},
                                        {36.7, 36.7, 29.0},
                                        {55.6, 31.67, 20.0}},
      .tree_max_bw_per_channel = {{26.5, 18.5, 10.0},
                                  {24.0, 23.6, 17.8},
                                  {38.7, 41.4, 36.0},
                                  {70.0, 42.8, 24.0}},
      // clang-format off
      // Columns: log2i(bytes / 64) = 0..11, then 12..22.
      .tree_correction = {
          {1.0, 1.0, 1.0, 1.0,  .9,  .8,  .7,  .7,  .7,  .7,  .6,  .5,   // LL
            .4,  .4,  .5,  .6,  .7,  .8,  .9, 1.0, 1.0, 1.0, 1.0},
          {1.0, 1.0, 1.0, 1.0, 1.0,  .9,  .8,  .8,  .8,  .7,  .6,  .6,   // LL128
            .6,  .6,  .6,  .6,  .8,  .9,  .9,  .9,  .9, 1.0, 1.0},
          { .9,  .9,  .9,  .9,  .9,  .9,  .9,  .8,  .7,  .6,  .6,  .5,   // Simple
            .5,  .5,  .5,  .6,  .7,  .8,  .7,  .7,  .8,  .9,  .9}},
      // clang-format on
      .ring_ll_efficiency = 0.5,
      .ring_ll128_efficiency = 0.92,
      .tree_efficiency = 0.92,
      .tree_ll_divisor = 3.8,
      .tree_ll128_single_node = 7.0 / 9.0,
      .tree_ll128_multi_node = 120.0 / 128.0,
      .ring_simple_plateau = 1.4,
      .ring_simple_plateau_pre_ampere = 1.9,
      .net_overhead_us = 1.0,
      .net_overhead_amd_us = 2.0,
      .simple_net_overhead_factor = 3.0,
  };
  return constants;
}

std::string_view to_string(NcclProtocol protocol) {
  switch (protocol) {
    case NcclProtocol::ll:
      return "LL";
    case NcclProtocol::ll128:
      return "LL128";
    case NcclProtocol::simple:
      return "Simple";
  }
  return "unknown";
}

std::string_view to_string(CpuVendor vendor) {
  switch (vendor) {
    case CpuVendor::arm:
      return "arm";
    case CpuVendor::intel:
      return "intel";
    case CpuVendor::amd:
      return "amd";
  }
  return "unknown";
}

namespace {

constexpr NcclProtocol kProtocols[] = {NcclProtocol::ll, NcclProtocol::ll128, NcclProtocol::simple};
constexpr CollectiveAlgorithm kAlgorithms[] = {CollectiveAlgorithm::tree,
                                               CollectiveAlgorithm::ring};

bool same_ignoring_case(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

/// NCCL_ALGO / NCCL_PROTO: NCCL's list syntax (fabric/nccl_list.hpp) naming
/// algorithms or protocols, or `^` and the names to leave out. `auto` means
/// every name. Names take no `=` or `:port`: those reach `one` as written.
template <typename T, std::size_t N>
std::vector<T> parse_list(std::string_view text, const T (&all)[N], const InputLocation& where,
                          std::string_view allowed,
                          T (*one)(std::string_view, const InputLocation&)) {
  text = trim_space(text);
  if (same_ignoring_case(text, "auto")) return {std::begin(all), std::end(all)};
  const NcclList list = parse_nccl_list(text);
  if (list.has_empty_entry) {
    const std::string_view names = list.exclude ? text.substr(1) : text;
    throw InputError(fmt::format("an empty name in '{}'; use {}", names, allowed), where);
  }
  std::vector<T> named;
  named.reserve(list.entries.size());
  for (std::size_t i = 0; i < list.entries.size(); ++i) {
    const std::string& entry = list.entries[i].text;
    named.push_back(one(i == 0 && list.exact ? fmt::format("={}", entry) : entry, where));
  }
  std::vector<T> out;
  for (T value : all) {
    const bool listed = std::find(named.begin(), named.end(), value) != named.end();
    if (listed != list.exclude) out.push_back(value);
  }
  if (out.empty()) {
    throw InputError(fmt::format("'^' leaves nothing to choose from; use {}", allowed), where);
  }
  return out;
}

CollectiveAlgorithm parse_one_algorithm(std::string_view text, const InputLocation& where) {
  if (same_ignoring_case(text, "ring")) return CollectiveAlgorithm::ring;
  if (same_ignoring_case(text, "tree")) return CollectiveAlgorithm::tree;
  throw InputError("'" + std::string(text) +
                       "' is not an NCCL all-reduce algorithm tpnet models; use auto, ring or "
                       "tree (NCCL_ALGO style lists such as ring,tree or ^tree also work)",
                   where);
}

}  // namespace

NcclProtocol parse_nccl_protocol(std::string_view text, const InputLocation& where) {
  for (NcclProtocol p : kProtocols) {
    if (same_ignoring_case(text, to_string(p))) return p;
  }
  throw InputError("'" + std::string(text) +
                       "' is not an NCCL protocol; use auto, LL, LL128 or Simple (NCCL_PROTO "
                       "style lists such as LL,LL128 or ^LL128 also work)",
                   where);
}

std::vector<NcclProtocol> parse_nccl_protocols(std::string_view text, const InputLocation& where) {
  return parse_list(text, kProtocols, where, "auto, LL, LL128 or Simple", &parse_nccl_protocol);
}

std::vector<CollectiveAlgorithm> parse_nccl_algorithms(std::string_view text,
                                                       const InputLocation& where) {
  return parse_list(text, kAlgorithms, where, "auto, ring or tree", &parse_one_algorithm);
}

void validate(const NcclSetup& s) {
  if (s.ranks < 1) {
    throw InputError(std::to_string(s.ranks) + " ranks cannot all-reduce; use 1 or more",
                     InputLocation::for_key("nccl.ranks"));
  }
  const int nodes = s.nodes == 0 ? s.ranks : s.nodes;
  if (nodes < 1 || nodes > s.ranks || s.ranks % nodes != 0) {
    throw InputError(fmt::format("{} nodes do not divide {} ranks evenly; use a divisor of the "
                                 "ranks (NCCL gives every node the same number of GPUs)",
                                 nodes, s.ranks),
                     InputLocation::for_key("nccl.nodes"));
  }
  if (s.channels < 1 || s.channels > 64) {
    throw InputError(std::to_string(s.channels) + " NCCL channels is not allowed; use 1 to 64",
                     InputLocation::for_key("nccl.channels"));
  }
  const double bps = s.link_rate.bits_per_second();
  if (!(bps > 0.0) || !std::isfinite(bps)) {
    throw InputError("the link rate must be positive, e.g. 200G", InputLocation::for_key("link"));
  }
  if (!(s.compute_capability >= 6.0) || !(s.compute_capability < 100.0)) {
    throw InputError(fmt::format("compute capability {:g} is not allowed; use 6.0 or more (GB10 "
                                 "is 12.1)",
                                 s.compute_capability),
                     InputLocation::for_key("compute_capability"));
  }
  const auto non_negative = [](Seconds t) { return t.value() >= 0.0 && std::isfinite(t.value()); };
  if (s.net_overhead && !non_negative(*s.net_overhead)) {
    throw InputError("the network overhead per step must be 0 or more, e.g. 1us",
                     InputLocation::for_key("net_overhead"));
  }
  if (!non_negative(s.latency_inter)) {
    throw InputError("the inter-node latency must be 0 or more",
                     InputLocation::for_key("latency_inter"));
  }
  if (s.algorithms.empty()) {
    throw InputError("no NCCL algorithm is enabled; allow ring or tree",
                     InputLocation::for_key("nccl.algorithms"));
  }
  if (s.protocols.empty()) {
    throw InputError("no NCCL protocol is enabled; allow LL, LL128 or Simple",
                     InputLocation::for_key("nccl.protocols"));
  }
}

namespace {

constexpr int index_of(CollectiveAlgorithm a) { return a == CollectiveAlgorithm::tree ? 0 : 1; }
constexpr int index_of(NcclProtocol p) {
  return p == NcclProtocol::ll ? 0 : p == NcclProtocol::ll128 ? 1 : 2;
}

/// NCCL's log2i: floor(log2(n)), -1 for 0.
int floor_log2(std::uint64_t n) { return static_cast<int>(std::bit_width(n)) - 1; }

/// The size NCCL's integer arithmetic sees: whole bytes, capped far beyond
/// any real buffer so the conversion stays defined.
std::uint64_t whole_bytes(Bytes size) {
  return static_cast<std::uint64_t>(std::min(std::floor(size.count()), 9.0e18));
}

void validate_size(Bytes size) {
  if (!(size.count() >= 0.0) || !std::isfinite(size.count())) {
    throw InputError("an all-reduce size must be 0 bytes or more",
                     InputLocation::for_key("nccl.size"));
  }
}

/// Everything ncclTopoTuneModel and ncclTopoGetAlgoTime compute for one pair.
NcclCost price(Bytes size, const NcclSetup& s, Collective coll, CollectiveAlgorithm algorithm,
               NcclProtocol protocol) {
  validate(s);
  validate_size(size);
  const NcclTuningConstants& k = s.tuning;
  NcclCost cost;
  cost.algorithm = algorithm;
  cost.protocol = protocol;
  const bool algorithm_on =
      std::find(s.algorithms.begin(), s.algorithms.end(), algorithm) != s.algorithms.end();
  const bool protocol_on =
      std::find(s.protocols.begin(), s.protocols.end(), protocol) != s.protocols.end();
  // An all-gather here is always a ring; NCCL_ALGO's all-reduce choice does not bind it.
  cost.enabled = protocol_on && (coll == Collective::all_gather || algorithm_on);
  if (s.ranks == 1) return cost;  // NCCL returns before tuning: nothing crosses anything

  const int a = index_of(algorithm);
  const int p = index_of(protocol);
  const int ranks = s.ranks;
  const int nodes = s.nodes == 0 ? s.ranks : s.nodes;
  const int ppn = ranks / nodes;
  const bool ring = algorithm == CollectiveAlgorithm::ring;
  const double cc = s.compute_capability;
  const int arch = cc >= 10.0 ? 3 : cc >= 9.0 ? 2 : cc >= 8.0 ? 1 : 0;
  const int column = nodes <= 2 ? nodes - 1 : 2;
  const int ll_row = nodes == 1 ? arch : (s.cpu == CpuVendor::amd ? 1 : 0);
  const double ll_max_bw = k.ll_max_bw[ll_row][column];
  const double channels = s.channels;

  // Bandwidth, GB/s. busBw = nChannels x per-channel bw, then the refinements.
  double bus = s.link_rate.bytes_per_second() / 1e9;
  if (ring && protocol == NcclProtocol::ll) bus = std::min(ll_max_bw, bus * k.ring_ll_efficiency);
  if (ring && protocol == NcclProtocol::ll128) {
    bus = std::min(bus * k.ring_ll128_efficiency,
                   channels * k.ring_ll128_max_bw_per_channel[arch][column]);
  }
  if (!ring) {
    bus = std::min(bus * k.tree_efficiency, channels * k.tree_max_bw_per_channel[arch][column]);
    if (protocol == NcclProtocol::ll) bus = std::min(bus / k.tree_ll_divisor, ll_max_bw);
    if (protocol == NcclProtocol::ll128) {
      bus = std::min(bus * (nodes == 1 ? k.tree_ll128_single_node : k.tree_ll128_multi_node),
                     channels * k.tree_ll128_max_bw_per_channel[arch][column]);
    }
  }
  const int steps = ring_steps(coll, ranks);
  const int inter_steps = nodes == 1 ? 0 : (coll == Collective::all_reduce ? 2 : 1) * (nodes - 1);
  double algbw = bus * (ring ? static_cast<double>(ranks) / steps : 0.5);

  // Latency, us.
  const auto& intra_table =
      s.intra_node == IntraNodeLink::nvlink ? k.nvlink_latency_us : k.pci_latency_us;
  double intra = intra_table[a][p];
  // With one GPU a node every step is exposed: NCCL uses the tree's network latency.
  double inter =
      (ppn == 1 ? k.net_latency_us[0][p] : k.net_latency_us[a][p]) + s.latency_inter.value() * 1e6;
  if (protocol == NcclProtocol::simple) inter += s.latency_inter.value() * 1e6;  // the flush
  double latency = k.base_latency_us[a][p];
  if (ring) {
    if (nodes > 1) {
      double overhead = s.net_overhead            ? s.net_overhead->value() * 1e6
                        : s.cpu == CpuVendor::amd ? k.net_overhead_amd_us
                                                  : k.net_overhead_us;
      if (protocol == NcclProtocol::simple) overhead *= k.simple_net_overhead_factor;
      intra = std::max(intra, overhead);
    }
    latency += (steps - inter_steps) * intra + inter_steps * inter;
  } else {
    latency += 2.0 * ((ppn - 1) * intra + floor_log2(static_cast<std::uint64_t>(nodes)) * inter);
  }

  // ncclTopoGetAlgoTime's size-dependent corrections.
  const std::uint64_t bytes = whole_bytes(size);
  if (!ring) {
    const int log_size = floor_log2(bytes >> 6U);
    if (log_size >= 0 && log_size < 23) cost.tree_correction = k.tree_correction[p][log_size];
    algbw *= cost.tree_correction;
  }
  if (ring && protocol == NcclProtocol::simple && nodes > 1 && coll == Collective::all_reduce &&
      bytes / static_cast<std::uint64_t>(s.channels * ranks) >= 64) {
    cost.plateau_factor = cc < 8.0 ? k.ring_simple_plateau_pre_ampere : k.ring_simple_plateau;
    latency *= cost.plateau_factor;
  }

  cost.latency = Seconds::microseconds(latency);
  cost.bus_bandwidth = BitRate::gigabytes_per_second(bus);
  cost.algorithm_bandwidth = BitRate::gigabytes_per_second(algbw);
  if (!(algbw > 0.0)) {
    // NCCL reads a bandwidth of 0 as "not available" (only custom constants get here).
    cost.enabled = false;
    cost.time = cost.latency;
    return cost;
  }
  cost.time = cost.latency + size / cost.algorithm_bandwidth;
  return cost;
}

NcclChoice choose(const std::vector<NcclCost>& candidates) {
  NcclChoice choice;
  choice.candidates = candidates;
  const NcclCost* best = nullptr;
  for (const NcclCost& c : choice.candidates) {
    if (c.enabled && (best == nullptr || c.time < best->time)) best = &c;
  }
  if (best == nullptr) {
    throw InputError(
        "NCCL's algorithm and protocol settings leave no all-reduce to choose; "
        "allow at least one protocol",
        InputLocation::for_key("nccl.protocols"));
  }
  choice.chosen = *best;
  return choice;
}

}  // namespace

NcclCost nccl_allreduce_cost(Bytes size, const NcclSetup& setup, CollectiveAlgorithm algorithm,
                             NcclProtocol protocol) {
  return price(size, setup, Collective::all_reduce, algorithm, protocol);
}

NcclChoice choose_nccl_allreduce(Bytes size, const NcclSetup& setup) {
  std::vector<NcclCost> candidates;
  for (CollectiveAlgorithm a : kAlgorithms) {
    for (NcclProtocol p : kProtocols) {
      candidates.push_back(price(size, setup, Collective::all_reduce, a, p));
    }
  }
  return choose(candidates);
}

NcclCost nccl_allgather_cost(Bytes size, const NcclSetup& setup, NcclProtocol protocol) {
  return price(size, setup, Collective::all_gather, CollectiveAlgorithm::ring, protocol);
}

NcclChoice choose_nccl_allgather(Bytes size, const NcclSetup& setup) {
  std::vector<NcclCost> candidates;
  for (NcclProtocol p : kProtocols) {
    candidates.push_back(price(size, setup, Collective::all_gather, CollectiveAlgorithm::ring, p));
  }
  return choose(candidates);
}

std::string describe(const NcclCost& cost) {
  return fmt::format("{}/{}", to_string(cost.algorithm), to_string(cost.protocol));
}

}  // namespace tpnet
