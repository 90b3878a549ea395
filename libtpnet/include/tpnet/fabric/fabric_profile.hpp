#pragma once
/// What one all-reduce achieves on a fabric, as a function of its size and
/// ranks: measured (a calibration.yaml), built in from public measurements
/// between known nodes (models/fabrics/*.yaml), or NCCL's tuner model at the
/// nominal rate. Every estimated time of a collective goes through here; the
/// bounds keep nominal rates (docs/formulas.md s.22).

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "tpnet/base/units.hpp"
#include "tpnet/fabric/link.hpp"
#include "tpnet/measured/calibration.hpp"
#include "tpnet/model/engine.hpp"

namespace tpnet {

enum class FabricSource {
  calibration,  ///< a calibration.yaml's measured sweep (the best)
  builtin,      ///< a built-in profile from public measurements
  nominal,      ///< NCCL's tuner model at the link's nominal rate
};

[[nodiscard]] std::string_view to_string(FabricSource source);

/// One measured all-reduce time at a small size.
struct SmallAllReducePoint {
  Bytes size;
  Seconds time;
};

/// Small all-reduces measured on `ranks` ranks, on one fabric: the bytes of
/// each point at that fabric's bus bandwidth are what is taken out to leave
/// the fixed cost every profile then shares (docs/formulas.md s.22).
struct SmallAllReduceTable {
  int ranks = 0;
  std::string source;
  std::vector<SmallAllReducePoint> points;  ///< sizes strictly increasing
  std::string measured_on;                  ///< the nccl path it was measured on
  BitRate measured_bus_bandwidth;           ///< that path's bus bandwidth
  Bytes measured_bus_bandwidth_size;        ///< the size it was measured at
};

/// One measured bus bandwidth of a collective at one size (nccl-tests'
/// busbw: the bytes each rank sends over the time).
struct BusBandwidthPoint {
  Bytes size;
  BitRate bus_bandwidth;
};

/// A path's measured bus bandwidth by size, from one source, turned into
/// seconds per sent byte by size once the shared fixed cost is taken out
/// (docs/formulas.md s.22): what a profile moves bytes at.
struct BusBandwidthCurve {
  std::string source;  ///< where the numbers come from
  int ranks = 0;
  bool all_gather = false;                ///< all_gather_perf (else all-reduce)
  std::vector<BusBandwidthPoint> points;  ///< sizes strictly increasing
  /// Seconds per sent byte at each point's size, after the fixed cost.
  std::vector<double> seconds_per_byte;
};

struct FabricProfile {
  std::string name;  ///< "dgx-spark-200g-switch", "nominal", or the calibration file
  FabricSource source = FabricSource::nominal;
  std::string description;
  /// Where each number comes from, one line each, with the arithmetic.
  std::vector<std::string> provenance;
  /// The link it prices: its rate and (nominal) NCCL latency model.
  Link link;
  // Built-in profiles:
  std::string node;         ///< the node it was measured on
  std::string for_link;     ///< the link preset it describes
  bool is_default = false;  ///< the profile `for_link` gets on `node` unless told otherwise
  BitRate bus_bandwidth;    ///< the curve's rate at its largest size (bulk)
  int rdma_devices = 0;     ///< RDMA devices the traffic is spread over
  std::vector<SmallAllReduceTable> small;
  BusBandwidthCurve curve;  ///< what bytes move at, by size (s.22)
  /// The curve's rates times this: the profile's RDMA rate over the rate of
  /// the path the curve was measured on (1 when it is the same path).
  double curve_scale = 1.0;
  // Calibration profiles:
  std::shared_ptr<const Calibration> calibration;
};

/// One all-reduce on a profile.
struct FabricAllReduce {
  Seconds time;
  Seconds latency;   ///< the part that does not move bytes
  Seconds transfer;  ///< sent bytes at the achieved bus bandwidth
};

/// Time of one all-reduce of `block` bytes on `ranks` ranks (0 for one rank).
/// calibration: calibrated_allreduce_time at the link's rate (s.19); nominal:
/// allreduce_time over the link (s.5, s.20); built-in: the measured small-size
/// latency, moved to `ranks` by the algorithm's step count, plus the sent
/// bytes at the measured bus bandwidth (s.22). Throws InputError for a
/// negative block or ranks < 1.
[[nodiscard]] FabricAllReduce fabric_allreduce(const FabricProfile& profile, Bytes block, int ranks,
                                               CollectiveAlgorithm algorithm);

/// A ring all-gather in which each rank sends `sent_per_node` bytes
/// ((N-1)/N of the gathered result): N-1 steps.
[[nodiscard]] Seconds fabric_allgather(const FabricProfile& profile, Bytes sent_per_node,
                                       int ranks);

/// The rate the fabric moves bulk bytes at: the built-in curve at its largest
/// size, the calibration's beta at the link, or the link's nominal rate.
[[nodiscard]] BitRate fabric_rate(const FabricProfile& profile);

/// Seconds per sent byte of a built-in profile's bytes at collective size
/// `size`: linear in log(size) between the curve's points, the nearest
/// point's outside them, divided by curve_scale (s.22).
[[nodiscard]] double builtin_seconds_per_byte(const FabricProfile& profile, Bytes size);

/// The fixed cost every built-in profile of `small` shares for one
/// all-reduce of `block` on `ranks` ranks (s.22).
[[nodiscard]] Seconds shared_allreduce_latency(const std::vector<SmallAllReduceTable>& small,
                                               Bytes block, int ranks);

/// The most one sent byte of an all-reduce on `ranks` ranks can cost more on
/// `to` than on `from`, over the sizes from `smallest` to `largest` (the
/// achieved-rate bound, s.25): at the two ends and every curve point between
/// them, where the per-byte costs change slope.
struct PerByteGap {
  double seconds_per_byte = 0.0;  ///< max over sizes of (to - from) per sent byte
  Bytes at_size;                  ///< the all-reduce size where it is largest
  BitRate from_rate;              ///< 1 / from's per-byte cost there
  BitRate to_rate;                ///< 1 / to's per-byte cost there
};
[[nodiscard]] PerByteGap largest_per_byte_gap(const FabricProfile& from, const FabricProfile& to,
                                              int ranks, CollectiveAlgorithm algorithm,
                                              Bytes smallest, Bytes largest);

/// The built-in profiles, every node's, in catalog order.
[[nodiscard]] const std::vector<FabricProfile>& builtin_fabric_profiles();
[[nodiscard]] std::vector<std::string> builtin_fabric_names();

/// The profile a link gets when nothing is asked: the built-in profile of
/// `node` for the link's preset name, or nominal when there is none.
[[nodiscard]] FabricProfile default_fabric(const Link& link, std::string_view node);

/// NCCL's model at the link's nominal rate.
[[nodiscard]] FabricProfile nominal_fabric(const Link& link);

/// `auto` (default_fabric), `nominal`, a built-in profile name, or a
/// calibration.yaml path (`calibration`: the file already read). Throws
/// InputError naming `fabric` for an unknown name, a built-in profile whose
/// path runs at another rate than the link, or a calibration without an
/// all-reduce sweep.
[[nodiscard]] FabricProfile resolve_fabric(std::string_view spec, const Link& link,
                                           std::string_view node,
                                           std::shared_ptr<const Calibration> calibration = {});

/// "dgx-spark-200g-switch (built-in, measured)": how reports name a profile.
[[nodiscard]] std::string describe(const FabricProfile& profile);

}  // namespace tpnet
