#include "tpnet/analysis/budgets.hpp"

#include <algorithm>

namespace tpnet {

void check_budget(std::vector<Verdict>& verdicts, const std::string& budget,
                  const std::string& subject, double value, double limit) {
  verdicts.push_back(Verdict{budget, subject, value, limit, value <= limit});
}

bool all_within(const std::vector<Verdict>& verdicts) {
  return std::all_of(verdicts.begin(), verdicts.end(), [](const Verdict& v) { return v.within; });
}

}  // namespace tpnet
