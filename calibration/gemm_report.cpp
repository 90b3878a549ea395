#include "gemm_report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <string>

namespace tpnet::calibrate {
namespace {

/// CSV cells hold no commas or newlines.
std::string cell(std::string text) {
  std::replace_if(
      text.begin(), text.end(), [](char c) { return c == ',' || c == '\n' || c == '\r'; }, ' ');
  return text;
}

double timed_flops(const GemmShape& s) {
  return 2.0 * static_cast<double>(s.m) * static_cast<double>(s.n) * static_cast<double>(s.k);
}

std::string precision_label(GemmPrecision p) {
  switch (p) {
    case GemmPrecision::nvfp4:
      return "NVFP4";
    case GemmPrecision::fp8:
      return "FP8";
    case GemmPrecision::bf16:
      return "BF16";
  }
  return "BF16";
}

}  // namespace

double GemmTiming::tflops() const {
  return median_s > 0.0 ? timed_flops(shape) / median_s / 1e12 : 0.0;
}

std::string GemmRun::experts() const {
  std::string how = "none";
  for (const auto& g : timings) {
    if (g.shape.grouped()) return "grouped";
    if (is_routed_expert_gemm(g.shape)) how = "separate";
  }
  return how;
}

GemmTotals totals(const GemmRun& run) {
  GemmTotals t;
  const auto skewed_twin = [&](const GemmShape& s) {
    return std::find_if(run.timings.begin(), run.timings.end(), [&](const GemmTiming& g) {
      return g.shape.routing == ExpertRouting::skewed && g.shape.name == s.name;
    });
  };
  for (const auto& g : run.timings) {
    const auto count = static_cast<double>(g.shape.count);
    if (g.shape.routing == ExpertRouting::skewed) {
      t.skewed = true;
      t.skewed_seconds_per_chunk += count * g.median_s;
      continue;
    }
    t.seconds_per_chunk += count * g.median_s;
    t.flops_per_chunk += count * timed_flops(g.shape);
    if (g.shape.routing != ExpertRouting::uniform || skewed_twin(g.shape) == run.timings.end()) {
      t.skewed_seconds_per_chunk += count * g.median_s;
    }
  }
  if (!t.skewed) t.skewed_seconds_per_chunk = 0.0;
  if (run.chunk_tokens > 0) {
    t.seconds_per_token = t.seconds_per_chunk / static_cast<double>(run.chunk_tokens);
    t.skewed_seconds_per_token = t.skewed_seconds_per_chunk / static_cast<double>(run.chunk_tokens);
  }
  if (t.seconds_per_chunk > 0.0) t.tflops = t.flops_per_chunk / t.seconds_per_chunk / 1e12;
  if (run.peak.tflops > 0.0) t.share_of_peak = t.tflops / run.peak.tflops;
  return t;
}

void write_gemm_csv(std::ostream& out, const GemmRun& run) {
  const std::string experts = run.experts();
  out << fmt::format(
      "# tpnet-calibrate gemm date={} device={} cc={} precision={} warmup={} repeats={} "
      "experts={}{} peak_source={}\n",
      run.date, cell(run.device), run.cc.text(), to_string(run.precision), run.warmup, run.repeats,
      experts,
      experts != "grouped"  ? ""
      : run.grouped_batched ? " grouped_launch=batched"
                            : " grouped_launch=per-expert",
      cell(run.peak.source));
  out << "model,tp,chunk_tokens,precision,device,compute_capability,peak_tflops,gemm,m,n,k,count,"
         "median_s,tflops,groups,routing\n";
  for (const auto& g : run.timings) {
    out << fmt::format("{},{},{},{},{},{},{:g},{},{},{},{},{},{:.6e},{:.3f},{},{}\n",
                       cell(run.model), run.tp, run.chunk_tokens, to_string(run.precision),
                       cell(run.device), run.cc.text(), run.peak.tflops, cell(g.shape.name),
                       g.shape.m, g.shape.n, g.shape.k, g.shape.count, g.median_s, g.tflops(),
                       g.shape.groups, to_string(g.shape.routing));
  }
}

void print_gemm_table(std::ostream& out, const GemmRun& run) {
  const char* row = "{:<20} {:>7} {:>7} {:>7} {:>7} {:>6} {:>8} {:>10} {:>9} {:>8}\n";
  out << fmt::format(fmt::runtime(row), "gemm", "m", "n", "k", "count", "groups", "routing",
                     "median", "rate", "of peak");
  out << fmt::format(fmt::runtime(row), "", "", "", "", "", "", "", "(us)", "(TFLOP/s)", "(%)");
  const auto share = [&](double tflops) {
    return run.peak.tflops > 0.0 ? fmt::format("{:.1f}", 100.0 * tflops / run.peak.tflops)
                                 : std::string("-");
  };
  for (const auto& g : run.timings) {
    out << fmt::format("{:<20} {:>7} {:>7} {:>7} {:>7} {:>6} {:>8} {:>10.2f} {:>9.1f} {:>8}\n",
                       g.shape.name, g.shape.m, g.shape.n, g.shape.k, g.shape.count, g.shape.groups,
                       to_string(g.shape.routing), g.median_s * 1e6, g.tflops(), share(g.tflops()));
  }
  const GemmTotals t = totals(run);
  out << fmt::format("compute per chunk ({} tokens, one node): {:.3f} ms\n", run.chunk_tokens,
                     t.seconds_per_chunk * 1e3);
  out << fmt::format("compute per prompt token per node: {:.3f} us\n", t.seconds_per_token * 1e6);
  if (t.skewed) {
    out << fmt::format(
        "with skewed routing (1 expert in {} at {}x the mean rows): compute per prompt token per "
        "node: {:.3f} us ({:+.1f}%)\n",
        kSkewHotEvery, kSkewHotFactor, t.skewed_seconds_per_token * 1e6,
        t.seconds_per_token > 0.0 ? 100.0 * (t.skewed_seconds_per_token / t.seconds_per_token - 1.0)
                                  : 0.0);
  }
  if (run.peak.tflops > 0.0) {
    out << fmt::format("overall: {:.1f} TFLOP/s, {:.1f}% of the {:g} TFLOP/s dense {} peak{}\n",
                       t.tflops, 100.0 * t.share_of_peak, run.peak.tflops,
                       precision_label(run.precision),
                       run.peak.approximate ? " (approximate)" : "");
  } else {
    out << fmt::format("overall: {:.1f} TFLOP/s; peak {}\n", t.tflops, run.peak.source);
  }
}

}  // namespace tpnet::calibrate
