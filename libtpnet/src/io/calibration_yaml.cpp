// calibration.yaml (docs/calibration.md): one file per cluster calibration.

#include "tpnet/io/calibration_yaml.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "tpnet/base/quantity.hpp"
#include "tpnet/io/text_file.hpp"
#include "yaml_fields.hpp"

namespace tpnet {
namespace {

constexpr double kHuge = std::numeric_limits<double>::max();

/// A measured value within `lo` to `hi` of its unit: tpnet's arithmetic
/// limits (docs/hardening.md), beyond which a later product or quotient is no
/// longer finite. `lo` above 0 reads "must be positive" first.
double measured(const YAML::Node& map, const std::string& origin, std::string_view key, double lo,
                double hi) {
  const double value = yaml::required_number(map, origin, key, -kHuge, kHuge);
  const auto where = [&] { return yaml::where(map[std::string(key)], origin, key); };
  if (lo > 0.0 && !(value > 0.0)) {
    throw InputError(fmt::format("is {:g}; must be positive", value), where());
  }
  if (value < 0.0) throw InputError(fmt::format("is {:g}; must not be negative", value), where());
  if (value < lo || value > hi) {
    throw InputError(fmt::format("is {:g}; allowed {:g} to {:g}", value, lo, hi), where());
  }
  return value;
}

Seconds duration(const YAML::Node& map, const std::string& origin, std::string_view key) {
  return Seconds(measured(map, origin, key, kMinSeconds, kMaxSeconds));
}
BitRate rate(const YAML::Node& map, const std::string& origin, std::string_view key) {
  return BitRate(measured(map, origin, key, kMinBitsPerSecond, kMaxBitsPerSecond));
}
/// A bandwidth as nccl-tests reports it: 0.00 for the smallest sizes.
BitRate rate_or_zero(const YAML::Node& map, const std::string& origin, std::string_view key) {
  return BitRate(measured(map, origin, key, 0.0, kMaxBitsPerSecond));
}
Bytes byte_count(const YAML::Node& map, const std::string& origin, std::string_view key) {
  return Bytes(measured(map, origin, key, 0.0, kMaxByteCount));
}
/// Relative errors and measured/formula ratios; 10^9 is far past any real one.
double ratio(const YAML::Node& map, const std::string& origin, std::string_view key) {
  return measured(map, origin, key, 0.0, 1e9);
}

std::string text_or_empty(const YAML::Node& map, const std::string& origin, std::string_view key) {
  return yaml::optional_string(map, origin, key).value_or("");
}

YAML::Node required_map(const YAML::Node& parent, const std::string& origin, std::string_view key) {
  const YAML::Node node = parent[std::string(key)];
  if (!node || node.IsNull()) {
    throw InputError("required section is missing", yaml::where(parent, origin, key));
  }
  if (!node.IsMap()) {
    throw InputError("expected a mapping of keys", yaml::where(node, origin, key));
  }
  return node;
}

CalibrationProvenance read_provenance(const YAML::Node& map, const std::string& origin) {
  yaml::reject_unknown_keys(map, origin,
                            {"date", "tool", "hosts", "nccl_version", "backend", "env", "note"});
  CalibrationProvenance p;
  p.date = yaml::required_string(map, origin, "date");
  p.tool = text_or_empty(map, origin, "tool");
  p.nccl_version = text_or_empty(map, origin, "nccl_version");
  p.backend = text_or_empty(map, origin, "backend");
  p.note = text_or_empty(map, origin, "note");
  if (const YAML::Node hosts = map["hosts"]; hosts && !hosts.IsNull()) {
    if (!hosts.IsSequence()) {
      throw InputError("expected a list of host names", yaml::where(hosts, origin, "hosts"));
    }
    for (const auto& h : hosts) {
      if (!h.IsScalar() || h.Scalar().empty()) {
        throw InputError("expected a host name", yaml::where(h, origin, "hosts"));
      }
      p.hosts.push_back(h.Scalar());
    }
  }
  if (const YAML::Node env = map["env"]; env && !env.IsNull()) {
    if (!env.IsMap()) {
      throw InputError("expected a mapping NAME: value", yaml::where(env, origin, "env"));
    }
    for (const auto& item : env) {
      if (!item.first.IsScalar() || !item.second.IsScalar()) {
        throw InputError("expected NAME: value", yaml::where(item.first, origin, "env"));
      }
      p.env[item.first.Scalar()] = item.second.Scalar();
    }
  }
  return p;
}

/// The least a curve point's time may be, as a fraction of the longest time
/// at a smaller size.
constexpr double kLeastCurveDip = 0.5;

CalibrationPoint read_point(const YAML::Node& node, const std::string& origin) {
  yaml::require_map(node, origin, "a curve point {size_bytes, time_s, algbw_bps, busbw_bps}");
  yaml::reject_unknown_keys(node, origin, {"size_bytes", "time_s", "algbw_bps", "busbw_bps"});
  CalibrationPoint p;
  const double size = yaml::required_number(node, origin, "size_bytes", -kHuge, kHuge);
  if (!(size > 0.0)) {
    throw InputError(fmt::format("is {:g}; a size of 0 measures only the launch: sizes must be "
                                 "positive",
                                 size),
                     yaml::where(node["size_bytes"], origin, "size_bytes"));
  }
  p.size = Bytes(measured(node, origin, "size_bytes", kMinByteCount, kMaxByteCount));
  p.time = duration(node, origin, "time_s");
  p.algbw = rate_or_zero(node, origin, "algbw_bps");
  p.busbw = rate_or_zero(node, origin, "busbw_bps");
  return p;
}

/// The range fitted and its residuals, which every sweep section's fit has.
template <typename Section>
void read_fit_quality(const YAML::Node& fit, const std::string& origin, Section& c) {
  c.rms_relative_error = ratio(fit, origin, "rms_relative_error");
  c.max_relative_error = ratio(fit, origin, "max_relative_error");
  c.min_size = Bytes(measured(fit, origin, "min_size_bytes", kMinByteCount, kMaxByteCount));
  c.max_size = Bytes(measured(fit, origin, "max_size_bytes", kMinByteCount, kMaxByteCount));
  c.points = static_cast<int>(yaml::required_integer(fit, origin, "points", 2, 100000000));
  if (c.max_size < c.min_size) {
    throw InputError("is smaller than min_size_bytes",
                     yaml::where(fit["max_size_bytes"], origin, "max_size_bytes"));
  }
}

AllToAllCalibration read_alltoall(const YAML::Node& map, const std::string& origin) {
  yaml::reject_unknown_keys(map, origin, {"source", "ranks", "link", "fit"});
  AllToAllCalibration c;
  c.source = text_or_empty(map, origin, "source");
  c.ranks = static_cast<int>(yaml::required_integer(map, origin, "ranks", 2, 1000000));
  c.link = text_or_empty(map, origin, "link");
  const YAML::Node fit = required_map(map, origin, "fit");
  yaml::with_key_prefix("fit.", [&] {
    yaml::reject_unknown_keys(fit, origin,
                              {"alpha_s", "rate_bps", "rms_relative_error", "max_relative_error",
                               "min_size_bytes", "max_size_bytes", "points"});
    c.alpha = Seconds(yaml::required_number(fit, origin, "alpha_s", 0.0, 1.0));
    c.rate = rate(fit, origin, "rate_bps");
    read_fit_quality(fit, origin, c);
    return 0;
  });
  return c;
}

AllReduceCalibration read_allreduce(const YAML::Node& map, const std::string& origin) {
  yaml::reject_unknown_keys(
      map, origin,
      {"source", "ranks", "algorithm", "link", "link_bps", "dtype", "complete", "fit", "curve"});
  AllReduceCalibration c;
  c.source = text_or_empty(map, origin, "source");
  c.ranks = static_cast<int>(yaml::required_integer(map, origin, "ranks", 2, 1000000));
  if (const auto algorithm = yaml::optional_string(map, origin, "algorithm");
      algorithm && *algorithm != "ring") {
    throw InputError(
        fmt::format("is '{}'; only ring sweeps are fitted (NCCL_ALGO=Ring)", *algorithm),
        yaml::where(map["algorithm"], origin, "algorithm"));
  }
  c.link = yaml::required_string(map, origin, "link");
  c.link_rate = rate(map, origin, "link_bps");
  c.dtype = text_or_empty(map, origin, "dtype");
  if (const YAML::Node complete = map["complete"]; complete && !complete.IsNull()) {
    const std::string& v = complete.IsScalar() ? complete.Scalar() : std::string();
    if (v != "true" && v != "false") {
      throw InputError("expected true or false", yaml::where(complete, origin, "complete"));
    }
    c.complete = v == "true";
  }

  const YAML::Node fit = required_map(map, origin, "fit");
  yaml::with_key_prefix("fit.", [&] {
    yaml::reject_unknown_keys(fit, origin,
                              {"alpha_s", "beta_bps", "step_latency_s", "rms_relative_error",
                               "max_relative_error", "min_size_bytes", "max_size_bytes", "points"});
    // A fit is constrained to non-negative latency (formulas.md s.16): a
    // negative one is not tpnet's and would lower every point estimate.
    c.alpha = Seconds(yaml::required_number(fit, origin, "alpha_s", 0.0, 1.0));
    c.beta = rate(fit, origin, "beta_bps");
    c.step_latency = Seconds(yaml::required_number(fit, origin, "step_latency_s", 0.0, 1.0));
    read_fit_quality(fit, origin, c);
    return 0;
  });

  const YAML::Node curve = map["curve"];
  if (!curve || curve.IsNull()) {
    throw InputError("required key is missing", yaml::where(map, origin, "curve"));
  }
  if (!curve.IsSequence() || curve.size() < 2) {
    throw InputError("expected a list of at least 2 measured sizes",
                     yaml::where(curve, origin, "curve"));
  }
  double slowest_so_far = 0.0;
  for (std::size_t i = 0; i < curve.size(); ++i) {
    const YAML::Node node = curve[i];
    const CalibrationPoint p = yaml::with_key_prefix(fmt::format("curve[{}].", i),
                                                     [&] { return read_point(node, origin); });
    if (!c.curve.empty() && !(p.size > c.curve.back().size)) {
      throw InputError(fmt::format("size {:g} B does not follow {:g} B: curve sizes must be "
                                   "strictly increasing",
                                   p.size.count(), c.curve.back().size.count()),
                       yaml::where(node, origin, fmt::format("curve[{}].size_bytes", i)));
    }
    // Real sweeps dip (protocol switches, noise: the logs in tests/data by
    // up to 47%), but a larger all-reduce in under half the time of a smaller
    // one is not the same collective measured: it would cut estimates by the
    // same factor.
    if (!c.curve.empty() && p.time.value() < kLeastCurveDip * slowest_so_far) {
      throw InputError(fmt::format("{:.3f} us at {:.0f} B is under half of the {:.3f} us "
                                   "measured at a smaller size; a curve's time may dip a little "
                                   "as sizes grow, not fall by half",
                                   p.time.value() * 1e6, p.size.count(), slowest_so_far * 1e6),
                       yaml::where(node, origin, fmt::format("curve[{}].time_s", i)));
    }
    slowest_so_far = std::max(slowest_so_far, p.time.value());
    c.curve.push_back(p);
  }
  return c;
}

ComputeCalibration read_compute(const YAML::Node& map, const std::string& origin) {
  yaml::reject_unknown_keys(
      map, origin,
      {"source", "model", "tp", "chunk_tokens", "precision", "device", "compute_capability",
       "gemms", "forward_s", "per_prompt_token_s", "experts", "skewed_per_prompt_token_s"});
  ComputeCalibration c;
  c.source = text_or_empty(map, origin, "source");
  c.model = yaml::required_string(map, origin, "model");
  c.tp = static_cast<int>(yaml::required_integer(map, origin, "tp", 1, kMaxTp));
  c.chunk_tokens = yaml::required_integer(map, origin, "chunk_tokens", 1, kMaxTokens);
  c.precision = yaml::required_string(map, origin, "precision");
  c.device = text_or_empty(map, origin, "device");
  c.compute_capability = text_or_empty(map, origin, "compute_capability");
  c.gemms = static_cast<int>(yaml::optional_integer(map, origin, "gemms", 0, 1000000).value_or(0));
  c.forward_time = duration(map, origin, "forward_s");
  // A forward of at least 1 ns over at most 10^9 tokens.
  c.per_prompt_token =
      Seconds(measured(map, origin, "per_prompt_token_s", kMinSeconds / kMaxTokens, kMaxSeconds));
  // Files written before grouped expert timing say neither.
  c.experts = text_or_empty(map, origin, "experts");
  if (!c.experts.empty() && c.experts != "grouped" && c.experts != "separate" &&
      c.experts != "none") {
    throw InputError(fmt::format("is '{}'; allowed grouped, separate, none", c.experts),
                     yaml::where(map["experts"], origin, "experts"));
  }
  if (map["skewed_per_prompt_token_s"]) {
    c.skewed_per_prompt_token = Seconds(
        measured(map, origin, "skewed_per_prompt_token_s", kMinSeconds / kMaxTokens, kMaxSeconds));
  }
  return c;
}

TrafficCalibration read_traffic(const YAML::Node& map, const std::string& origin) {
  yaml::reject_unknown_keys(
      map, origin,
      {"source", "model", "tp", "prompt_tokens", "phase", "devices", "xmit_bytes",
       "measured_per_token_bytes", "formula_per_token_bytes", "ratio"});
  TrafficCalibration t;
  t.source = text_or_empty(map, origin, "source");
  t.model = yaml::required_string(map, origin, "model");
  t.tp = static_cast<int>(yaml::required_integer(map, origin, "tp", 2, 1000000));
  t.prompt_tokens = yaml::required_integer(map, origin, "prompt_tokens", 1, 1000000000000);
  t.phase = yaml::required_string(map, origin, "phase");
  if (t.phase != "all" && t.phase != "prefill") {
    throw InputError(fmt::format("is '{}'; allowed all, prefill", t.phase),
                     yaml::where(map["phase"], origin, "phase"));
  }
  t.devices = static_cast<int>(yaml::required_integer(map, origin, "devices", 1, 1000000));
  t.xmit_bytes = byte_count(map, origin, "xmit_bytes");
  t.measured_per_token = byte_count(map, origin, "measured_per_token_bytes");
  t.formula_per_token =
      Bytes(measured(map, origin, "formula_per_token_bytes", 1e-9, kMaxByteCount));
  t.ratio = ratio(map, origin, "ratio");
  return t;
}

// ---- writing ------------------------------------------------------------

/// A YAML double-quoted scalar: always quoted, so no text turns into a
/// number, a boolean or a comment.
std::string yaml_quoted(std::string_view text) {
  std::string out = "\"";
  for (const char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      out += fmt::format("\\x{:02x}", static_cast<unsigned char>(c));
    } else {
      out += c;
    }
  }
  return out + "\"";
}

/// Shortest text that reads back as the same double.
std::string num(double value) { return fmt::format("{}", value); }

/// read_fit_quality's keys, as a fit's mapping under its section writes them.
template <typename Section>
std::string fit_quality_yaml(const Section& c) {
  std::string out;
  out += fmt::format("    rms_relative_error: {}\n", num(c.rms_relative_error));
  out += fmt::format("    max_relative_error: {}\n", num(c.max_relative_error));
  out += fmt::format("    min_size_bytes: {}\n", num(c.min_size.count()));
  out += fmt::format("    max_size_bytes: {}\n", num(c.max_size.count()));
  out += fmt::format("    points: {}\n", c.points);
  return out;
}

}  // namespace

