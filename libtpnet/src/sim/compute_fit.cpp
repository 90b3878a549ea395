#include "tpnet/sim/compute_fit.hpp"
#include "tpnet/workload/prefill_scenario.hpp"

#include <fmt/format.h>

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <limits>

#include "tpnet/base/error.hpp"
#include "tpnet/sim/decode_floor.hpp"

namespace tpnet {
namespace {

InputLocation baseline_key() { return InputLocation::for_key("workload.baseline"); }

struct RowSums {
  double steps = 0.0;
  double gemm = 0.0;
  double mixer = 0.0;
  Seconds communication;
};

RowSums prefill_sums(const ModelArch& model, const EngineConfig& engine,
                     const SchedulerSettings& scheduler, const FabricProfile& fabric,
                     double flops_per_token, TokenCount prompt) {
  RowSums sums;
  // The step times do not change which tokens each step carries for a single
  // request, so any positive time schedules it.
  const ScheduleResult schedule = simulate_schedule(
      {ScheduledRequest{0.0, prompt, 1}}, scheduler, [](const ScheduledStep&) { return 1.0; },
      true);
  StepFeaturesCache features(model, engine.tensor_parallel_size, flops_per_token);
  StepCommunicationCache communication(model, engine, fabric);
  for (const ScheduledStep& step : schedule.steps) {
    const StepFeatures f = features(step);
    sums.steps += 1.0;
    sums.gemm += f.gemm_flops;
    sums.mixer += f.mixer_flops;
    sums.communication = sums.communication + communication(step).time;
  }
  return sums;
}

}  // namespace

std::vector<double> nonnegative_least_squares(const std::vector<double>& a, int rows, int cols,
                                              const std::vector<double>& b) {
  if (cols < 1 || cols > 8 || rows < 1 ||
      a.size() != static_cast<std::size_t>(rows) * static_cast<std::size_t>(cols) ||
      b.size() != static_cast<std::size_t>(rows)) {
    throw InputError("a least-squares problem needs 1 to 8 unknowns and matching sizes",
                     InputLocation::for_key("fit"));
  }
  const Eigen::Map<const Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>
      full(a.data(), rows, cols);
  const Eigen::Map<const Eigen::VectorXd> target(b.data(), rows);
  std::vector<double> best(static_cast<std::size_t>(cols), 0.0);
  double best_residual = target.squaredNorm();  // x = 0
  for (unsigned mask = 1; mask < (1u << cols); ++mask) {
    std::vector<int> free;
    for (int c = 0; c < cols; ++c) {
      if ((mask >> c) & 1u) free.push_back(c);
    }
    Eigen::MatrixXd sub(rows, static_cast<Eigen::Index>(free.size()));
    for (std::size_t j = 0; j < free.size(); ++j)
      sub.col(static_cast<Eigen::Index>(j)) = full.col(free[j]);
    const Eigen::VectorXd x = sub.colPivHouseholderQr().solve(target);
    if (!x.allFinite() || (x.array() < 0.0).any()) continue;
    const double residual = (sub * x - target).squaredNorm();
    if (residual < best_residual * (1.0 - 1e-12)) {
      best_residual = residual;
      std::fill(best.begin(), best.end(), 0.0);
      for (std::size_t j = 0; j < free.size(); ++j)
        best[static_cast<std::size_t>(free[j])] = x(static_cast<Eigen::Index>(j));
    }
  }
  return best;
}

PrefillFit fit_prefill_compute(const ModelArch& model, const EngineConfig& engine,
                               const SchedulerSettings& scheduler, const FabricProfile& fabric,
                               double overlap, const std::vector<PrefillScenario>& baseline,
                               const std::string& origin) {
  PrefillFit fit;
  const double flops_per_token = gemm_flops_per_token(model, engine.tensor_parallel_size);
  std::vector<RowSums> sums;
  for (const PrefillScenario& s : baseline) {
    if (s.prompt.requests != 1 || !s.baseline_ttft) continue;
    RowSums row =
        prefill_sums(model, engine, scheduler, fabric, flops_per_token, s.prompt.tokens_each);
    row.communication = row.communication * (1.0 - overlap);
    if (!(row.communication < *s.baseline_ttft)) {
      throw InputError(
          fmt::format("{}: row {}: its predicted communication alone ({:.3f} s on {}) is not "
                      "less than its measured TTFT ({:.3f} s); the fabric profile, the TP or the "
                      "row is wrong",
                      origin, s.name, row.communication.value(), describe(fabric),
                      s.baseline_ttft->value()),
          baseline_key());
    }
    FitRow out;
    out.name = s.name;
    out.prompt_tokens = s.prompt.tokens_each;
    out.measured = *s.baseline_ttft;
    out.communication = row.communication;
    fit.rows.push_back(out);
    sums.push_back(row);
  }
  if (sums.empty()) {
    throw InputError(origin +
                         ": no single-request row with a measured TTFT to fit prefill compute "
                         "to (rows with requests = 1 and ttft_s)",
                     baseline_key());
  }
  // Unknowns: per step, per GEMM FLOP, per mixer FLOP. Each needs a prompt
  // size of its own: rows repeating one size add no equation (repeated runs
  // at one size "fit" any split of its time between the terms).
  std::vector<TokenCount> sizes;
  for (const FitRow& row : fit.rows) sizes.push_back(row.prompt_tokens);
  std::sort(sizes.begin(), sizes.end());
  const auto distinct =
      static_cast<std::size_t>(std::unique(sizes.begin(), sizes.end()) - sizes.begin());
  const std::string rows_text =
      distinct == sums.size()
          ? fmt::format("{} single-request row{}", sums.size(), sums.size() == 1 ? "" : "s")
          : fmt::format("{} single-request rows at {} distinct prompt size{}", sums.size(),
                        distinct, distinct == 1 ? "" : "s");
  std::vector<int> columns;
  if (distinct >= 3) {
    columns = {0, 1, 2};
    fit.coefficients_fitted = {"per_step", "gemm", "mixer"};
  } else if (distinct == 2) {
    columns = {0, 1};
    fit.coefficients_fitted = {"per_step", "gemm"};
    fit.warnings.push_back(origin + ": " + rows_text +
                           " fit the per-step and GEMM terms only; token mixing (attention) is "
                           "not priced, so long contexts come out short (a third prompt size "
                           "fits it)");
  } else {
    columns = {1};
    fit.coefficients_fitted = {"gemm"};
    fit.warnings.push_back(origin + ": " + rows_text +
                           " fit one rate per GEMM FLOP; fixed step costs and attention are "
                           "folded into it, so other prompt sizes come out in proportion (rows "
                           "at two or three prompt sizes fit them)");
  }
  const int rows = static_cast<int>(sums.size());
  const int cols = static_cast<int>(columns.size());
  std::vector<double> a(static_cast<std::size_t>(rows) * static_cast<std::size_t>(cols));
  std::vector<double> scale(static_cast<std::size_t>(cols), 0.0);
  auto feature = [&](const RowSums& r, int which) {
    return which == 0 ? r.steps : which == 1 ? r.gemm : r.mixer;
  };
  for (int i = 0; i < rows; ++i) {
    const double y = (fit.rows[static_cast<std::size_t>(i)].measured -
                      sums[static_cast<std::size_t>(i)].communication)
                         .value();
    for (int j = 0; j < cols; ++j) {
      const double v =
          feature(sums[static_cast<std::size_t>(i)], columns[static_cast<std::size_t>(j)]) / y;
      a[static_cast<std::size_t>(i) * static_cast<std::size_t>(cols) +
        static_cast<std::size_t>(j)] = v;
      scale[static_cast<std::size_t>(j)] =
          std::max(scale[static_cast<std::size_t>(j)], std::abs(v));
    }
  }
  for (int i = 0; i < rows; ++i) {
    for (int j = 0; j < cols; ++j) {
      if (scale[static_cast<std::size_t>(j)] > 0.0) {
        a[static_cast<std::size_t>(i) * static_cast<std::size_t>(cols) +
          static_cast<std::size_t>(j)] /= scale[static_cast<std::size_t>(j)];
      }
    }
  }
  const std::vector<double> x = nonnegative_least_squares(
      a, rows, cols, std::vector<double>(static_cast<std::size_t>(rows), 1.0));
  for (int j = 0; j < cols; ++j) {
    const double s = scale[static_cast<std::size_t>(j)];
    const double value = s > 0.0 ? x[static_cast<std::size_t>(j)] / s : 0.0;
    switch (columns[static_cast<std::size_t>(j)]) {
      case 0:
        fit.model.per_step = Seconds(value);
        break;
      case 1:
        fit.model.seconds_per_gemm_flop = value;
        break;
      default:
        fit.model.seconds_per_mixer_flop = value;
        break;
    }
  }
  for (std::size_t i = 0; i < fit.rows.size(); ++i) {
    const RowSums& r = sums[i];
    FitRow& row = fit.rows[i];
    row.predicted = row.communication + fit.model.per_step * r.steps +
                    Seconds(r.gemm * fit.model.seconds_per_gemm_flop +
                            r.mixer * fit.model.seconds_per_mixer_flop);
    row.residual_pct = (row.predicted / row.measured - 1.0) * 100.0;
  }
  fit.source = fmt::format("fitted to {} single-request row(s) of {}", rows, origin);
  return fit;
}

PrefillComputeModel prefill_compute_from_gemms(const ComputeCalibration& gemms,
                                               const ModelArch& model) {
  PrefillComputeModel m;
  m.seconds_per_gemm_flop = gemms.per_prompt_token.value() / gemm_flops_per_token(model, gemms.tp);
  return m;
}

std::optional<DecodeMeasurement> baseline_decode_measurement(
    const std::vector<PrefillScenario>& baseline, int tp, const std::string& origin) {
  const PrefillScenario* best = nullptr;
  for (const auto& b : baseline) {
    if (b.prompt.requests == 1 && b.decode_tokens_per_s &&
        (best == nullptr || b.prompt.tokens_each < best->prompt.tokens_each)) {
      best = &b;
    }
  }
  if (best == nullptr) return std::nullopt;
  return DecodeMeasurement{tp, Seconds(1.0 / *best->decode_tokens_per_s),
                           fmt::format("{} row {} ({:g} tokens/s a request)", origin, best->name,
                                       *best->decode_tokens_per_s)};
}

DecodeFit fit_decode_efficiency(const ModelArch& model, const EngineConfig& engine,
                                const FabricProfile& fabric, BitRate memory_bandwidth,
                                double accepted_tokens,
                                const std::vector<DecodeMeasurement>& measured,
                                double expert_concentration) {
  DecodeFit fit;
  if (measured.empty()) return fit;
  const InputLocation at = InputLocation::for_key("decode.itl");
  double sum = 0.0;
  for (const DecodeMeasurement& m : measured) {
    EngineConfig at_tp = engine;
    at_tp.tensor_parallel_size = m.tp;
    DecodeFit::Point p;
    p.measured = m;
    DecodeComputeModel reads;
    reads.reads = decode_weight_reads(model);
    reads.expert_concentration = expert_concentration;
    reads.tp = m.tp;
    reads.memory_bandwidth = memory_bandwidth;
    p.weight_read_floor = reads.weight_read(1 + engine.num_speculative_tokens);
    ScheduledStep step;
    step.work.push_back(StepWork{0, 0, 0, 1 + engine.num_speculative_tokens, false});
    p.communication = step_communication(model, at_tp, fabric, step).time;
    const Seconds forward = m.itl * accepted_tokens;
    if (!(forward > p.communication)) {
      throw InputError(fmt::format("{}: {:.3f} ms a forward ({} accepted tokens) is not more than "
                                   "its predicted communication ({:.3f} ms on {})",
                                   m.source, forward.value() * 1e3, accepted_tokens,
                                   p.communication.value() * 1e3, describe(fabric)),
                       at);
    }
    p.efficiency = p.weight_read_floor / (forward - p.communication);
    if (p.efficiency > 1.0) {
      throw InputError(
          fmt::format("{}: faster than reading the weights: the floor at TP{} is {:.2f} ms, the "
                      "measured forward less its communication {:.2f} ms (efficiency {:.2f}); "
                      "check the TP, the model's precision, the memory bandwidth or the accepted "
                      "tokens per forward",
                      m.source, m.tp, p.weight_read_floor.value() * 1e3,
                      (forward - p.communication).value() * 1e3, p.efficiency),
          at);
    }
    sum += p.efficiency;
    fit.points.push_back(p);
  }
  fit.efficiency = sum / static_cast<double>(fit.points.size());
  for (auto& p : fit.points) {
    p.predicted = (p.weight_read_floor / fit.efficiency + p.communication) / accepted_tokens;
    p.residual_pct = (p.predicted / p.measured.itl - 1.0) * 100.0;
  }
  fit.source = measured.size() == 1 ? measured.front().source
                                    : fmt::format("the mean of {} measurements", measured.size());
  return fit;
}

}  // namespace tpnet
