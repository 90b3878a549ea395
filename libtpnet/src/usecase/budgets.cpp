#include "tpnet/usecase/budgets.hpp"

#include <algorithm>

namespace tpnet {
namespace {

/// Calls f(scenario?, budget, value, limit, unit) for every budget that is set and has a value.
template <typename F>
void visit(const Budgets& b, const BudgetValues& v, F&& f) {
  if (b.max_extra_ttft && v.extra_ttft) {
    f(true, "max_extra_ttft", v.extra_ttft->value(), b.max_extra_ttft->value(),
      VerdictUnit::seconds);
  }
  if (b.max_ttft_increase && v.ttft_increase) {
    f(true, "max_ttft_increase", *v.ttft_increase, *b.max_ttft_increase, VerdictUnit::fraction);
  }
  if (b.max_extra_ttft_per_1k && v.extra_per_1k) {
    f(false, "max_extra_ttft_per_1k_tokens", v.extra_per_1k->value(),
      b.max_extra_ttft_per_1k->value(), VerdictUnit::seconds);
  }
  if (b.max_decode_slowdown && v.decode_slowdown) {
    f(false, "max_decode_slowdown", *v.decode_slowdown, *b.max_decode_slowdown,
      VerdictUnit::fraction);
  }
}

}  // namespace

void append_verdicts(const Budgets& budgets, const BudgetValues& values,
                     const std::string& scenario_subject, const std::string& link_subject,
                     std::vector<Verdict>& out) {
  visit(budgets, values,
        [&](bool scenario, const char* budget, double value, double limit, VerdictUnit unit) {
          out.push_back(Verdict{budget, scenario ? scenario_subject : link_subject, value, limit,
                                unit, value <= limit});
        });
}

bool within_budgets(const Budgets& budgets, const BudgetValues& values) {
  bool within = true;
  visit(budgets, values, [&](bool, const char*, double value, double limit, VerdictUnit) {
    within = within && value <= limit;
  });
  return within;
}

bool all_within(const std::vector<Verdict>& verdicts) {
  return std::all_of(verdicts.begin(), verdicts.end(), [](const Verdict& v) { return v.within; });
}

}  // namespace tpnet