Calibration parse_calibration_yaml(std::string_view text, const std::string& origin) {
  const YAML::Node root = yaml::load_document(text, origin);
  yaml::require_map(root, origin, "a calibration file");
  const YAML::Node version = root["tpnet_calibration"];
  if (!version || version.IsNull()) {
    throw InputError(
        "has no 'tpnet_calibration: 1' line: not a tpnet calibration file (tpnet calibration "
        "writes one)",
        yaml::where(root, origin, "tpnet_calibration"));
  }
  if (!version.IsScalar() || version.Scalar() != std::to_string(Calibration::kSchemaVersion)) {
    throw InputError(
        fmt::format("is '{}'; this tpnet reads calibration schema version {}",
                    version.IsScalar() ? version.Scalar() : "?", Calibration::kSchemaVersion),
        yaml::where(version, origin, "tpnet_calibration"));
  }
  yaml::reject_unknown_keys(
      root, origin,
      {"tpnet_calibration", "provenance", "allreduce", "alltoall", "compute", "traffic"});
  Calibration c;
  c.origin = origin;
  const YAML::Node provenance = required_map(root, origin, "provenance");
  c.provenance =
      yaml::with_key_prefix("provenance.", [&] { return read_provenance(provenance, origin); });
  auto section = [&](std::string_view key) -> std::optional<YAML::Node> {
    const YAML::Node node = root[std::string(key)];
    if (!node || node.IsNull()) return std::nullopt;
    if (!node.IsMap())
      throw InputError("expected a mapping of keys", yaml::where(node, origin, key));
    return node;
  };
  if (const auto node = section("allreduce")) {
    c.allreduce =
        yaml::with_key_prefix("allreduce.", [&] { return read_allreduce(*node, origin); });
  }
  if (const auto node = section("alltoall")) {
    c.alltoall = yaml::with_key_prefix("alltoall.", [&] { return read_alltoall(*node, origin); });
  }
  if (const auto node = section("compute")) {
    c.compute = yaml::with_key_prefix("compute.", [&] { return read_compute(*node, origin); });
  }
  if (const auto node = section("traffic")) {
    c.traffic = yaml::with_key_prefix("traffic.", [&] { return read_traffic(*node, origin); });
  }
  if (!c.allreduce && !c.alltoall && !c.compute && !c.traffic) {
    throw InputError(
        "has no measurement: give at least one of the sections allreduce, alltoall, compute, "
        "traffic",
        InputLocation::in_file(origin));
  }
  return c;
}

