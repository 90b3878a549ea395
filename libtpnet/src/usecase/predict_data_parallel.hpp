#pragma once
// predict's data-parallel ranks (docs/prediction.md s.7): the requests spread
// over the DP ranks, each rank's scheduler run on its own, and the ranks'
// runs put back together as one link's answer.

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "tpnet/usecase/predict.hpp"

namespace tpnet {

/// One DP rank's share of a scenario.
struct DataParallelShare {
  int rank = 0;
  /// Its requests' indices in the whole scenario, in the order they arrive.
  std::vector<std::size_t> requests;
};

/// The requests in order of arrival (ties in list order) dealt to `ranks`
/// ranks round robin: vLLM's DP load balancer sends each to the least
/// loaded rank, which for requests alike is the next in turn.
[[nodiscard]] std::vector<DataParallelShare> round_robin_shares(
    const std::vector<ScheduledRequest>& requests, int ranks);

/// Runs each rank that has requests by `run_rank` (its own requests as a
/// scenario) and puts the runs together: each request's TTFT and decode
/// speed from its rank; the steps, the sent bytes, the communication and the
/// all-to-all's share of the rank whose last first token comes last (the
/// one the answer waits for); the kept steps of rank 0.
[[nodiscard]] PredictLink run_data_parallel(
    const PredictScenario& scenario, int ranks,
    const std::function<PredictLink(const PredictScenario&, const DataParallelShare&)>& run_rank);

/// What an EP prediction rests on, said in its notes: the layout by vLLM's
/// settings, that it is not validated on a Spark, how the requests are
/// spread and what the ranks are taken to carry.
[[nodiscard]] std::vector<std::string> expert_parallel_notes(const PredictRequest& request);

}  // namespace tpnet
