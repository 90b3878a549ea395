#pragma once
// A switch plan drawn: each switch with the cages it uses, the breakout
// cable of each cage fanned out to its sub-ports, and which node sits on
// which sub-port (n1, n2, ...), spare sub-ports and inter-switch links marked.

#include <string>

#include "tpnet/usecase/switch_report.hpp"

namespace tpnet::cli {

/// Self-contained SVG of `plan`; `id` prefixes the ids inside (unique per
/// page when several are inlined).
[[nodiscard]] std::string switch_plan_svg(const SwitchPlan& plan, const std::string& id,
                                          double width = 760.0);

}  // namespace tpnet::cli