Calibration load_calibration_yaml(const std::string& path) {
  return parse_calibration_yaml(read_text_file(path), path);
}

std::string write_calibration_yaml(const Calibration& c) {
  std::string out =
      "# tpnet calibration file: schema in docs/calibration.md (written by `tpnet calibration`).\n"
      "# Units are in the keys: _s seconds, _bps bit/s, _bytes bytes.\n";
  out += fmt::format("tpnet_calibration: {}\n", Calibration::kSchemaVersion);
  const auto& p = c.provenance;
  out += "provenance:\n";
  out += fmt::format("  date: {}\n", yaml_quoted(p.date));
  if (!p.tool.empty()) out += fmt::format("  tool: {}\n", yaml_quoted(p.tool));
  if (!p.note.empty()) out += fmt::format("  note: {}\n", yaml_quoted(p.note));
  if (!p.hosts.empty()) {
    out += "  hosts: [";
    for (std::size_t i = 0; i < p.hosts.size(); ++i) {
      out += (i == 0 ? "" : ", ") + yaml_quoted(p.hosts[i]);
    }
    out += "]\n";
  }
  out += fmt::format("  nccl_version: {}\n", yaml_quoted(p.nccl_version));
  out += fmt::format("  backend: {}\n", yaml_quoted(p.backend));
  if (!p.env.empty()) {
    out += "  env:\n";
    for (const auto& [name, value] : p.env) {
      out += fmt::format("    {}: {}\n", yaml_quoted(name), yaml_quoted(value));
    }
  }
  if (c.allreduce) {
    const auto& a = *c.allreduce;
    out += "allreduce:\n";
    out += fmt::format("  source: {}\n", yaml_quoted(a.source));
    out += fmt::format("  ranks: {}\n", a.ranks);
    out += "  algorithm: \"ring\"\n";
    out += fmt::format("  link: {}\n", yaml_quoted(a.link));
    out += fmt::format("  link_bps: {}\n", num(a.link_rate.bits_per_second()));
    out += fmt::format("  dtype: {}\n", yaml_quoted(a.dtype));
    out += fmt::format("  complete: {}\n", a.complete ? "true" : "false");
    out += "  fit:\n";
    out += fmt::format("    alpha_s: {}\n", num(a.alpha.value()));
    out += fmt::format("    beta_bps: {}\n", num(a.beta.bits_per_second()));
    out += fmt::format("    step_latency_s: {}\n", num(a.step_latency.value()));
    out += fit_quality_yaml(a);
    out += "  curve:  # out-of-place, one per measured size\n";
    for (const auto& pt : a.curve) {
      out += fmt::format("    - {{size_bytes: {}, time_s: {}, algbw_bps: {}, busbw_bps: {}}}\n",
                         num(pt.size.count()), num(pt.time.value()),
                         num(pt.algbw.bits_per_second()), num(pt.busbw.bits_per_second()));
    }
  }
  if (c.alltoall) {
    const auto& a = *c.alltoall;
    out += "alltoall:\n";
    out += fmt::format("  source: {}\n", yaml_quoted(a.source));
    out += fmt::format("  ranks: {}\n", a.ranks);
    out += fmt::format("  link: {}\n", yaml_quoted(a.link));
    out += "  fit:\n";
    out += fmt::format("    alpha_s: {}\n", num(a.alpha.value()));
    out += fmt::format("    rate_bps: {}\n", num(a.rate.bits_per_second()));
    out += fit_quality_yaml(a);
  }
  if (c.compute) {
    const auto& m = *c.compute;
    out += "compute:\n";
    out += fmt::format("  source: {}\n", yaml_quoted(m.source));
    out += fmt::format("  model: {}\n", yaml_quoted(m.model));
    out += fmt::format("  tp: {}\n", m.tp);
    out += fmt::format("  chunk_tokens: {}\n", m.chunk_tokens);
    out += fmt::format("  precision: {}\n", yaml_quoted(m.precision));
    out += fmt::format("  device: {}\n", yaml_quoted(m.device));
    out += fmt::format("  compute_capability: {}\n", yaml_quoted(m.compute_capability));
    out += fmt::format("  gemms: {}\n", m.gemms);
    out += fmt::format("  forward_s: {}\n", num(m.forward_time.value()));
    out += fmt::format("  per_prompt_token_s: {}\n", num(m.per_prompt_token.value()));
    if (!m.experts.empty()) out += fmt::format("  experts: {}\n", yaml_quoted(m.experts));
    if (m.skewed_per_prompt_token) {
      out +=
          fmt::format("  skewed_per_prompt_token_s: {}\n", num(m.skewed_per_prompt_token->value()));
    }
  }
  if (c.traffic) {
    const auto& t = *c.traffic;
    out += "traffic:\n";
    out += fmt::format("  source: {}\n", yaml_quoted(t.source));
    out += fmt::format("  model: {}\n", yaml_quoted(t.model));
    out += fmt::format("  tp: {}\n", t.tp);
    out += fmt::format("  prompt_tokens: {}\n", t.prompt_tokens);
    out += fmt::format("  phase: {}\n", yaml_quoted(t.phase));
    out += fmt::format("  devices: {}\n", t.devices);
    out += fmt::format("  xmit_bytes: {}\n", num(t.xmit_bytes.count()));
    out += fmt::format("  measured_per_token_bytes: {}\n", num(t.measured_per_token.count()));
    out += fmt::format("  formula_per_token_bytes: {}\n", num(t.formula_per_token.count()));
    out += fmt::format("  ratio: {}\n", num(t.ratio));
  }
  return out;
}

}  // namespace tpnet
