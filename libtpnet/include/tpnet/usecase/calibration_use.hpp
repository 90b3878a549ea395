#pragma once
/// The calibration a request carries (`calibration`) and what of it a use
/// case may use: penalty, decode, compare and predict check the file against
/// the TP sizes, links, engine and model asked before pricing anything with
/// it, and say why a part goes unused (docs/calibration.md). The point
/// estimates themselves are tpnet/measured/point_estimate.hpp.

#include <memory>
#include <string>
#include <vector>

#include "tpnet/fabric/link.hpp"
#include "tpnet/measured/calibration.hpp"
#include "tpnet/model/engine.hpp"
#include "tpnet/model/model.hpp"

namespace tpnet {

/// A calibration.yaml a request carries (`calibration`), and the NCCL
/// version the estimate is for (`calibration.nccl_version`; "" = not said).
struct CalibrationInput {
  std::shared_ptr<const Calibration> file;
  std::string nccl_version;
};

/// What a calibration can be used for against what is asked. The pointers
/// point into `file`, which the use keeps alive.
struct CalibrationUse {
  std::shared_ptr<const Calibration> file;
  const AllReduceCalibration* allreduce = nullptr;  ///< never null once checked
  /// The compute section, when its model and chunk match (and its TP, unless
  /// `project_compute`); null otherwise, with a warning saying why.
  const ComputeCalibration* compute = nullptr;
  std::vector<std::string> warnings;
  std::vector<std::string> notes;  ///< what every point estimate assumes
};

/// What a use case asks of a calibration.
struct CalibrationAsk {
  std::vector<int> tps;    ///< the TP sizes asked (one for penalty and decode)
  std::vector<Link> from;  ///< the baseline links
  /// compare: a compute section of another TP is divided evenly over each
  /// layout's nodes (as compare's baseline projection) instead of being unused.
  bool project_compute = false;
  /// decode: there is no prompt compute to share with, so the compute section
  /// is not asked about.
  bool use_compute = true;
};

/// Throws InputError (naming the file and `allreduce`) when the calibration
/// has no all-reduce sweep. Warns, and scales, when its ranks differ from a
/// TP asked; warns when its link differs from a `from` link, its NCCL version
/// from the one asked, its backend is MPI (no NCCL), its sweep is partial,
/// or the engine's all-reduce algorithm is not ring; and when the compute
/// section's model, TP or chunk differ from what is asked (compute unused).
[[nodiscard]] CalibrationUse check_calibration(const CalibrationInput& input,
                                               const ModelArch& model, const EngineConfig& engine,
                                               const CalibrationAsk& ask);

}  // namespace tpnet
