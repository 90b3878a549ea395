#pragma once
/// What one all-reduce achieves on a fabric, as a function of its size and
/// ranks: measured (a calibration.yaml), built in from public measurements
/// between known nodes (models/fabrics/*.yaml), or NCCL's tuner model at the
/// nominal rate. Every estimated time of a collective goes through here; the
/// bounds keep nominal rates (docs/formulas.md s.22).

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tpnet/base/units.hpp"
#include "tpnet/fabric/collective_settings.hpp"
#include "tpnet/fabric/link.hpp"
#include "tpnet/fabric/measured_allreduce.hpp"
#include "tpnet/fabric/measured_alltoall.hpp"
#include "tpnet/model/engine.hpp"

namespace tpnet {

enum class FabricSource {
  calibration,  ///< a calibration.yaml's measured sweep (the best)
  builtin,      ///< a built-in profile from public measurements
  nominal,      ///< NCCL's tuner model at the link's nominal rate
};

[[nodiscard]] std::string_view to_string(FabricSource source);

/// What joins the nodes of one instance: the fabric a layout buys
/// (docs/formulas.md s.28). A direct cable joins two nodes; a ring cables
/// each node's two ports to its two neighbours, so each rank sends on one
/// RDMA device and receives on the other; a switch joins any number.
enum class FabricTopology {
  none,      ///< one node per instance (TP1): nothing crosses RoCE
  direct,    ///< one cable between two nodes
  ring,      ///< each node's two ports to its two neighbours
  switched,  ///< one port (or breakout lane) per node to a switch
};

[[nodiscard]] std::string_view to_string(FabricTopology topology);

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
  /// The same at the slow and at the fast end of what the point's source
  /// measured (docs/formulas.md s.29); equal to seconds_per_byte where the
  /// source gives one figure.
  std::vector<double> slowest_seconds_per_byte;
  std::vector<double> fastest_seconds_per_byte;
};

/// Which curve of a built-in profile prices bytes: the central one, or the
/// slowest or fastest its measurements allow (docs/formulas.md s.29).
enum class FabricEnd { central, slowest, fastest };

struct FabricProfile {
  std::string name;  ///< "dgx-spark-200g-switch", "nominal", or the calibration file
  FabricSource source = FabricSource::nominal;
  std::string description;
  /// Where each number comes from, one line each, with the arithmetic.
  std::vector<std::string> provenance;
  /// The link it prices: its rate.
  Link link;
  /// The cluster's NCCL settings a nominal profile prices fixed costs with
  /// (NCCL's tuner, or the user's alpha-beta override); measured profiles
  /// carry their own fixed cost and leave these at their defaults.
  CollectiveSettings collective;
  // Built-in profiles:
  std::string node;         ///< the node it was measured on
  std::string for_link;     ///< the link preset it describes
  bool is_default = false;  ///< the profile `for_link` gets on `node` unless told otherwise
  /// What the measured path joined: a profile prices layouts of that
  /// topology only (default_fabric), and a direct cable or a ring no more
  /// ranks than it joins (max_ranks).
  FabricTopology topology = FabricTopology::switched;
  int max_ranks = 0;  ///< the most ranks the topology joins; 0: any
  /// NCCL settings the topology needs to initialise at all (a ring's), one
  /// `NAME=value` each.
  std::vector<std::string> nccl_settings;
  BitRate bus_bandwidth;  ///< the curve's rate at its largest size (bulk)
  int rdma_devices = 0;   ///< RDMA devices the traffic is spread over
  std::vector<SmallAllReduceTable> small;
  BusBandwidthCurve curve;  ///< what bytes move at, by size (s.22)
  /// The borrowed run's rates times this: the profile's RDMA rate over the
  /// rate of the path the curve was measured on (1 when it is the same path);
  /// already applied to the curve's seconds per byte.
  double curve_scale = 1.0;
  /// Which of the curve's ends prices bytes (central unless a range asks).
  FabricEnd end = FabricEnd::central;
  // Calibration profiles: the measured curve, moved to `link` (s.19).
  std::shared_ptr<const AllReduceCalibration> measured_curve;
  /// A measured all-to-all (a calibration's): expert parallelism's dispatch
  /// and combine are priced by it instead of the all-reduce model (s.31.1).
  std::optional<MeasuredAllToAll> alltoall;
};

