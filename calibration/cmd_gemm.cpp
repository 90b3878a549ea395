// `gemm`: times one node's prefill weight GEMMs of a model at a TP size and
// chunk (tpnet/model/prefill_gemms.hpp) through cuBLASLt, in NVFP4 where the GPU
// and cuBLASLt have it, else FP8 or BF16, after checking a small case against
// a CPU reference. Prints compute per prompt token per node and TFLOP/s
// against the device's peak; --out writes the gemm CSV tpnet calibration reads.

#include <fmt/format.h>

#include <algorithm>
#include <ctime>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "calibrate_command.hpp"
#include "gemm_cublaslt.hpp"
#include "gemm_report.hpp"
#include "tpnet/base/error.hpp"
#include "tpnet/base/quantity.hpp"
#include "tpnet/io/model_catalog.hpp"
#include "tpnet/io/output_file.hpp"
#include "tpnet/model/prefill_gemms.hpp"

namespace tpnet::calibrate {
namespace {

constexpr int kMaxWarmup = 100000;
constexpr int kMaxRepeats = 10000;

struct GemmOptions {
  std::string model;
  int tp = 0;
  std::string chunk = "4096";
  std::string precision = "auto";
  int warmup = 10;
  int repeats = 50;
  int device = 0;
  std::string out;
  std::string experts = "grouped";
  bool check_only = false;
};

std::string utc_now() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char text[32] = {};
  std::strftime(text, sizeof(text), "%Y-%m-%dT%H:%M:%SZ", &tm);
  return text;
}

void require_range(int value, int low, int high, const std::string& flag) {
  if (value < low || value > high) {
    throw InputError(fmt::format("{} is out of range; allowed {} to {}", value, low, high),
                     InputLocation::for_key(flag));
  }
}

/// "auto" (empty) or the precision asked for.
std::optional<GemmPrecision> requested_precision(const std::string& text) {
  if (text == "auto") return std::nullopt;
  if (auto p = parse_precision(text)) return p;
  throw InputError(fmt::format("'{}' is not a precision; allowed auto, nvfp4, fp8, bf16", text),
                   InputLocation::for_key("--precision"));
}

/// Which precisions this device and cuBLASLt can run.
struct Availability {
  bool nvfp4 = false;
  bool fp8 = false;

