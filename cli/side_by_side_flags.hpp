#pragma once
// compare's side by side (docs/formulas.md s.10.1): the cluster the layouts
// are set on, the xPyD layouts beside them, and the prices of the nodes.

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

#include "price_flags.hpp"
#include "tpnet/usecase/compare.hpp"

namespace tpnet::cli {

struct SideBySideOptions {
  int nodes = 0;                             ///< --nodes; 0: no cluster
  std::vector<std::string> disaggregations;  ///< --disaggregate 2P1D,1P1D
  PriceOptions prices;
};

/// --nodes and --disaggregate in their own group, and the price flags
/// (add_price_file_options).
void add_side_by_side_options(CLI::App* app, SideBySideOptions& options);

/// The cluster, the xPyD layouts, the collective settings, the built-in
/// fabric profiles and, with a
/// cluster or xPyD, the price catalog with --prices on top, into `request`.
void apply_side_by_side_options(CompareRequest& request, const SideBySideOptions& options,
                                const CollectiveSettings& collective);

}  // namespace tpnet::cli
