// tpnet expect: what N nodes will give a model, layout by layout, from the
// node's public runs when the user measured nothing.

#include <memory>

#include "common.hpp"
#include "integer_flags.hpp"
#include "tpnet/base/limits.hpp"
#include "tpnet/base/quantity.hpp"
#include "tpnet/usecase/expect.hpp"

namespace tpnet::cli {
namespace {

struct ExpectOptions {
  EngineOptions engine;
  int nodes = 0;
  std::string link = "200G";
  std::string fabric = "auto";
  std::string node = std::string(kDefaultNodeName);
  MemoryOptions memory;
  std::string prompt = "8k";
  std::string output = "512";
  std::vector<int> concurrency{1, 8, 32, 64};
  AcceptedTokensFlag accepted_tokens;
  std::vector<std::string> disaggregate;
  int prefill_tp = 1;
  int decode_tp = 1;
  std::string format = "table";
};

Outcome run_expect(const ExpectOptions& o) {
  ExpectRequest req;
  req.model = load_model(o.engine);
  EngineOptions engine = o.engine;
  engine.tp = 1;  // each layout sets its own
  req.engine = to_engine(engine);
  req.node = load_node(o.node);
  req.nodes = o.nodes;
  req.fabric = to_fabric(o.fabric, to_link(o.link, "--link"), to_collective_settings(o.engine),
                         req.node.name);
  req.memory = to_memory_settings(o.memory);
  req.prompt_tokens = parse_tokens(o.prompt, InputLocation::for_key("--prompt"));
  req.output_tokens = parse_tokens(o.output, InputLocation::for_key("--output"));
  req.concurrency = o.concurrency;
  req.accepted_tokens = o.accepted_tokens.given();
  for (const std::string& text : o.disaggregate) {
    DisaggregationLayout& d = req.disaggregations.emplace_back(
        parse_disaggregation(text, InputLocation::for_key("--disaggregate")));
    d.prefill_tp = o.prefill_tp;
    d.decode_tp = o.decode_tp;
  }
  Document doc = expect_document(req, tpnet::run_expect(req));
  // The layouts' label names the flag that shows their ranges.
  for (Field& f : doc.fields) {
    if (f.key == "layouts") f.label = "layouts (typical; --wide and JSON add the range)";
  }
  return Outcome{std::move(doc), {}, 0};
}

}  // namespace

Command setup_expect(CLI::App& app) {
  auto o = std::make_shared<ExpectOptions>();
  CLI::App* sub = app.add_subcommand(
      "expect",
      "What N nodes will give: each layout's TTFT and decode tokens/s, expected from public runs");
  add_engine_options(sub, o->engine, false);
  sub->add_option("--nodes", o->nodes, "Nodes in the cluster, e.g. 2, 4 or 8")->required();
  sub->add_option("--link", o->link, "Link between the nodes (preset or rate)")
      ->default_str("200G");
  sub->add_option("--fabric", o->fabric,
                  "Fabric profile of the link: auto (the node's measured profile), nominal or a "
                  "built-in name")
      ->default_str("auto");
  add_node_option(sub, o->node);
  add_memory_options(sub, o->memory);
  sub->add_option("--prompt", o->prompt, "Prompt tokens of each request (e.g. 8k)")
      ->default_str("8k");
  sub->add_option("--output", o->output, "Output tokens of each request")->default_str("512");
  sub->add_option("--concurrency", o->concurrency, "Requests at once, e.g. 1,8,32,64")
      ->delimiter(',')
      ->default_str("1,8,32,64");
  add_accepted_tokens_option(
      sub, o->accepted_tokens,
      "Output tokens a decode forward yields per request (1 to 1 + drafts; default 1 + drafts)");
  sub->add_option("--disaggregate", o->disaggregate,
                  "Also price prefill/decode disaggregated layouts, xPyD (e.g. 2P1D,1P1D)")
      ->delimiter(',');
  sub->add_option("--prefill-tp", o->prefill_tp, "Nodes per prefill instance of --disaggregate")
      ->check(whole_number_in(1, kMaxTp))
      ->capture_default_str();
  sub->add_option("--decode-tp", o->decode_tp, "Nodes per decode instance of --disaggregate")
      ->check(whole_number_in(1, kMaxTp))
      ->capture_default_str();
  add_format_option(sub, o->format);
  return Command{sub, [o] { return run_expect(*o); },
                 std::shared_ptr<const std::string>(o, &o->format)};
}

}  // namespace tpnet::cli