  [[nodiscard]] bool has(GemmPrecision p) const {
    return p == GemmPrecision::bf16 || (p == GemmPrecision::nvfp4 ? nvfp4 : fp8);
  }
  [[nodiscard]] std::string list() const {
    std::string out;
    if (nvfp4) out += "nvfp4, ";
    if (fp8) out += "fp8, ";
    return out + "bf16";
  }
};

Availability probe(LtRunner& runner, const DeviceInfo& device) {
  Availability a;
  a.nvfp4 = device.cc.at_least(10, 0) && runner.supports(GemmPrecision::nvfp4);
  a.fp8 = device.cc.at_least(8, 9) && runner.supports(GemmPrecision::fp8);
  return a;
}

PrecisionChoice pick(const std::optional<GemmPrecision>& asked, const Availability& available,
                     const DeviceInfo& device) {
  if (!asked) return choose_precision(device.cc, available.nvfp4, available.fp8);
  if (!available.has(*asked)) {
    throw InputError(fmt::format("{} does not run on device {} ({}, compute capability {}) with "
                                 "this cuBLASLt; allowed here: auto, {}",
                                 to_string(*asked), device.index, device.name, device.cc.text(),
                                 available.list()),
                     InputLocation::for_key("--precision"));
  }
  return {*asked, "asked for with --precision"};
}

/// "256 x 192 x 512", or for the grouped case "grouped 3 x 64 + 2 x 32 + 1 x 16 rows x 256 x 512".
std::string case_name(const CheckResult& c) {
  if (c.bins.empty()) return fmt::format("{} x {} x {}", c.dims.out, c.dims.tokens, c.dims.k);
  std::string rows;
  for (const GroupedBin& b : c.bins) {
    rows += fmt::format("{}{} x {}", rows.empty() ? "" : " + ", b.experts, b.rows);
  }
  return fmt::format("grouped {} rows x {} x {} ({})", rows, c.dims.out, c.dims.k,
                     c.batched ? "strided-batched" : "one matmul per expert");
}

std::string describe(const CheckResult& c) {
  return fmt::format(
      "{} {} against the CPU reference: {} ({} of {} outputs off; max "
      "error {:.3f}% of |ref| + rms, tolerance {:.1f}%)",
      to_string(c.precision), case_name(c), c.passed() ? "passed" : "FAILED", c.wrong, c.outputs,
      100.0 * c.max_rel_error, 100.0 * c.tolerance);
}

void require_passed(const CheckResult& c) {
  if (c.passed()) return;
  throw MeasurementError(
      fmt::format("gemm check: {} of {} {} outputs of {} differ from the CPU reference by more "
                  "than {:.1f}% of |ref| + rms (max {:.3g}%)",
                  c.wrong, c.outputs, to_string(c.precision), case_name(c), 100.0 * c.tolerance,
                  100.0 * c.max_rel_error));
}

/// Whether --experts asks for grouped expert GEMMs.
bool grouped_experts(const std::string& text) {
  if (text == "grouped") return true;
  if (text == "separate") return false;
  throw InputError(
      fmt::format("'{}' is not how to run the experts; allowed grouped, separate", text),
      InputLocation::for_key("--experts"));
}

GroupedDims grouped_dims(const GemmShape& s) {
  GroupedDims dims{s.n, s.k, {}};
  dims.bins.reserve(s.bins.size());
  for (const ExpertBin& b : s.bins) dims.bins.push_back({b.rows, b.experts});
  return dims;
}

int run_check_only(const GemmOptions& o) {
  const std::optional<GemmPrecision> asked = requested_precision(o.precision);
  const DeviceInfo device = open_device(o.device);
  LtRunner runner(device);
  const Availability available = probe(runner, device);
  std::vector<GemmPrecision> precisions;
  if (asked) {
    precisions.push_back(pick(asked, available, device).precision);
  } else {
    for (const GemmPrecision p : {GemmPrecision::nvfp4, GemmPrecision::fp8, GemmPrecision::bf16}) {
      if (available.has(p)) precisions.push_back(p);
    }
  }
  std::cout << fmt::format("device {}: {} (compute capability {})\n", device.index, device.name,
                           device.cc.text());
  std::cout << fmt::format("auto precision: {}\n",
                           choose_precision(device.cc, available.nvfp4, available.fp8).reason);
  std::vector<CheckResult> results;
  for (const GemmPrecision p : precisions) {
    results.push_back(runner.check(p));
    std::cout << "check " << describe(results.back()) << "\n";
    results.push_back(runner.check_grouped(p));
    std::cout << "check " << describe(results.back()) << "\n";
  }
  for (const auto& c : results) require_passed(c);
  return 0;
}

int run_gemm(const GemmOptions& o) {
  require_range(o.warmup, 0, kMaxWarmup, "--warmup");
  require_range(o.repeats, 1, kMaxRepeats, "--repeats");
  if (o.check_only) return run_check_only(o);

  // Every input is checked before the GPU is touched.
  if (o.model.empty()) {
    throw InputError("is required (a built-in name or a model YAML) unless --check-only",
                     InputLocation::for_key("--model"));
  }
  if (o.tp == 0) {
    throw InputError("is required (the tensor-parallel size) unless --check-only",
                     InputLocation::for_key("--tp"));
  }
  const std::optional<GemmPrecision> asked = requested_precision(o.precision);
  const bool grouped = grouped_experts(o.experts);
  const ModelArch model = resolve_model(o.model);
  const TokenCount chunk = parse_tokens(o.chunk, InputLocation::for_key("--chunk"));
  // The forward's GEMMs, the experts grouped under uniform routing (or one
  // GEMM per expert), then the skewed routing's grouped GEMMs beside them.
  std::vector<GemmShape> shapes = prefill_gemm_shapes(
      model, o.tp, chunk, grouped ? ExpertRouting::uniform : ExpertRouting::none);
  if (grouped) {
    for (GemmShape& s : prefill_gemm_shapes(model, o.tp, chunk, ExpertRouting::skewed)) {
      if (s.grouped()) shapes.push_back(std::move(s));
    }
  }
  const bool any_grouped =
      std::any_of(shapes.begin(), shapes.end(), [](const GemmShape& s) { return s.grouped(); });
  // A missing folder or a target that is not a file is refused before measuring.
  if (!o.out.empty()) check_output_path(o.out, "--out");

  const DeviceInfo device = open_device(o.device);
  LtRunner runner(device);
  const PrecisionChoice choice = pick(asked, probe(runner, device), device);

  GemmRun run;
  run.model = model.name;
  run.tp = o.tp;
  run.chunk_tokens = chunk;
  run.precision = choice.precision;
  run.precision_reason = choice.reason;
  run.device = device.name;
  run.cc = device.cc;
  run.peak = dense_peak(device.name, device.cc, choice.precision);
  run.date = utc_now();
  run.warmup = o.warmup;
  run.repeats = o.repeats;

  std::vector<CheckResult> checks{runner.check(choice.precision)};
  if (any_grouped) checks.push_back(runner.check_grouped(choice.precision));
  for (const CheckResult& c : checks) require_passed(c);

  int padded_shapes = 0;
  for (const auto& s : shapes) {
    if (s.grouped()) {
      const GroupedDims dims = grouped_dims(s);
      const GroupedDims ran = padded_grouped(dims, choice.precision);
      if (ran.out != dims.out || ran.k != dims.k || ran.rows() != dims.rows()) ++padded_shapes;
      const GroupedTiming t =
          runner.grouped_median_seconds(choice.precision, dims, o.warmup, o.repeats);
      run.grouped_batched = run.grouped_batched && t.batched;
      run.timings.push_back({s, t.median_s});
      continue;
    }
    const LtDims dims{s.n, s.m, s.k};
    const LtDims ran = padded(dims, choice.precision);
    if (ran.out != dims.out || ran.tokens != dims.tokens || ran.k != dims.k) ++padded_shapes;
    run.timings.push_back({s, runner.median_seconds(choice.precision, dims, o.warmup, o.repeats)});
  }

  std::ostringstream text;
  text << fmt::format(
      "tpnet-calibrate gemm: {} TP{}, chunk {} tokens: one node's prefill weight "
      "GEMMs\n",
      run.model, run.tp, run.chunk_tokens);
  text << fmt::format("device {}: {} (compute capability {})\n", device.index, device.name,
                      device.cc.text());
  text << fmt::format("precision: {} ({})\n", to_string(run.precision), run.precision_reason);
  text << fmt::format(
      "peak: {}\n", run.peak.tflops > 0.0
                        ? fmt::format("{:g} TFLOP/s dense{}; {}", run.peak.tflops,
                                      run.peak.approximate ? ", approximate" : "", run.peak.source)
                        : run.peak.source);
  for (const CheckResult& c : checks) text << "check: " << describe(c) << "\n";
  text << fmt::format(
      "timing: {} warm-up runs, median of {} CUDA-event-timed runs each, operands "
      "rotated past the L2 cache\n",
      run.warmup, run.repeats);
  if (padded_shapes > 0) {
    text << fmt::format(
        "note: {} shapes ran padded (m, n to 16, k to {}) as cuBLASLt needs; "
        "rates count the model's shape\n",
        padded_shapes, choice.precision == GemmPrecision::nvfp4 ? 64 : 16);
  }
  if (first_moe(model.layers) != nullptr && !grouped) {
    text << "note: routed experts run as one GEMM per expert of the average chunk x top-k / "
            "experts rows, count experts x MoE layers (as files before grouped timing); vLLM "
            "and SGLang run them grouped\n";
  } else if (any_grouped) {
    text << fmt::format(
        "note: each MoE layer's routed experts run as one grouped GEMM (groups: experts; m: "
        "their rows together), {}; routing uniform is the forward, skewed (1 expert in {} at "
        "{}x the mean rows) a what-if beside it\n",
        run.grouped_batched ? "one strided-batched cuBLASLt matmul per bin of equal-row experts"
                            : "NOT batched: cuBLASLt offered no strided-batched algorithm, so "
                              "some bins ran one matmul per expert",
        kSkewHotEvery, kSkewHotFactor);
  }
  print_gemm_table(text, run);
  std::cout << text.str();

  if (!o.out.empty()) {
    std::ostringstream csv;
    write_gemm_csv(csv, run);
    write_file_atomically(o.out, csv.str(), "--out");
  }
  return 0;
}

}  // namespace

