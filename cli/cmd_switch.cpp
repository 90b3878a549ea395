// tpnet switch: which switches take N nodes at a per-node speed, with a port
// plan (breakouts, cables, spare ports), multi-switch and switchless options.

#include <memory>

#include "common.hpp"
#include "tpnet/base/quantity.hpp"
#include "tpnet/io/node_catalog.hpp"
#include "tpnet/io/switch_catalog.hpp"
#include "tpnet/usecase/switch_report.hpp"

namespace tpnet::cli {
namespace {

struct SwitchOptions {
  long long nodes = 0;
  std::string speed;
  std::string switches = "all";
  std::string node = "dgx-spark";
  std::string format = "table";
};

std::vector<SwitchSpec> chosen_switches(const std::string& text) {
  if (text == "all") return builtin_switches();
  std::vector<SwitchSpec> out;
  std::size_t start = 0;
  while (start <= text.size()) {
    const auto comma = text.find(',', start);
    const std::string name =
        text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    out.push_back(resolve_switch(name));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

Outcome run_switch(const SwitchOptions& o) {
  SwitchRequest request;
  request.nodes = o.nodes;
  request.speed = parse_bit_rate(o.speed, InputLocation::for_key("--speed"));
  request.node = resolve_node(o.node);
  request.switches = chosen_switches(o.switches);
  const SwitchPlanReport r = tpnet::run_switch(request);
  return Outcome{switch_report_document(r), {}, 0};
}

}  // namespace

Command setup_switch(CLI::App& app) {
  auto options = std::make_shared<SwitchOptions>();
  CLI::App* sub = app.add_subcommand(
      "switch", "Which switches take N nodes at a per-node speed: port plans, cables, traps");
  sub->add_option("--nodes", options->nodes, "Nodes to connect, 1 to 100,000")->required();
  sub->add_option("--speed", options->speed, "Per-node link speed, e.g. 100G or 200G")->required();
  sub->add_option("--switch", options->switches,
                  "A built-in switch, several separated by commas, a switch YAML file, or all")
      ->default_str("all");
  sub->add_option("--node", options->node, "A built-in node or a node YAML file")
      ->default_str("dgx-spark");
  add_format_option(sub, options->format);
  return Command{sub, [options] { return run_switch(*options); },
                 std::shared_ptr<const std::string>(options, &options->format)};
}

}  // namespace tpnet::cli
