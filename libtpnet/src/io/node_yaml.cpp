#include "tpnet/io/node_yaml.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <string_view>
#include <tuple>
#include <utility>

#include "catalog_yaml.hpp"
#include "tpnet/base/limits.hpp"
#include "tpnet/base/quantity.hpp"
#include "tpnet/fabric/switch_spec.hpp"
#include "tpnet/io/text_file.hpp"
#include "yaml_fields.hpp"

namespace tpnet {
namespace {

NodePorts parse_ports(const YAML::Node& map, const std::string& origin) {
  yaml::require_map(map, origin, "ports (count, cage, rate, speeds)");
  yaml::reject_unknown_keys(map, origin, {"count", "cage", "rate", "speeds"});
  NodePorts p;
  p.count = static_cast<int>(yaml::required_integer(map, origin, "count", 1, 64));
  p.cage = yaml::required_string(map, origin, "cage");
  if (!cage_lanes(p.cage)) {
    std::string known;
    for (const auto& type : cage_types()) {
      known += (known.empty() ? "" : ", ") + std::string(type.name);
    }
    throw InputError("'" + p.cage + "' is not a known port type; use " + known,
                     yaml::where(map["cage"], origin, "cage"));
  }
  p.rate = catalog_yaml::required_rate(map, origin, "rate");
  const YAML::Node speeds = map["speeds"];
  if (speeds.IsDefined() && !speeds.IsNull()) {
    if (!speeds.IsSequence() || speeds.size() == 0) {
      throw InputError("expected a list of rates such as [200G, 100G]",
                       yaml::where(speeds, origin, "speeds"));
    }
    for (const auto& item : speeds) {
      const InputLocation at = yaml::where(item, origin, "speeds");
      if (!item.IsScalar()) throw InputError("expected a rate such as 100G", at);
      const BitRate speed = parse_bit_rate(item.Scalar(), at);
      if (speed > p.rate && !same_rate(speed, p.rate)) {
        throw InputError(fmt::format("{} is faster than the port's rate ({})", item.Scalar(),
                                     rate_label(p.rate)),
                         at);
      }
      p.speeds.push_back(speed);
    }
  }
  if (!p.supports(p.rate)) p.speeds.push_back(p.rate);
  std::sort(p.speeds.begin(), p.speeds.end(), [](BitRate a, BitRate b) { return a > b; });
  return p;
}

HostLinks parse_host_links(const YAML::Node& map, const std::string& origin) {
  yaml::require_map(map, origin, "host_links (count, pcie_gen, lanes, usable)");
  yaml::reject_unknown_keys(map, origin, {"count", "pcie_gen", "lanes", "usable"});
  HostLinks h;
  h.count = static_cast<int>(yaml::required_integer(map, origin, "count", 1, 64));
  h.pcie_gen = static_cast<int>(yaml::optional_integer(map, origin, "pcie_gen", 1, 7).value_or(0));
  h.lanes = static_cast<int>(yaml::optional_integer(map, origin, "lanes", 1, 32).value_or(0));
  h.usable = catalog_yaml::required_rate(map, origin, "usable");
  return h;
}

/// `{channels: 64, buffsize: 4MiB, per_rank: 37GB}`
std::pair<NcclBuffers, Bytes> parse_nccl_point(const YAML::Node& map, const std::string& origin) {
  yaml::require_map(map, origin, "{channels, buffsize, per_rank}");
  yaml::reject_unknown_keys(map, origin, {"channels", "buffsize", "per_rank"});
  NcclBuffers b;
  b.channels =
      static_cast<int>(yaml::required_integer(map, origin, "channels", 1, kMaxNcclChannels));
  b.buffsize = catalog_yaml::required_bytes(map, origin, "buffsize");
  return {b, catalog_yaml::required_bytes(map, origin, "per_rank")};
}

NcclMemoryProfile parse_nccl_memory(const YAML::Node& map, const std::string& origin) {
  yaml::require_map(map, origin, "nccl_memory (ranks, default, tuned)");
  yaml::reject_unknown_keys(map, origin, {"ranks", "default", "tuned"});
  NcclMemoryProfile p;
  p.ranks = static_cast<int>(yaml::required_integer(map, origin, "ranks", 2, kMaxTp));
  for (const char* key : {"default", "tuned"}) {
    const YAML::Node point = map[key];
    if (!point.IsDefined() || point.IsNull()) {
      throw InputError("required key is missing", yaml::where(map, origin, key));
    }
    const auto [buffers, bytes] = yaml::with_key_prefix(
        std::string(key) + ".", [&] { return parse_nccl_point(point, origin); });
    (std::string_view(key) == "default" ? p.defaults : p.tuned) = buffers;
    (std::string_view(key) == "default" ? p.defaults_per_rank : p.tuned_per_rank) = bytes;
  }
  const double big = p.defaults.channels * p.defaults.buffsize.count();
  const double small = p.tuned.channels * p.tuned.buffsize.count();
  // The fit needs the larger setting to cost more, else its slope is not positive.
  if (!(big > small) || !(p.defaults_per_rank > p.tuned_per_rank)) {
    throw InputError(
        "default must hold more channels x buffsize than tuned and cost more per rank: the "
        "footprint model is fitted to the two",
        yaml::where(map, origin, "default"));
  }
  return p;
}

/// `{ranks: 2, max_size: 64KiB, healthy: [30us, 70us], source: ...}`
SmallAllReduceLatency parse_small_allreduce_latency(const YAML::Node& map,
                                                    const std::string& origin) {
  yaml::require_map(map, origin, "small_allreduce_latency (ranks, max_size, healthy, source)");
  yaml::reject_unknown_keys(map, origin, {"ranks", "max_size", "healthy", "source"});
  SmallAllReduceLatency l;
  l.ranks = static_cast<int>(yaml::required_integer(map, origin, "ranks", 2, kMaxTp));
  l.max_size = catalog_yaml::required_bytes(map, origin, "max_size");
  l.source = yaml::required_string(map, origin, "source");
  const YAML::Node healthy = map["healthy"];
  if (!healthy.IsDefined() || !healthy.IsSequence() || healthy.size() != 2 ||
      !healthy[0].IsScalar() || !healthy[1].IsScalar()) {
    throw InputError("expected [fastest, slowest], e.g. [30us, 70us]",
                     yaml::where(healthy.IsDefined() ? healthy : map, origin, "healthy"));
  }
  l.healthy_min = parse_duration(healthy[0].Scalar(), yaml::where(healthy[0], origin, "healthy"));
  l.healthy_max = parse_duration(healthy[1].Scalar(), yaml::where(healthy[1], origin, "healthy"));
  if (!(l.healthy_min.value() > 0.0) || !(l.healthy_max > l.healthy_min)) {
    throw InputError("needs 0 < fastest < slowest", yaml::where(healthy, origin, "healthy"));
  }
  return l;
}

/// A `[lowest, highest]` band of rates under `key`.
std::pair<BitRate, BitRate> rate_band(const YAML::Node& map, const std::string& origin,
                                      const char* key, const char* example) {
  const YAML::Node band = map[key];
  if (!band.IsDefined() || !band.IsSequence() || band.size() != 2 || !band[0].IsScalar() ||
      !band[1].IsScalar()) {
    throw InputError(fmt::format("expected [lowest, highest], e.g. {}", example),
                     yaml::where(band.IsDefined() ? band : map, origin, key));
  }
  const BitRate from = parse_bit_rate(band[0].Scalar(), yaml::where(band[0], origin, key));
  const BitRate to = parse_bit_rate(band[1].Scalar(), yaml::where(band[1], origin, key));
  if (!(from < to)) throw InputError("needs lowest < highest", yaml::where(band, origin, key));
  return {from, to};
}

/// `{software_forwarded_below: 8G, degraded_nic_up_to: 25G, one_pcie_half: [95G, 125G],
/// one_pcie_half_on_links_from: 180G, socket_fallback: [16G, 32G], source: ...}`
BusBandwidthFaults parse_bus_bandwidth_faults(const YAML::Node& map, const std::string& origin) {
  yaml::require_map(map, origin,
                    "bus_bandwidth_faults (software_forwarded_below, degraded_nic_up_to, "
                    "one_pcie_half, one_pcie_half_on_links_from, socket_fallback, source)");
  yaml::reject_unknown_keys(map, origin,
                            {"software_forwarded_below", "degraded_nic_up_to", "one_pcie_half",
                             "one_pcie_half_on_links_from", "socket_fallback", "source"});
  BusBandwidthFaults f;
  f.software_forwarded_below = catalog_yaml::required_rate(map, origin, "software_forwarded_below");
  f.degraded_nic_up_to = catalog_yaml::required_rate(map, origin, "degraded_nic_up_to");
  f.one_pcie_half_on_links_from =
      catalog_yaml::required_rate(map, origin, "one_pcie_half_on_links_from");
  f.source = yaml::required_string(map, origin, "source");
  std::tie(f.one_pcie_half_from, f.one_pcie_half_to) =
      rate_band(map, origin, "one_pcie_half", "[95G, 125G]");
  if (map["socket_fallback"].IsDefined()) {
    f.socket_fallback = rate_band(map, origin, "socket_fallback", "[16G, 32G]");
    if (!(f.software_forwarded_below < f.socket_fallback->first) ||
        !(f.socket_fallback->second < f.one_pcie_half_from)) {
      throw InputError("needs software_forwarded_below < the band < the one_pcie_half band",
                       yaml::where(map["socket_fallback"], origin, "socket_fallback"));
    }
  }
  // The bands are read in this order: a rate in two would name the first.
  if (!(f.software_forwarded_below < f.degraded_nic_up_to) ||
      !(f.degraded_nic_up_to < f.one_pcie_half_from)) {
    throw InputError("needs software_forwarded_below < degraded_nic_up_to < the one_pcie_half band",
                     yaml::where(map["degraded_nic_up_to"], origin, "degraded_nic_up_to"));
  }
  return f;
}

/// The findings preflight knows how to name; a finding under another key
/// would never be shown, so it is refused.
constexpr std::string_view kPreflightFindings[] = {"one_device", "mtu",        "gid_index",
                                                   "pcie_link",  "nccl_build", "memlock"};

PreflightFinding parse_preflight_finding(const YAML::Node& map, const std::string& origin) {
  yaml::require_map(map, origin, "a finding (cost, source, fix, degraded, healthy)");
  yaml::reject_unknown_keys(map, origin, {"cost", "source", "fix", "degraded", "healthy"});
  PreflightFinding f;
  f.cost = yaml::required_string(map, origin, "cost");
  f.source = yaml::required_string(map, origin, "source");
  f.fix = yaml::optional_string(map, origin, "fix").value_or("");
  f.degraded = catalog_yaml::optional_rate(map, origin, "degraded");
  f.healthy = catalog_yaml::optional_rate(map, origin, "healthy");
  if (f.degraded.has_value() != f.healthy.has_value()) {
    throw InputError(
        "degraded and healthy come together: the rate the fault gave and the rate "
        "without it",
        yaml::where(map, origin, f.degraded ? "healthy" : "degraded"));
  }
  if (f.degraded && !(*f.degraded < *f.healthy)) {
    throw InputError("must be below healthy", yaml::where(map["degraded"], origin, "degraded"));
  }
  return f;
}

NodePreflight parse_preflight(const YAML::Node& map, const std::string& origin) {
  yaml::require_map(map, origin, "preflight (interface_mtu, roce_mtu, nccl_release, findings)");
  yaml::reject_unknown_keys(map, origin, {"interface_mtu", "roce_mtu", "nccl_release", "findings"});
  NodePreflight p;
  p.interface_mtu =
      static_cast<int>(yaml::required_integer(map, origin, "interface_mtu", 1280, 65535));
  p.roce_mtu = static_cast<int>(yaml::required_integer(map, origin, "roce_mtu", 256, 4096));
  if (p.roce_mtu & (p.roce_mtu - 1)) {
    throw InputError("must be an InfiniBand MTU: 256, 512, 1024, 2048 or 4096",
                     yaml::where(map["roce_mtu"], origin, "roce_mtu"));
  }
  p.nccl_release = yaml::optional_string(map, origin, "nccl_release").value_or("");
  const YAML::Node findings = map["findings"];
  if (findings.IsDefined() && !findings.IsNull()) {
    yaml::require_map(findings, origin, "findings (one_device, mtu, gid_index, ...)");
    for (const auto& item : findings) {
      const auto key = item.first.as<std::string>();
      if (std::find(std::begin(kPreflightFindings), std::end(kPreflightFindings), key) ==
          std::end(kPreflightFindings)) {
        throw InputError(
            "is not a finding preflight names; use one_device, mtu, gid_index, pcie_link, "
            "nccl_build or memlock",
            yaml::where(item.first, origin, "findings." + key));
      }
      p.findings.emplace_back(key, yaml::with_key_prefix("findings." + key + ".", [&] {
                                return parse_preflight_finding(item.second, origin);
                              }));
    }
  }
  return p;
}

/// `[slow, typical, fast]`: three numbers (or durations with `duration`),
/// each in [lo, hi], ordered so that `slow` makes a forward slowest (a rate
/// rises from slow to fast, a time or a concentration falls).
Spread parse_spread(const YAML::Node& map, const std::string& origin, std::string_view key,
                    double lo, double hi, bool rising, bool duration = false) {
  const YAML::Node node = map[std::string(key)];
  if (!node.IsDefined() || node.IsNull()) {
    throw InputError("required key is missing", yaml::where(map, origin, key));
  }
  if (!node.IsSequence() || node.size() != 3) {
    throw InputError(duration ? "expected [slow, typical, fast], e.g. [6ms, 4ms, 2ms]"
                              : "expected [slow, typical, fast], e.g. [0.6, 0.7, 0.8]",
                     yaml::where(node, origin, key));
  }
  double v[3] = {0.0, 0.0, 0.0};
  for (std::size_t i = 0; i < 3; ++i) {
    const YAML::Node item = node[i];
    const InputLocation at = yaml::where(item, origin, key);
    if (!item.IsScalar()) throw InputError("expected a number", at);
    if (duration) {
      v[i] = parse_duration(item.Scalar(), at).value();
    } else if (!YAML::convert<double>::decode(item, v[i]) || !std::isfinite(v[i])) {
      throw InputError(fmt::format("'{}' is not a number", item.Scalar()), at);
    }
    if (!(v[i] >= lo && v[i] <= hi)) {
      throw InputError(fmt::format("{:g} is out of range; allowed {:g} to {:g}", v[i], lo, hi), at);
    }
  }
  const bool ordered = rising ? (v[0] <= v[1] && v[1] <= v[2]) : (v[0] >= v[1] && v[1] >= v[2]);
  if (!ordered) {
    throw InputError(rising ? "expected slow <= typical <= fast (a rate rises)"
                            : "expected slow >= typical >= fast (a time falls)",
                     yaml::where(node, origin, key));
  }
  return Spread{v[0], v[1], v[2]};
}

/// `expected: {source, decode: {...}, prefill: {...}}` (docs/switch.md).
ExpectedRates parse_expected(const YAML::Node& map, const std::string& origin) {
  yaml::require_map(map, origin, "expected (source, decode, prefill)");
  yaml::reject_unknown_keys(map, origin, {"source", "decode", "prefill"});
  ExpectedRates e;
  e.source = yaml::required_string(map, origin, "source");
  constexpr double kMaxSeconds = 10.0;
  constexpr double kMaxTflops = 1e6;
  const YAML::Node decode = map["decode"];
  yaml::require_map(decode, origin, "decode");
  yaml::with_key_prefix("decode.", [&] {
    yaml::reject_unknown_keys(decode, origin,
                              {"bandwidth_share", "step_overhead", "eager_step_overhead",
                               "gemm_tflops", "expert_concentration"});
    e.decode.bandwidth_share = parse_spread(decode, origin, "bandwidth_share", 0.01, 1.0, true);
    e.decode.step_overhead_s =
        parse_spread(decode, origin, "step_overhead", 0.0, kMaxSeconds, false, true);
    e.decode.eager_step_overhead_s =
        parse_spread(decode, origin, "eager_step_overhead", 0.0, kMaxSeconds, false, true);
    Spread tflops = parse_spread(decode, origin, "gemm_tflops", 0.001, kMaxTflops, true);
    e.decode.gemm_flops_per_s = {tflops.slow * 1e12, tflops.typical * 1e12, tflops.fast * 1e12};
    e.decode.expert_concentration =
        parse_spread(decode, origin, "expert_concentration", 0.1, 1.0, false);
  });
  const YAML::Node prefill = map["prefill"];
  yaml::require_map(prefill, origin, "prefill");
  yaml::with_key_prefix("prefill.", [&] {
    yaml::reject_unknown_keys(
        prefill, origin,
        {"step_overhead", "gemm_tflops", "bf16_gemm_tflops", "expert_gemm_tflops", "mixer_tflops"});
    e.prefill.step_overhead_s =
        parse_spread(prefill, origin, "step_overhead", 0.0, kMaxSeconds, false, true);
    auto rate = [&](std::string_view key) {
      const Spread t = parse_spread(prefill, origin, key, 0.001, kMaxTflops, true);
      return Spread{t.slow * 1e12, t.typical * 1e12, t.fast * 1e12};
    };
    e.prefill.gemm_flops_per_s = rate("gemm_tflops");
    e.prefill.bf16_gemm_flops_per_s = rate("bf16_gemm_tflops");
    e.prefill.expert_gemm_flops_per_s = rate("expert_gemm_tflops");
    e.prefill.mixer_flops_per_s = rate("mixer_tflops");
  });
  return e;
}

}  // namespace

NodeSpec parse_node_yaml(std::string_view text, const std::string& origin) {
  const YAML::Node root = yaml::load_document(text, origin);
  yaml::require_map(root, origin, "a node");
  yaml::reject_unknown_keys(
      root, origin,
      {"name", "description", "source", "memory", "memory_bandwidth", "usable_memory",
       "reserved_memory", "unified_memory", "nic", "ports", "host_links", "network_limit",
       "nccl_memory", "small_allreduce_latency", "bus_bandwidth_faults", "preflight", "expected",
       "kv_connector", "notes"});
  NodeSpec n;
  n.name = yaml::required_string(root, origin, "name");
  n.description = yaml::optional_string(root, origin, "description").value_or("");
  n.source = yaml::optional_string(root, origin, "source").value_or("");
  n.memory = catalog_yaml::required_bytes(root, origin, "memory");
  n.memory_bandwidth = catalog_yaml::required_rate(root, origin, "memory_bandwidth");
  n.usable_memory = catalog_yaml::optional_bytes(root, origin, "usable_memory").value_or(n.memory);
  if (n.usable_memory > n.memory) {
    throw InputError("must not exceed memory",
                     yaml::where(root["usable_memory"], origin, "usable_memory"));
  }
  n.reserved_memory =
      catalog_yaml::optional_bytes(root, origin, "reserved_memory").value_or(Bytes(0.0));
  if (n.reserved_memory > n.usable_memory) {
    throw InputError("must not exceed usable_memory",
                     yaml::where(root["reserved_memory"], origin, "reserved_memory"));
  }
  if (const YAML::Node unified = root["unified_memory"]; unified.IsDefined() && !unified.IsNull()) {
    if (!YAML::convert<bool>::decode(unified, n.unified_memory)) {
      throw InputError("expected true or false", yaml::where(unified, origin, "unified_memory"));
    }
  }
  n.nic = yaml::optional_string(root, origin, "nic").value_or("");
  if (const YAML::Node kv = root["kv_connector"]; kv.IsDefined() && !kv.IsNull()) {
    n.kv_connector = yaml::with_key_prefix("kv_connector.", [&] {
      yaml::require_map(kv, origin, "a KV connector's measured rates");
      yaml::reject_unknown_keys(kv, origin, {"host_memory", "gpu_memory", "source"});
      KvConnectorRate rate;
      rate.host_memory = catalog_yaml::required_rate(kv, origin, "host_memory");
      rate.gpu_memory =
          catalog_yaml::optional_rate(kv, origin, "gpu_memory").value_or(BitRate(0.0));
      rate.source = yaml::required_string(kv, origin, "source");
      return rate;
    });
  }

  const YAML::Node ports = root["ports"];
  if (!ports.IsDefined() || ports.IsNull()) {
    throw InputError("required key is missing", yaml::where(root, origin, "ports"));
  }
  n.ports = yaml::with_key_prefix("ports.", [&] { return parse_ports(ports, origin); });
  if (const YAML::Node links = root["host_links"]; links.IsDefined() && !links.IsNull()) {
    n.host_links =
        yaml::with_key_prefix("host_links.", [&] { return parse_host_links(links, origin); });
  }
  n.network_limit =
      catalog_yaml::optional_rate(root, origin, "network_limit").value_or(BitRate(0.0));
  if (const YAML::Node nccl = root["nccl_memory"]; nccl.IsDefined() && !nccl.IsNull()) {
    n.nccl_memory =
        yaml::with_key_prefix("nccl_memory.", [&] { return parse_nccl_memory(nccl, origin); });
  }
  if (const YAML::Node latency = root["small_allreduce_latency"];
      latency.IsDefined() && !latency.IsNull()) {
    n.small_allreduce_latency = yaml::with_key_prefix(
        "small_allreduce_latency.", [&] { return parse_small_allreduce_latency(latency, origin); });
  }
  if (const YAML::Node faults = root["bus_bandwidth_faults"];
      faults.IsDefined() && !faults.IsNull()) {
    n.bus_bandwidth_faults = yaml::with_key_prefix(
        "bus_bandwidth_faults.", [&] { return parse_bus_bandwidth_faults(faults, origin); });
  }
  if (const YAML::Node preflight = root["preflight"];
      preflight.IsDefined() && !preflight.IsNull()) {
    n.preflight =
        yaml::with_key_prefix("preflight.", [&] { return parse_preflight(preflight, origin); });
  }
  if (const YAML::Node expected = root["expected"]; expected.IsDefined() && !expected.IsNull()) {
    n.expected =
        yaml::with_key_prefix("expected.", [&] { return parse_expected(expected, origin); });
  }
  n.notes = catalog_yaml::string_list(root, origin, "notes");
  return n;
}

NodeSpec load_node_file(const std::string& path) {
  return parse_node_yaml(read_text_file(path), path);
}

}  // namespace tpnet
