#pragma once
// predict's xPyD runs (PredictRequest::disaggregation): what predict.cpp and
// predict_document.cpp call, kept beside them so the aggregated path stays
// as it was.

#include <cstddef>
#include <string>
#include <vector>

#include "tpnet/usecase/document.hpp"
#include "tpnet/usecase/predict.hpp"

namespace tpnet {

/// Refuses an xPyD request that cannot run, naming the field: a TP vLLM
/// refuses for the model or a pool whose instance does not fit in memory
/// (`disaggregation.prefill_tp`, `.decode_tp`), a step timeline or traffic
/// (`predict.timeline`, `predict.traffic`: an xPyD run keeps no steps).
/// Adds what the report must say of it (not validated on a Spark).
void check_disaggregated_predict(const PredictRequest& request, PredictReport& report);

/// One scenario at one link run as xPyD; `fabric` replaces the link's
/// profile (the range's runs, s.29), and such a run keeps no spans.
[[nodiscard]] PredictLink run_disaggregated_link(
    const PredictRequest& request, const StepCostModel& cost, const SchedulerSettings& scheduler,
    const PredictScenario& scenario, std::size_t link_index, const FabricProfile* fabric);

/// The answer's sentence on the last scenario's first xPyD link: the
/// hand-off's share of TTFT and the busier pool.
[[nodiscard]] std::string disaggregated_answer(const PredictLink& link);

/// Each scenario's xPyD run at each link: pools, hand-offs and the KV
/// formula's inputs (docs/json.md, predict's "disaggregation").
[[nodiscard]] Field disaggregation_field(const PredictReport& report);

}  // namespace tpnet
