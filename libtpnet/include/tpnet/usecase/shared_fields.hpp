#pragma once
/// The fields and words several answers show alike: a link with its NCCL
/// latency model, a fabric profile, a model at its TP, what priced an
/// all-reduce's latency, NCCL's candidates, an extra's measured range, how a
/// calibration was applied.

#include <string>

#include "tpnet/fabric/allreduce_time.hpp"
#include "tpnet/fabric/collective_settings.hpp"
#include "tpnet/fabric/fabric_profile.hpp"
#include "tpnet/fabric/link.hpp"
#include "tpnet/fabric/nccl_model.hpp"
#include "tpnet/model/engine.hpp"
#include "tpnet/model/model.hpp"
#include "tpnet/usecase/calibration_use.hpp"
#include "tpnet/usecase/document.hpp"

namespace tpnet {

/// A profile as a record: link, fabric, source, rate_bps, provenance (in
/// tables only when `show_provenance`; always in JSON).
[[nodiscard]] Record fabric_fields(const Link& link, const FabricProfile& profile,
                                   bool show_provenance = false);

/// "glm-5.3 at TP8 (ring all-reduce)"
[[nodiscard]] std::string describe(const ModelArch& model, const EngineConfig& engine);

/// One table line: "200G (200 Gb/s; latency: NCCL 2.28.3 tuning model)":
/// the link with the cluster's NCCL `settings` that price its latency.
[[nodiscard]] Field link_summary(std::string label, const Link& link,
                                 const CollectiveSettings& settings);
/// Link as a JSON record: name, link_bps, latency_model (and the override's
/// latencies, or NCCL's algorithms, protocols and channels, from `settings`).
[[nodiscard]] Field link_record(std::string key, std::string label, const Link& link,
                                const CollectiveSettings& settings);

/// "ring/LL (NCCL model)" or "user override": what priced an all-reduce's latency.
[[nodiscard]] std::string latency_source(const AllReduceLatency& pricing);
/// latency_model, and with NCCL's model nccl_algorithm, nccl_protocol and
/// nccl_time_s (NCCL's whole modelled time), each key prefixed by `prefix`.
void append_pricing_fields(Record& out, const AllReduceLatency& pricing,
                           const std::string& prefix = "", DisplayUnit time_unit = kMicroseconds,
                           int time_decimals = 1);
/// Every NCCL candidate as rows: algorithm, protocol, enabled, chosen,
/// latency_s, bus_bandwidth_bps, algorithm_bandwidth_bps, time_s.
[[nodiscard]] Field nccl_candidate_records(std::string key, std::string label,
                                           const NcclChoice& choice);

/// The `calibration` record: file, provenance, the sweep's fit, whether
/// compute is used, and what the point estimates assume.
[[nodiscard]] Field calibration_record(const CalibrationUse& use);

/// A prediction's measured range in a table cell, "+8.31..+8.49" (seconds,
/// the unit row says so), rounded as range_text rounds it.
[[nodiscard]] std::string range_cell(const ExtraRange& range);

}  // namespace tpnet
