#pragma once
// The measured TTFT baseline compare and plan project from: --baseline-tp,
// --baseline-ttft and --baseline-prompt (and compare's --baseline-link),
// given together or not at all.

#include <CLI/CLI.hpp>

#include <optional>
#include <string>

#include "tpnet/usecase/compare.hpp"

namespace tpnet::cli {

struct TtftBaselineFlags {
  int tp = 0;
  std::string ttft;
  std::string prompt;
  std::string link;  ///< compare's --baseline-link; the caller resolves it
};

/// Adds --baseline-tp, --baseline-ttft (helped by `ttft_help`) and
/// --baseline-prompt to `app` in `group`.
void add_ttft_baseline_flags(CLI::App* app, TtftBaselineFlags& flags, const std::string& group,
                             const std::string& ttft_help);

/// The baseline the flags give, its link left for the caller; nullopt when
/// none is given. Throws InputError naming --baseline-tp when some are given
/// without the other two of tp, TTFT and prompt.
[[nodiscard]] std::optional<TtftBaseline> to_ttft_baseline(const TtftBaselineFlags& flags);

/// Compare's: the baseline with its link, --baseline-link's, else `first_from`
/// (the grid's first baseline link).
[[nodiscard]] std::optional<TtftBaseline> to_ttft_baseline(const TtftBaselineFlags& flags,
                                                           const Link& first_from);

}  // namespace tpnet::cli
