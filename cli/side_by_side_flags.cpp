#include "side_by_side_flags.hpp"

#include "tpnet/io/fabric_catalog.hpp"
#include "tpnet/io/price_yaml.hpp"

namespace tpnet::cli {

void add_side_by_side_options(CLI::App* app, SideBySideOptions& o) {
  const std::string group = "Side by side (expected from the node's public runs)";
  app->add_option("--nodes", o.nodes,
                  "Set the layouts side by side on a cluster of N nodes: replicas, expected TTFT "
                  "and tokens/s, the nodes' cost; one-node replicas are added")
      ->group(group);
  app->add_option("--disaggregate", o.disaggregations,
                  "xPyD prefill/decode layouts to set beside them, e.g. 2P1D, each at every --tp")
      ->delimiter(',')
      ->group(group);
  add_price_file_options(app, o.prices);
}

void apply_side_by_side_options(CompareRequest& request, const SideBySideOptions& o,
                                const CollectiveSettings& collective) {
  request.collective = collective;
  if (o.nodes != 0) request.cluster_nodes = o.nodes;
  for (const auto& text : o.disaggregations) {
    request.disaggregations.push_back(
        parse_disaggregation(text, InputLocation::for_key("--disaggregate")));
  }
  if (!request.cluster_nodes && request.disaggregations.empty()) {
    if (!o.prices.files.empty()) {
      throw InputError("prices cost the side by side: give --nodes or --disaggregate with them",
                       InputLocation::for_key("--prices"));
    }
    return;
  }
  request.fabric_catalog = builtin_fabric_profiles();
  request.prices = resolve_prices(o.prices.files);
  request.today = price_date(o.prices);
}

}  // namespace tpnet::cli
