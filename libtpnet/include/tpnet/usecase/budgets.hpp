#pragma once
/// Budgets a serving plan must stay within, and the verdicts that gate CI
/// (exit code 1 when any budget is exceeded). One evaluation for penalty,
/// compare and check (docs/formulas.md s.11).

#include <optional>
#include <string>
#include <vector>

#include "tpnet/base/units.hpp"

namespace tpnet {

/// The `budgets.*` of a plan, or the --max-* flags.
struct Budgets {
  std::optional<Seconds> max_extra_ttft;         ///< per scenario, upper bound
  std::optional<Seconds> max_extra_ttft_per_1k;  ///< per 1,000 prompt tokens
  std::optional<double> max_ttft_increase;       ///< fraction of the measured or projected TTFT
  std::optional<double> max_decode_slowdown;     ///< fraction of the decode weight-read floor

  [[nodiscard]] bool any() const {
    return max_extra_ttft || max_extra_ttft_per_1k || max_ttft_increase || max_decode_slowdown;
  }
};

/// The unit a verdict's value and limit are in.
enum class VerdictUnit { seconds, fraction, bytes };

/// One budget checked against one value.
struct Verdict {
  std::string budget;   ///< "max_extra_ttft", ..., "memory_fit"
  std::string subject;  ///< what was checked: "P3", "per 1,000 prompt tokens", "TP8"
  double value = 0.0;
  double limit = 0.0;
  VerdictUnit unit = VerdictUnit::seconds;
  bool within = true;
};

/// What the budgets are checked against for one subject; a value left unset
/// leaves its budget unchecked there.
struct BudgetValues {
  std::optional<Seconds> extra_ttft;      ///< scenario: the extra TTFT bound
  std::optional<double> ttft_increase;    ///< scenario: measured or projected, a fraction
  std::optional<Seconds> extra_per_1k;    ///< link pair: per 1,000 prompt tokens
  std::optional<double> decode_slowdown;  ///< link pair: a fraction of the floor
};

/// Appends a verdict for each budget that is set and has a value: the
/// scenario budgets (max_extra_ttft, max_ttft_increase) under
/// `scenario_subject`, then the link budgets (max_extra_ttft_per_1k_tokens,
/// max_decode_slowdown) under `link_subject`. Within when value <= limit.
void append_verdicts(const Budgets& budgets, const BudgetValues& values,
                     const std::string& scenario_subject, const std::string& link_subject,
                     std::vector<Verdict>& out);

/// True when every budget that is set and has a value holds.
[[nodiscard]] bool within_budgets(const Budgets& budgets, const BudgetValues& values);

[[nodiscard]] bool all_within(const std::vector<Verdict>& verdicts);

}  // namespace tpnet
