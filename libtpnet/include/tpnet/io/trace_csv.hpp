#pragma once
/// A request trace for `tpnet predict --trace`: one row per request,
/// `arrival_s,prompt_tokens,output_tokens` (other columns ignored, `#` lines
/// before the header are comments). Rows need not be sorted.

#include <string>
#include <string_view>
#include <vector>

#include "tpnet/sim/step_schedule.hpp"

namespace tpnet {

/// Throws InputError naming the file, line and column: a missing column, a
/// cell that is not a number, an arrival below 0 or above 100,000 h, tokens
/// out of 1 to 2^27, no rows.
std::vector<ScheduledRequest> parse_trace_csv(std::string_view text, const std::string& origin);
std::vector<ScheduledRequest> load_trace_csv(const std::string& path);

}  // namespace tpnet
