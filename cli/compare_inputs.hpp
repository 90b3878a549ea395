#pragma once
// What tpnet compare reads from its flags beyond plain values: the grid's
// lists (shown in --help as typed), its layouts, its prompts, and the retired
// --reserved-memory it still refuses with a pointer to what replaced it.

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <CLI/CLI.hpp>

#include <string>
#include <vector>

#include "tpnet/usecase/compare.hpp"

namespace tpnet::cli {

/// A comma-separated list flag in `group` whose --help default is the list
/// as it is typed (2,4,8,16), from `values`' own value.
template <typename T>
void add_list_option(CLI::App* app, const std::string& name, std::vector<T>& values,
                     const std::string& help, const std::string& group) {
  CLI::Option* option = app->add_option(name, values, help)->delimiter(',')->group(group);
  if (!values.empty()) option->default_str(fmt::format("{}", fmt::join(values, ",")));
}

/// Every TP x PP x EP of the lists, TP varying fastest.
[[nodiscard]] std::vector<ParallelLayout> grid_layouts(const std::vector<int>& tps,
                                                       const std::vector<int>& pps,
                                                       const std::vector<int>& eps);

/// One scenario per --prompt value, named as typed.
[[nodiscard]] std::vector<PrefillScenario> prompt_scenarios(
    const std::vector<std::string>& prompts);

/// --reserved-memory, hidden: accepted by the parser so that refuse_reserved_memory
/// can say what replaced it.
void add_retired_reserved_memory_option(CLI::App* app, std::string& value);

/// Throws InputError naming --reserved-memory when it was given.
void refuse_reserved_memory(const std::string& value);

}  // namespace tpnet::cli
