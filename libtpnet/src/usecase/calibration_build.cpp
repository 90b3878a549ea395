#include "tpnet/usecase/calibration_build.hpp"

#include "tpnet/measured/alltoall_fit.hpp"

#include <fmt/format.h>

#include <sstream>

#include "tpnet/model/layout.hpp"
#include "tpnet/usecase/doctor.hpp"

namespace tpnet {
namespace {

std::vector<std::string> split_list(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    if (!item.empty()) out.push_back(item);
  }
  return out;
}

/// The sweep's part: fit, curve and what its header says about the run.
void add_allreduce(const SweepInput& in, Calibration& cal, std::vector<std::string>& warnings) {
  const AllReduceSweep& sweep = in.sweep;
  const std::string& source = sweep.origin;
  for (const auto& note : sweep.notes) warnings.push_back(note);
  const auto& prov = sweep.provenance;
  auto said = [&](const std::string& key) {
    const auto it = prov.find(key);
    return it == prov.end() ? std::string() : it->second;
  };

  if (const std::string r = said("ranks");
      !r.empty() && sweep.ranks != 0 && r != std::to_string(sweep.ranks)) {
    warnings.push_back(
        fmt::format("{} says ranks={} but lists {} '#  Rank' lines", source, r, sweep.ranks));
  }
  if (sweep.collective != Collective::all_reduce) {
    throw InputError(fmt::format("measured {} ({}); a calibration fits all_reduce sweeps: run "
                                 "all_reduce_perf",
                                 to_string(sweep.collective), sweep.collective_from),
                     InputLocation::in_file(source));
  }
  const int ranks = resolve_sweep_ranks(sweep, in.ranks, warnings);
  const AllReduceFit fit = fit_allreduce(sweep, ranks, in.range);
  if (fit.poor && !in.force) {
    throw InputError(
        fmt::format("the all-reduce fit of {} is poor ({:.1f}% RMS relative error, above {:.0f}%) "
                    "and would mislead every estimate made from it; narrow `fit.min_size` / "
                    "`fit.max_size`, or force it",
                    source, fit.rms_relative_error * 100, kPoorFitRms * 100),
        InputLocation::for_key("fit.force"));
  }
  for (const auto& w : fit.warnings) warnings.push_back(w);
  if (sweep.ranks_per_node() > 1) {
    warnings.push_back(fmt::format(
        "{} runs {} ranks per node: links inside each node carry part of every all-reduce, so "
        "the fit is not the network's alone",
        source, sweep.ranks_per_node()));
  }

  AllReduceCalibration a = make_allreduce_calibration(fit, source, in.link.name, in.link.rate);
  a.complete = sweep.complete;
  a.dtype = said("dtype").empty() ? sweep.samples.front().type : said("dtype");
  cal.allreduce = a;

  auto& p = cal.provenance;
  p.backend = said("backend").empty() ? "nccl-tests" : said("backend");
  // NCCL's algorithm and protocol mean nothing to the MPI backend.
  if (p.backend != "mpi") {
    const std::string algo = said("algo");
    if (!algo.empty() && algo != "Ring" && algo != "ring") {
      warnings.push_back(fmt::format(
          "{} ran with algo={}: the ring fit and curve assume NCCL_ALGO=Ring", source, algo));
    }
    if (!algo.empty()) p.env["NCCL_ALGO"] = algo;
    if (const std::string proto = said("proto"); !proto.empty()) p.env["NCCL_PROTO"] = proto;
  }
  p.nccl_version = sweep.nccl_version;
  if (const std::string nccl = said("nccl"); !nccl.empty()) {
    if (nccl == "none") {
      if (p.nccl_version.empty()) p.nccl_version = "none";
    } else if (nccl != sweep.nccl_version) {
      warnings.push_back(fmt::format("{} says nccl={} but its header says NCCL {}; kept {}", source,
                                     nccl, sweep.nccl_version, sweep.nccl_version));
    }
  }
  if (p.hosts.empty()) p.hosts = split_list(said("hosts"));
  if (p.hosts.empty()) p.hosts = sweep.hosts;
  if (p.date.empty()) p.date = said("date");
}

void add_compute(const GemmInput& in, Calibration& cal, std::vector<std::string>& warnings) {
  const GemmRun& run = in.run;
  cal.compute = make_compute_calibration(run);
  if (in.model_name && *in.model_name != run.model) {
    warnings.push_back(fmt::format("{} times {}, not the `model` {}; kept as measured", run.origin,
                                   run.model, *in.model_name));
  }
  if (run.precision != "nvfp4") {
    warnings.push_back(
        fmt::format("{} ran {} GEMMs, not NVFP4: compute per token is that precision's", run.origin,
                    run.precision));
  }
  if (run.experts() == ExpertTiming::separate) {
    warnings.push_back(fmt::format(
        "{} times the routed experts as separate GEMMs, one per expert; vLLM and SGLang run each "
        "MoE layer's experts as one grouped GEMM, so this compute per token is pessimistic: "
        "time them grouped (tpnet-calibrate gemm does by default)",
        run.origin));
  }
  if (cal.provenance.date.empty()) cal.provenance.date = run.date;
}

void add_traffic(const CounterInput& in, Calibration& cal, std::vector<std::string>& warnings) {
  validate(in.engine);
  if (in.engine.tensor_parallel_size < 2) {
    throw InputError("must be at least 2: a single node sends nothing",
                     InputLocation::for_key("traffic.tp"));
  }
  for (const auto& note : in.counters.notes) warnings.push_back(note);
  cal.traffic = measure_traffic(in.counters, in.requests ? &*in.requests : nullptr,
                                in.prompt_tokens, in.model, in.engine, in.source);
}

/// The all-to-all sweep's fit (s.31.1).
void add_alltoall(const SweepInput& in, Calibration& cal, std::vector<std::string>& warnings) {
  const AllReduceSweep& sweep = in.sweep;
  for (const auto& note : sweep.notes) warnings.push_back(note);
  const int ranks = in.ranks.value_or(sweep.ranks);
  const AlltoAllFit fit = fit_alltoall(sweep, ranks, in.range);
  if (fit.poor && !in.force) {
    throw InputError(
        fmt::format("the all-to-all fit of {} is poor ({:.1f}% RMS relative error, above "
                    "{:.0f}%) and would mislead every estimate made from it; narrow "
                    "`fit.min_size` / `fit.max_size`, or force it",
                    sweep.origin, fit.rms_relative_error * 100, kPoorFitRms * 100),
        InputLocation::for_key("fit.force"));
  }
  for (const auto& w : fit.warnings) warnings.push_back(w);
  cal.alltoall = make_alltoall_calibration(fit, sweep.origin, in.link.name);
}

}  // namespace

CalibrationBuildReport build_calibration(const CalibrationBuildRequest& request) {
  if (!request.allreduce && !request.alltoall && !request.compute && !request.traffic) {
    throw InputError(
        "give at least one measurement: an all-reduce or all-to-all sweep, timed GEMMs or RDMA "
        "counters",
        InputLocation::for_key("allreduce"));
  }
  CalibrationBuildReport report;
  Calibration& cal = report.calibration;
  cal.provenance.date = request.date;
  cal.provenance.hosts = request.hosts;
  if (request.allreduce) add_allreduce(*request.allreduce, cal, report.warnings);
  if (request.alltoall) add_alltoall(*request.alltoall, cal, report.warnings);
  if (request.compute) add_compute(*request.compute, cal, report.warnings);
  if (request.traffic) add_traffic(*request.traffic, cal, report.warnings);
  for (const auto& [name, value] : request.env) cal.provenance.env[name] = value;
  if (cal.provenance.date.empty()) cal.provenance.date = request.fallback_date;
  cal.provenance.tool = request.tool;
  cal.provenance.note = request.note;
  return report;
}

}  // namespace tpnet
