#pragma once
/// Budgets a serving plan must stay within, and the verdicts that gate CI
/// (exit code 1 when any budget is exceeded).

#include <optional>
#include <string>
#include <vector>

#include "tpnet/units.hpp"

namespace tpnet {

struct Budgets {
  std::optional<Seconds> max_extra_ttft;         ///< per scenario, upper bound
  std::optional<Seconds> max_extra_ttft_per_1k;  ///< per 1,000 prompt tokens
  std::optional<double> max_ttft_increase;       ///< fraction of the measured or projected TTFT
  std::optional<double> max_decode_slowdown;     ///< fraction of the decode weight-read floor

  [[nodiscard]] bool any() const {
    return max_extra_ttft || max_extra_ttft_per_1k || max_ttft_increase || max_decode_slowdown;
  }
};

/// One budget checked against one value. Values and limits are in the
/// budget's base unit: seconds, or a fraction for increases.
struct Verdict {
  std::string budget;   ///< "max_extra_ttft", ...
  std::string subject;  ///< what was checked: "P3", "per 1,000 tokens", "decode"
  double value = 0.0;
  double limit = 0.0;
  bool within = true;
};

/// Appends a verdict for `value` against `limit` (within when value <= limit).
void check_budget(std::vector<Verdict>& verdicts, const std::string& budget,
                  const std::string& subject, double value, double limit);

[[nodiscard]] bool all_within(const std::vector<Verdict>& verdicts);

}  // namespace tpnet