Subcommand setup_gemm(CLI::App& parent) {
  auto options = std::make_shared<GemmOptions>();
  CLI::App* app = parent.add_subcommand(
      "gemm",
      "Time one node's prefill weight GEMMs of a model at a TP size and chunk with cuBLASLt "
      "(NVFP4 on Blackwell, else FP8 or BF16), after checking a small case against a CPU "
      "reference. Prints compute per prompt token per node and TFLOP/s against the device's "
      "peak.");
  app->add_option("--model", options->model,
                  "Built-in model name or model YAML (needs every weight's shape)");
  app->add_option("--tp", options->tp, "Tensor-parallel size");
  app->add_option("--chunk", options->chunk, "Tokens per prefill forward (4096, 8k)")
      ->capture_default_str();
  app->add_option("--precision", options->precision, "auto | nvfp4 | fp8 | bf16")
      ->capture_default_str();
  app->add_option("--warmup", options->warmup, "Untimed runs per GEMM")->capture_default_str();
  app->add_option("--repeats", options->repeats, "Timed runs per GEMM (the median is reported)")
      ->capture_default_str();
  app->add_option("--device", options->device, "CUDA device index")->capture_default_str();
  app->add_option("--out", options->out, "Write the gemm CSV here (atomically)");
  app->add_option("--experts", options->experts,
                  "grouped: each MoE layer's routed experts as one grouped GEMM (uniform routing, "
                  "and a skewed case beside it), as fused-MoE kernels run them; separate: one "
                  "GEMM per expert")
      ->capture_default_str();
  app->add_flag("--check-only", options->check_only,
                "Only check a small GEMM against the CPU reference (every precision the GPU "
                "runs, or --precision) and exit");
  Subcommand command;
  command.app = app;
  command.run = [options] { return run_gemm(*options); };
  return command;
}

}  // namespace tpnet::calibrate
