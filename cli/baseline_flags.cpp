#include "baseline_flags.hpp"

#include "common.hpp"
#include "tpnet/base/error.hpp"
#include "tpnet/base/quantity.hpp"

namespace tpnet::cli {

void add_ttft_baseline_flags(CLI::App* app, TtftBaselineFlags& flags, const std::string& group,
                             const std::string& ttft_help) {
  app->add_option("--baseline-tp", flags.tp, "TP the TTFT was measured at")->group(group);
  app->add_option("--baseline-ttft", flags.ttft, ttft_help)->group(group);
  app->add_option("--baseline-prompt", flags.prompt, "Its prompt, e.g. 8k")->group(group);
}

std::optional<TtftBaseline> to_ttft_baseline(const TtftBaselineFlags& flags) {
  const bool any_given =
      flags.tp != 0 || !flags.ttft.empty() || !flags.prompt.empty() || !flags.link.empty();
  if (!any_given) return std::nullopt;
  if (flags.tp == 0 || flags.ttft.empty() || flags.prompt.empty()) {
    throw InputError(
        "a baseline needs --baseline-tp, --baseline-ttft and --baseline-prompt together "
        "(e.g. --baseline-tp 8 --baseline-ttft 6.36s --baseline-prompt 8k)",
        InputLocation::for_key("--baseline-tp"));
  }
  return TtftBaseline{ParallelLayout{flags.tp, 1, 1},
                      parse_duration(flags.ttft, InputLocation::for_key("--baseline-ttft")),
                      parse_prompt(flags.prompt, InputLocation::for_key("--baseline-prompt")),
                      {}};
}

std::optional<TtftBaseline> to_ttft_baseline(const TtftBaselineFlags& flags,
                                             const Link& first_from) {
  std::optional<TtftBaseline> baseline = to_ttft_baseline(flags);
  if (baseline) {
    baseline->link = flags.link.empty() ? first_from : to_link(flags.link, "--baseline-link");
  }
  return baseline;
}

}  // namespace tpnet::cli
