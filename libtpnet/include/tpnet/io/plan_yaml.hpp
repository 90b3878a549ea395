#pragma once
/// Deployment plan files for `tpnet check` (schema: docs/plan.md).

#include <string>
#include <string_view>

#include "tpnet/base/error.hpp"
#include "tpnet/usecase/serving_plan.hpp"

namespace tpnet {

/// Parses a plan; `origin` is its path, against which the model and baseline
/// paths in it are resolved. Unknown keys are errors naming their line; the
/// node defaults to the catalog's dgx-spark.
ServingPlan parse_plan_yaml(std::string_view text, const std::string& origin);

ServingPlan load_serving_plan(const std::string& path);

}  // namespace tpnet
