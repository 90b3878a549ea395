#include "tpnet/usecase/calibration_use.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <string_view>

#include "tpnet/base/error.hpp"
#include "tpnet/traffic/collective.hpp"

namespace tpnet {

namespace {

std::string joined_parts(const std::vector<std::string>& parts, std::string_view separator) {
  std::string out;
  for (const auto& p : parts) out += (out.empty() ? "" : std::string(separator)) + p;
  return out;
}

}  // namespace

CalibrationUse check_calibration(const CalibrationInput& input, const ModelArch& model,
                                 const EngineConfig& engine, const CalibrationAsk& request) {
  if (!input.file) throw Error("check_calibration without a calibration");
  const Calibration& c = *input.file;
  const std::string file = c.origin.empty() ? "the calibration" : c.origin;
  if (!c.allreduce) {
    throw InputError(
        "has no allreduce section: point estimates need an all-reduce sweep (tpnet calibration "
        "writes one from an nccl-tests log)",
        InputLocation::in_file(c.origin, 0, "allreduce"));
  }
  CalibrationUse use;
  use.file = input.file;
  use.allreduce = &*c.allreduce;
  const AllReduceCalibration& a = *c.allreduce;

  std::vector<std::string> other_tps;
  for (int tp : request.tps) {
    const std::string name = fmt::format("TP{}", tp);
    if (tp >= 2 && tp != a.ranks &&
        std::find(other_tps.begin(), other_tps.end(), name) == other_tps.end()) {
      other_tps.push_back(name);
    }
  }
  if (!other_tps.empty()) {
    use.warnings.push_back(fmt::format(
        "{}: the all-reduce sweep ran on {} ranks, not {}: scaled to them by keeping its latency "
        "per ring step and the bytes each rank sends (2(N-1) steps, 2(N-1)/N bytes); measure at "
        "the TP you plan for",
        file, a.ranks, joined_parts(other_tps, ", ")));
  }
  for (const Link& from : request.from) {
    if (!same_rate(from.rate, a.link_rate)) {
      use.warnings.push_back(fmt::format(
          "{}: the sweep was measured on {} ({:.4g} Gb/s), not on {} ({:.4g} Gb/s): its transfer "
          "times are scaled by the rate ratio, assuming the same efficiency",
          file, a.link, a.link_rate.bits_per_second() / 1e9, from.name,
          from.rate.bits_per_second() / 1e9));
    }
  }
  const std::string& measured_nccl = c.provenance.nccl_version;
  const std::string& asked_nccl = input.nccl_version;
  if (!asked_nccl.empty()) {
    if (measured_nccl.empty() || measured_nccl == "none") {
      use.warnings.push_back(
          fmt::format("{}: does not record an NCCL version; `calibration.nccl_version` {} cannot "
                      "be checked",
                      file, asked_nccl));
    } else if (measured_nccl != asked_nccl) {
      use.warnings.push_back(fmt::format(
          "{}: measured with NCCL {}, not the {} asked (`calibration.nccl_version`): latencies "
          "and protocol choices differ between versions; calibrate again with the NCCL you run",
          file, measured_nccl, asked_nccl));
    }
  }
  if (c.provenance.backend == "mpi") {
    use.warnings.push_back(fmt::format(
        "{}: the sweep was measured with the MPI backend, not NCCL: its latency and bandwidth are "
        "MPI's; use the nccl backend (or nccl-tests) for estimates of NCCL traffic",
        file));
  }
  if (!a.complete) {
    use.warnings.push_back(fmt::format(
        "{}: the sweep is partial (it stopped after {:g} B): larger blocks use the fitted line",
        file, a.curve.back().size.count()));
  }
  if (engine.algorithm != CollectiveAlgorithm::ring) {
    use.warnings.push_back(fmt::format(
        "{}: the sweep is a ring all-reduce; `engine.algorithm` {} all-reduces are priced with "
        "the ring curve",
        file, to_string(engine.algorithm)));
  }

  if (c.compute && request.use_compute) {
    const ComputeCalibration& m = *c.compute;
    std::vector<std::string> reasons;
    if (m.model != model.name) {
      reasons.push_back(fmt::format("it is for {}, not {}", m.model, model.name));
    }
    if (m.chunk_tokens != engine.max_num_batched_tokens) {
      reasons.push_back(fmt::format("its chunk is {} tokens, not {}", m.chunk_tokens,
                                    engine.max_num_batched_tokens));
    }
    const bool other_tp =
        std::any_of(request.tps.begin(), request.tps.end(), [&](int tp) { return tp != m.tp; });
    if (other_tp && !request.project_compute) {
      std::vector<std::string> asked;
      for (int tp : request.tps) asked.push_back(fmt::format("TP{}", tp));
      reasons.push_back(
          fmt::format("it was measured at TP{}, not {}", m.tp, joined_parts(asked, ", ")));
    }
    if (!reasons.empty()) {
      use.warnings.push_back(
          fmt::format("{}: the compute section is not used for the network share: {}", file,
                      joined_parts(reasons, "; ")));
    } else {
      use.compute = &m;
      if (other_tp) {
        use.warnings.push_back(fmt::format(
            "{}: compute was measured at TP{}; other layouts get it divided evenly over their "
            "nodes",
            file, m.tp));
      }
    }
  }
  use.notes = {
      "point estimates price every all-reduce with the measured curve at each link and assume "
      "no overlap with compute",
      "a point estimate can exceed the full-rate bound by the measured shortfall from the link "
      "rate (1 / efficiency), and fall below it where latency dominates (small blocks)",
  };
  if (use.compute != nullptr) {
    use.notes.emplace_back(
        "compute is the timed GEMMs only: attention scores, norms and the rest are left out, so "
        "the network share is an overestimate");
  }
  return use;
}

}  // namespace tpnet