/// One all-reduce on a profile.
struct FabricAllReduce {
  Seconds time;
  Seconds latency;   ///< the part that does not move bytes
  Seconds transfer;  ///< sent bytes at the achieved bus bandwidth
};

/// Time of one all-reduce of `block` bytes on `ranks` ranks (0 for one rank).
/// Throws InputError naming `fabric` when `ranks` exceeds the profile's
/// max_ranks (a direct cable's profile pricing four ranks). calibration: calibrated_allreduce_time
/// at the link's rate (s.19); nominal: allreduce_time over the link (s.5, s.20); built-in: the
/// measured small-size latency, moved to `ranks` by the algorithm's step count, plus the sent bytes
/// at the measured bus bandwidth (s.22). Throws InputError for a negative block or ranks < 1.
[[nodiscard]] FabricAllReduce fabric_allreduce(const FabricProfile& profile, Bytes block, int ranks,
                                               CollectiveAlgorithm algorithm);

/// A ring all-gather in which each rank sends `sent_per_node` bytes
/// ((N-1)/N of the gathered result): N-1 steps.
[[nodiscard]] Seconds fabric_allgather(const FabricProfile& profile, Bytes sent_per_node,
                                       int ranks);

/// The rate the fabric moves bulk bytes at: the built-in curve at its largest
/// size, the calibration's beta at the link, or the link's nominal rate.
[[nodiscard]] BitRate fabric_rate(const FabricProfile& profile);

/// The bus bandwidth nccl-tests shows on the profile's path at `size` when
/// the fabric is healthy: a built-in profile's measured points (times its
/// curve_scale), linear in log(size) between them and the nearest point's
/// outside; a calibration's measured rate; nominal, the link rate.
[[nodiscard]] BitRate healthy_bus_bandwidth(const FabricProfile& profile, Bytes size);

/// Seconds per sent byte of a built-in profile's bytes at collective size
/// `size`, on the profile's `end` of its curve: linear in log(size) between
/// the curve's points, the nearest point's outside them (s.22).
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

/// The profile a link gets when nothing is asked, from `catalog` (the
/// built-in profiles, io/fabric_catalog.hpp): the profile of `node` for the
/// link's preset name and `topology` (the default one among switched
/// profiles), or nominal with `settings` when there is none, saying so. A
/// latency override in `settings` asks for the nominal profile outright.
[[nodiscard]] FabricProfile default_fabric(const std::vector<FabricProfile>& catalog,
                                           const Link& link, const CollectiveSettings& settings,
                                           std::string_view node,
                                           FabricTopology topology = FabricTopology::switched);

/// NCCL's model (or the settings' alpha-beta override) at the link's nominal rate.
[[nodiscard]] FabricProfile nominal_fabric(const Link& link, const CollectiveSettings& settings);

/// A calibration's measured all-reduce curve as the profile of `link`,
/// named after `origin` (the calibration file).
[[nodiscard]] FabricProfile calibration_fabric(std::shared_ptr<const AllReduceCalibration> curve,
                                               const std::string& origin, const Link& link);

/// `profile` priced at `end` of its measurements (a built-in profile's
/// slowest or fastest curve, s.29); other profiles carry no spread and come
/// back unchanged.
[[nodiscard]] FabricProfile fabric_at_end(const FabricProfile& profile, FabricEnd end);

/// Whether `profile`'s slowest and fastest curves differ anywhere.
[[nodiscard]] bool has_spread(const FabricProfile& profile);

/// A predicted extra time at the two ends of what the profiles' measurements
/// allow (s.29): `low` with `from` at its slowest and `to` at its fastest,
/// `high` the other way round, each widened to take in the central value.
struct ExtraRange {
  Seconds low;
  Seconds high;
};

/// The one place the range is made: `extra(from', to')` evaluated at the two
/// crossed ends of the profiles' curves, low and high the least and the most
/// of those two and `central` (the extra at the central curves). Neither
/// profile with a spread: both `central`, `extra` not called.
[[nodiscard]] ExtraRange extra_range(
    const FabricProfile& from, const FabricProfile& to, Seconds central,
    const std::function<Seconds(const FabricProfile&, const FabricProfile&)>& extra);

/// "+4.91 to +7.40 s": how outputs print a range of extra seconds, to 0.01 s.
[[nodiscard]] std::string range_text(const ExtraRange& range);

/// "dgx-spark-200g-switch (built-in, measured)": how reports name a profile.
[[nodiscard]] std::string describe(const FabricProfile& profile);

}  // namespace tpnet
