#include "tpnet/io/gemm_csv.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <optional>
#include <sstream>
#include <utility>

#include "csv_table.hpp"
#include "tpnet/base/quantity.hpp"
#include "tpnet/io/text_file.hpp"

namespace tpnet {

namespace {

/// A million TFLOP/s: some thousand times today's largest GPU, so any larger
/// figure is a broken file rather than a measurement.
constexpr double kMaxTflops = 1e6;

/// `date=...` from the `# tpnet-calibrate gemm` line, if the file starts with one.
std::string header_date(std::string_view text) {
  const std::string_view first = text.substr(0, text.find('\n'));
  if (first.find("tpnet-calibrate gemm") == std::string_view::npos) return {};
  std::istringstream words{std::string(first)};
  std::string word;
  while (words >> word) {
    if (word.rfind("date=", 0) == 0) return word.substr(5);
  }
  return {};
}

InputLocation at_column(const std::string& origin, int line, std::string_view column) {
  return InputLocation::in_file(origin, line, "column " + std::string(column));
}

/// A grouped row is a routed expert's GEMM of at least a row per group; a
/// plain row is one GEMM; and a file times the routed experts one way.
void check_grouping(const GemmTiming& g, int line, const std::string& origin,
                    std::optional<std::pair<ExpertRouting, int>>& experts_seen) {
  const bool expert = is_routed_expert_gemm_name(g.name);
  if (g.routing == ExpertRouting::none) {
    if (g.groups != 1) {
      throw InputError(fmt::format("is {}, but routing none is one GEMM per run (groups 1); a "
                                   "grouped GEMM says its routing, uniform or skewed",
                                   g.groups),
                       at_column(origin, line, "groups"));
    }
  } else {
    if (!expert) {
      throw InputError(fmt::format("is '{}', but '{}' is not a routed expert's GEMM (moe.gate_up, "
                                   "moe.up, moe.down); only they run grouped",
                                   to_string(g.routing), g.name),
                       at_column(origin, line, "routing"));
    }
    if (g.groups > g.m) {
      throw InputError(fmt::format("is {}, above the {} rows of m; every group of a grouped GEMM "
                                   "has a row at least",
                                   g.groups, g.m),
                       at_column(origin, line, "groups"));
    }
  }
  if (!expert || g.routing == ExpertRouting::skewed) return;
  if (!experts_seen) {
    experts_seen = std::pair{g.routing, line};
  } else if ((experts_seen->first == ExpertRouting::none) != (g.routing == ExpertRouting::none)) {
    throw InputError(
        fmt::format("is '{}' but line {} times a routed expert {}: a file times the "
                    "routed experts one way, grouped or separate, or the forward "
                    "would count some twice",
                    to_string(g.routing), experts_seen->second,
                    experts_seen->first == ExpertRouting::none ? "as separate GEMMs (routing none)"
                                                               : "grouped (routing uniform)"),
        at_column(origin, line, "routing"));
  }
}

/// A skewed row is a what-if for the uniform row of the same GEMM: the same
/// rows, widths and count, timed with other rows per expert.
void check_skewed_rows(const std::vector<GemmTiming>& gemms, const std::string& origin) {
  for (const GemmTiming& s : gemms) {
    if (s.routing != ExpertRouting::skewed) continue;
    const auto uniform = std::find_if(gemms.begin(), gemms.end(), [&](const GemmTiming& u) {
      return u.routing == ExpertRouting::uniform && u.name == s.name;
    });
    if (uniform == gemms.end()) {
      throw InputError(fmt::format("'{}' has a skewed row but no uniform row; the skewed forward "
                                   "replaces the uniform row of the same GEMM",
                                   s.name),
                       at_column(origin, s.source.line, "routing"));
    }
    if (uniform->m != s.m || uniform->n != s.n || uniform->k != s.k || uniform->count != s.count) {
      throw InputError(
          fmt::format("'{}' skewed is {} x {} x {}, {} runs, but its uniform row (line {}) is {} x "
                      "{} x {}, {} runs; the routing moves rows between experts, not the GEMM",
                      s.name, s.m, s.n, s.k, s.count, uniform->source.line, uniform->m, uniform->n,
                      uniform->k, uniform->count),
          at_column(origin, s.source.line, "m"));
    }
  }
}

}  // namespace

GemmRun parse_gemm_csv(std::string_view text, const std::string& origin) {
  const csv::Table table = csv::Table::parse(text, origin);
  const std::size_t c_model = table.require_column("model");
  const std::size_t c_tp = table.require_column("tp");
  const std::size_t c_chunk = table.require_column("chunk_tokens");
  const std::size_t c_precision = table.require_column("precision");
  const std::size_t c_device = table.require_column("device");
  const std::size_t c_cc = table.require_column("compute_capability");
  const std::size_t c_peak = table.require_column("peak_tflops");
  const std::size_t c_gemm = table.require_column("gemm");
  const std::size_t c_m = table.require_column("m");
  const std::size_t c_n = table.require_column("n");
  const std::size_t c_k = table.require_column("k");
  const std::size_t c_count = table.require_column("count");
  const std::size_t c_median = table.require_column("median_s");
  const std::size_t c_tflops = table.require_column("tflops");
  // Grouped (fused-MoE) rows: both columns or neither (files before them).
  const std::optional<std::size_t> c_groups = table.column("groups");
  const std::optional<std::size_t> c_routing = table.column("routing");
  if (c_groups.has_value() != c_routing.has_value()) {
    (void)table.require_column(c_groups ? "routing" : "groups");
  }

  GemmRun run;
  run.origin = origin;
  run.date = header_date(text);
  auto at = [&](const csv::Row& row, std::string_view column) {
    return InputLocation::in_file(origin, row.line, "column " + std::string(column));
  };
  auto at_least_one = [&](const csv::Row& row, std::size_t column, std::string_view name) {
    const long long value = table.integer(row, column);
    if (value < 1) {
      throw InputError(fmt::format("is {}; must be at least 1", value), at(row, name));
    }
    return value;
  };
  // The same limits as calibration.yaml's compute section, which this file becomes.
  auto from_one_to = [&](const csv::Row& row, std::size_t column, std::string_view name,
                         long long most) {
    const long long value = at_least_one(row, column, name);
    if (value > most) {
      throw InputError(fmt::format("is {}; must be from 1 to {}", value, most), at(row, name));
    }
    return value;
  };
  bool first = true;
  // Each GEMM once among the rows of the forward, and once among the skewed rows.
  std::map<std::pair<std::string, bool>, int> gemm_lines;
  // How the first routed expert's row was timed: a file times them one way.
  std::optional<std::pair<ExpertRouting, int>> experts_seen;
  for (const auto& row : table.rows()) {
    const std::string& model = table.text(row, c_model);
    const long long tp = from_one_to(row, c_tp, "tp", kMaxTp);
    const long long chunk = from_one_to(row, c_chunk, "chunk_tokens", kMaxTokens);
    const std::string& precision = table.text(row, c_precision);
    const std::string& device = table.text(row, c_device);
    if (model.empty()) throw InputError("is empty; name the model", at(row, "model"));
    if (precision != "nvfp4" && precision != "fp8" && precision != "bf16") {
      throw InputError(fmt::format("is '{}'; allowed nvfp4, fp8, bf16", precision),
                       at(row, "precision"));
    }
    if (first) {
      run.model = model;
      run.tp = static_cast<int>(tp);
      run.chunk_tokens = chunk;
      run.precision = precision;
      run.device = device;
      run.compute_capability = table.text(row, c_cc);
      run.peak_tflops = table.number(row, c_peak);
      first = false;
    } else {
      auto same = [&](bool equal, std::string_view column, const std::string& value,
                      const std::string& expected) {
        if (!equal) {
          throw InputError(fmt::format("is '{}' but the first row's is '{}': one file holds one "
                                       "model, TP, chunk, precision and device",
                                       value, expected),
                           at(row, column));
        }
      };
      same(model == run.model, "model", model, run.model);
      same(tp == run.tp, "tp", std::to_string(tp), std::to_string(run.tp));
      same(chunk == run.chunk_tokens, "chunk_tokens", std::to_string(chunk),
           std::to_string(run.chunk_tokens));
      same(precision == run.precision, "precision", precision, run.precision);
      same(device == run.device, "device", device, run.device);
    }
    if (run.peak_tflops < 0.0 || run.peak_tflops > kMaxTflops) {
      throw InputError(
          fmt::format("is {:g}; allowed 0 (unknown) to {:g}", run.peak_tflops, kMaxTflops),
          at(row, "peak_tflops"));
    }
    GemmTiming g;
    g.name = table.text(row, c_gemm);
    if (c_routing) {
      const std::string& routing = table.text(row, *c_routing);
      const std::optional<ExpertRouting> parsed = parse_expert_routing(routing);
      if (!parsed) {
        throw InputError(fmt::format("is '{}'; allowed none, uniform, skewed", routing),
                         at(row, "routing"));
      }
      g.routing = *parsed;
    }
    // The time per token sums the rows, so a row given twice would count its GEMM twice.
    const bool skewed = g.routing == ExpertRouting::skewed;
    if (const auto [earlier, fresh] = gemm_lines.emplace(std::pair{g.name, skewed}, row.line);
        !fresh) {
      throw InputError(
          fmt::format("'{}' is timed twice{}, at lines {} and {}; one file times each "
                      "GEMM once (its count column says how often it runs)",
                      g.name, skewed ? " with skewed routing" : "", earlier->second, row.line),
          at(row, "gemm"));
    }
    g.m = at_least_one(row, c_m, "m");
    g.n = at_least_one(row, c_n, "n");
    g.k = at_least_one(row, c_k, "k");
    g.count = at_least_one(row, c_count, "count");
    g.median = Seconds(table.number(row, c_median));
    if (!(g.median.value() > 0.0)) {
      throw InputError(fmt::format("is {:g}; a GEMM time must be positive", g.median.value()),
                       at(row, "median_s"));
    }
    if (g.median.value() < kMinSeconds || g.median.value() > kMaxSeconds) {
      throw InputError(
          fmt::format("is {:g}; allowed 1e-09 to 3.6e+08 s (1 ns to 100,000 h)", g.median.value()),
          at(row, "median_s"));
    }
    g.tflops = table.number(row, c_tflops);
    if (g.tflops < 0.0) throw InputError("must not be negative", at(row, "tflops"));
    if (g.tflops > kMaxTflops) {
      throw InputError(fmt::format("is {:g}; allowed 0 to {:g}", g.tflops, kMaxTflops),
                       at(row, "tflops"));
    }
    if (c_groups) {
      g.groups = at_least_one(row, *c_groups, "groups");
      check_grouping(g, row.line, origin, experts_seen);
    }
    g.source = InputLocation::in_file(origin, row.line);
    run.gemms.push_back(std::move(g));
  }
  check_skewed_rows(run.gemms, origin);
  return run;
}

GemmRun load_gemm_csv(const std::string& path) {
  return parse_gemm_csv(read_text_file(path), path);
}

}  // namespace tpnet
