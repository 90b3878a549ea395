#pragma once
/// Fitting a measured ring all-reduce sweep to the alpha-beta model, and
/// judging the bus bandwidth it reached (docs/formulas.md s.16,
/// docs/calibration.md).

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tpnet/base/units.hpp"
#include "tpnet/fabric/node.hpp"
#include "tpnet/measured/allreduce_sweep.hpp"

namespace tpnet {

/// Sizes to fit, inclusive; unset ends take every size.
struct FitRange {
  std::optional<Bytes> min_size;
  std::optional<Bytes> max_size;
};

/// One size of the sweep beside the fitted model.
struct FitPoint {
  Bytes size;
  Seconds measured;             ///< out-of-place time
  Seconds fitted;               ///< alpha + sent / beta
  double relative_error = 0.0;  ///< (fitted - measured) / measured
  BitRate algbw;
  BitRate busbw;
  bool in_range = false;  ///< used by the fit
};

/// RMS relative error above which a fit is flagged poor and not written to
/// a calibration without being forced.
inline constexpr double kPoorFitRms = 0.10;

struct AllReduceFit {
  int ranks = 0;
  Collective collective = Collective::all_reduce;
  double sent_factor = 0.0;  ///< share of S each rank sends: busbw_factor (2(N-1)/N for all_reduce)
  int steps = 0;             ///< ring_steps (2(N-1) for all_reduce)
  Bytes min_size;            ///< smallest size fitted
  Bytes max_size;            ///< largest size fitted
  int points_used = 0;
  Seconds alpha;         ///< fixed time of one all-reduce
  BitRate beta;          ///< rate of the bytes each rank sends (the busbw plateau)
  Seconds step_latency;  ///< alpha / 2(N-1)
  double rms_relative_error = 0.0;
  double max_relative_error = 0.0;  ///< largest |relative error| in range
  /// The unconstrained least squares gave alpha < 0; alpha was held at 0.
  bool constrained = false;
  /// rms_relative_error is above kPoorFitRms.
  bool poor = false;
  std::vector<FitPoint> curve;  ///< every size, in file order
  std::vector<std::string> warnings;
};

/// Least squares of time(S) = alpha + sent(S) / beta over the sizes in
/// `range`, sent(S) = busbw_factor x S (2(N-1)/N x S for a ring all-reduce),
/// weighted so each size counts by its relative error, with alpha >= 0
/// (held at 0, and said, when the free fit goes negative). A fit above
/// kPoorFitRms is flagged `poor`. Throws InputError when ranks < 2, fewer than 2
/// distinct sizes are in range, or the fit gives no positive bandwidth.
[[nodiscard]] AllReduceFit fit_allreduce(const AllReduceSweep& sweep, int ranks,
                                         const FitRange& range = {});

/// The share of the link's rate a healthy fabric's bus bandwidth reaches:
/// within 10% of the link (docs/background.md s.9: ~196 Gb/s on a 200G port).
inline constexpr double kHealthyShare = 0.9;

/// What a measured bus bandwidth says about the fabric (docs/background.md s.9).
enum class FabricState {
  healthy,             ///< within 10% of the link's rate
  one_pcie_half,       ///< ~109 Gb/s on a 200G port: one RDMA device used
  degraded_nic,        ///< 8-25 Gb/s: throttled or degraded ConnectX-7
  software_forwarded,  ///< under 8 Gb/s: CPU bridge, RSTP detour
  below_expectation,   ///< slower than the link, none of the known causes
  above_link,          ///< faster than the link: more NICs, or another link than asked
  not_judged,          ///< NVLink carries part of the traffic, or the sizes are too small
  socket_fallback,     ///< NCCL moved the bytes over TCP sockets (its log says so)
  latency_healthy,     ///< sizes too small for bandwidth; latency within the measured range
  latency_slow,        ///< sizes too small for bandwidth; latency above the measured range
};
[[nodiscard]] std::string_view to_string(FabricState state);

struct FabricDiagnosis {
  FabricState state = FabricState::healthy;
  double share = 0.0;  ///< measured / expected
  std::string finding;
  std::string advice;
};

/// What the log says about the hardware the bus bandwidth was measured on.
struct FabricHardware {
  /// The known faults of the port the ranks sit on, from the node catalog
  /// (a DGX Spark's: one PCIe half, a throttled NIC, a software-forwarded
  /// bridge); absent for hardware whose faults were never measured, which is
  /// then judged by its share of the link alone.
  std::optional<BusBandwidthFaults> faults;
  std::string gpu;      ///< as the log's `#  Rank` lines name it; "" when not said
  std::string network;  ///< NCCL's transport as its INFO lines name it; "" when not said
  /// What a healthy node of this path shows at the sizes judged, measured
  /// (the node's fabric catalog); absent, the link rate is the reference.
  std::optional<BitRate> healthy_rate;
  std::string healthy_from;  ///< where healthy_rate comes from, for the finding
};

/// Classifies the bus bandwidth of the largest sizes against what a healthy
/// node reaches (hardware.healthy_rate, else the link rate), naming only
/// causes that exist on `hardware`; above 110% of `link_rate` is more than
/// one link carried.
[[nodiscard]] FabricDiagnosis diagnose_bus_bandwidth(BitRate measured, BitRate link_rate,
                                                     const FabricHardware& hardware);

/// Mean out-of-place bus bandwidth of the (up to) `count` largest sizes.
[[nodiscard]] BitRate large_size_busbw(const AllReduceSweep& sweep, int count = 3);

}  // namespace tpnet
