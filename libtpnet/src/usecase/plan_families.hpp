#pragma once
// plan's layouts beyond instances x TP (pipeline stages, expert parallelism
// with data-parallel attention, prefill/decode disaggregation): which to lay
// out on a cluster and how each is bought, fitted, priced and explained
// (docs/formulas.md s.30.5). Private to the plan use case.

#include <optional>
#include <string>
#include <vector>

#include "tpnet/fabric/cost.hpp"
#include "tpnet/usecase/plan_search.hpp"

namespace tpnet::plan_detail {

/// One layout of a family, before a speed and a fabric are chosen.
struct PlanCandidate {
  LayoutFamily family = LayoutFamily::tp;
  ParallelLayout layout;
  std::optional<DisaggregationLayout> disaggregation;
  [[nodiscard]] int nodes() const {
    return disaggregation ? disaggregation->nodes() : layout.nodes();
  }
};

/// The request's families' layouts whose instances divide its nodes, beyond
/// instances x TP: TP x PP (pp >= 2), TP x EP (dp >= 2, a MoE model), xPyD
/// at one TP for both pools with x and y coprime (2P2D is two 1P1D groups).
[[nodiscard]] std::vector<PlanCandidate> beyond_tp_candidates(const PlanSearchRequest& in);

/// What the whole cluster buys with `fabric`: every node, the switches and cables.
[[nodiscard]] Purchase plan_purchase(const PlanSearchRequest& in, const Fabric& fabric);

/// The option's layout priced on `profile` as the node's public runs give it
/// (expect_single_layout, the workload's first prompt, 1 and
/// kPlanExpectedRequests at once); absent where it does not fit or start,
/// or the model lacks a shape the pricing needs. A profile that cannot carry
/// the layout is a refusal, said in `refusal`.
[[nodiscard]] std::optional<ExpectLayout> expect_on(const PlanSearchRequest& in,
                                                    const PlanOption& option,
                                                    const FabricProfile& profile,
                                                    std::string& refusal);

/// The candidate's options at every speed and fabric, appended to the report.
void add_beyond_tp_options(const PlanSearchRequest& in, const PlanCandidate& candidate,
                           PlanSearchReport& report);

/// The row's reason: what it buys, its expected speed and what the slower
/// link costs it, or why it cannot run.
[[nodiscard]] std::string describe_beyond_tp(const PlanOption& option,
                                             const PlanSearchReport& report);

}  // namespace tpnet::plan_detail
