#include "tpnet/measured/calibration.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "tpnet/measured/traffic_windows.hpp"
#include "tpnet/traffic/bytes_per_token.hpp"
#include "tpnet/traffic/collective.hpp"

namespace tpnet {

AllToAllCalibration make_alltoall_calibration(const AlltoAllFit& fit, const std::string& source,
                                              const std::string& link) {
  AllToAllCalibration c;
  c.source = source;
  c.ranks = fit.ranks;
  c.link = link;
  c.alpha = fit.alpha;
  c.rate = fit.rate;
  c.rms_relative_error = fit.rms_relative_error;
  c.max_relative_error = fit.max_relative_error;
  c.min_size = fit.min_size;
  c.max_size = fit.max_size;
  c.points = fit.points_used;
  return c;
}

AllReduceCalibration make_allreduce_calibration(const AllReduceFit& fit, const std::string& source,
                                                const std::string& link, BitRate link_rate) {
  AllReduceCalibration c;
  c.source = source;
  c.ranks = fit.ranks;
  c.link = link;
  c.link_rate = link_rate;
  c.alpha = fit.alpha;
  c.beta = fit.beta;
  c.step_latency = fit.step_latency;
  c.rms_relative_error = fit.rms_relative_error;
  c.max_relative_error = fit.max_relative_error;
  c.min_size = fit.min_size;
  c.max_size = fit.max_size;
  c.points = fit.points_used;

  std::vector<FitPoint> sorted = fit.curve;
  std::stable_sort(sorted.begin(), sorted.end(),
                   [](const FitPoint& l, const FitPoint& r) { return l.size < r.size; });
  for (std::size_t i = 0; i < sorted.size();) {
    std::size_t j = i;
    double time = 0.0;
    double algbw = 0.0;
    double busbw = 0.0;
    for (; j < sorted.size() && sorted[j].size == sorted[i].size; ++j) {
      time += sorted[j].measured.value();
      algbw += sorted[j].algbw.bits_per_second();
      busbw += sorted[j].busbw.bits_per_second();
    }
    const auto n = static_cast<double>(j - i);
    c.curve.push_back(CalibrationPoint{sorted[i].size, Seconds(time / n), BitRate(algbw / n),
                                       BitRate(busbw / n)});
    i = j;
  }
  return c;
}

ComputeCalibration make_compute_calibration(const GemmRun& run) {
  ComputeCalibration c;
  c.source = run.origin;
  c.model = run.model;
  c.tp = run.tp;
  c.chunk_tokens = run.chunk_tokens;
  c.precision = run.precision;
  c.device = run.device;
  c.compute_capability = run.compute_capability;
  c.gemms = static_cast<int>(run.gemms.size());
  c.forward_time = run.forward_time();
  c.per_prompt_token = run.per_prompt_token();
  c.experts = std::string(to_string(run.experts()));
  if (const std::optional<Seconds> skewed = run.skewed_forward_time()) {
    c.skewed_per_prompt_token = *skewed / static_cast<double>(run.chunk_tokens);
  }
  return c;
}

TrafficCalibration measure_traffic(const CounterSeries& series,
                                   const std::vector<RequestTiming>* requests,
                                   TokenCount prompt_tokens, const ModelArch& model,
                                   const EngineConfig& engine, const std::string& source) {
  if (prompt_tokens < 1) {
    throw InputError("must be at least 1: the prompt tokens the counters ran over",
                     InputLocation::for_key("traffic.prompt_tokens"));
  }
  TrafficCalibration t;
  t.source = source;
  t.model = model.name;
  t.tp = engine.tensor_parallel_size;
  t.prompt_tokens = prompt_tokens;
  t.devices = static_cast<int>(series.devices.size());
  const std::vector<TrafficInterval> intervals = traffic_intervals(series);
  double bytes = 0.0;
  if (requests != nullptr) {
    t.phase = "prefill";
    for (const auto& i : split_by_phase(intervals, *requests).prefill) bytes += i.xmit.count();
  } else {
    t.phase = "all";
    for (const auto& i : intervals) bytes += i.xmit.count();
  }
  t.xmit_bytes = Bytes(bytes);
  t.measured_per_token = t.xmit_bytes / static_cast<double>(prompt_tokens);
  t.formula_per_token = bytes_per_prompt_token(model, engine);
  t.ratio = t.measured_per_token / t.formula_per_token;
  return t;
}

}  // namespace tpnet
