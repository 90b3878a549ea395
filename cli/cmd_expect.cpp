// tpnet expect: what N nodes will give a model, layout by layout, from the
// node's public runs when the user measured nothing.

#include <fmt/format.h>

#include <memory>

#include "common.hpp"
#include "tpnet/base/quantity.hpp"
#include "tpnet/usecase/expect.hpp"
#include "tpnet/usecase/predict.hpp"

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
  std::string format = "table";
};

std::string layout_name(const ExpectLayout& l) {
  const std::string one = l.layout.name();
  return l.replicas > 1 ? fmt::format("{} x {}", l.replicas, one) : one;
}

std::string fits_text(const ExpectLayout& l) {
  if (!l.refusal.empty()) return "no: vLLM refuses the TP";
  if (!l.fits) return fmt::format("no: {}", to_string(l.limit));
  return "yes";
}

/// "12.3 (9.8-15.1)": typical, then the slow and the fast end.
std::string ranged(const ExpectedValue& v, int decimals) {
  return fmt::format("{:.{}f} ({:.{}f}-{:.{}f})", v.typical, decimals, v.slow, decimals, v.fast,
                     decimals);
}

Record value_record(const std::string& key, const std::string& label, const ExpectedValue& v,
                    DisplayUnit unit, int decimals) {
  return Record{number(key + "_slow", label + " slow", v.slow, unit, decimals),
                number(key, label, v.typical, unit, decimals),
                number(key + "_fast", label + " fast", v.fast, unit, decimals)};
}

Record layout_row(const ExpectReport& r, std::size_t i) {
  const ExpectLayout& l = r.layouts[i];
  const bool usable = l.fits && l.refusal.empty();
  std::string best;
  if (static_cast<int>(i) == r.best_latency) best = "latency";
  if (static_cast<int>(i) == r.best_throughput)
    best += best.empty() ? "throughput" : ", throughput";
  Record row{
      text("layout", "layout", layout_name(l)),
      json_only(integer("tp", "TP", l.layout.tp)),
      json_only(integer("pp", "PP", l.layout.pp)),
      json_only(integer("replicas", "replicas", l.replicas)),
      text("fits", "fits", fits_text(l)),
      json_only(flag("fits_memory", "fits in memory", l.fits)),
      json_only(text("refusal", "vLLM refuses", l.refusal)),
      number("ttft_s", "TTFT", usable ? l.ttft_s.typical : 0.0, kSeconds, 2),
      table_only(wide_only(text("", "TTFT range", usable ? ranged(l.ttft_s, 2) : "-"))),
  };
  // The table: one request's speed at C=1, all requests' beyond; each
  // request's speed and the ranges under --wide.
  for (const ExpectConcurrency& c : l.decode) {
    const std::string n = std::to_string(c.requests);
    if (c.requests == 1) {
      row.push_back(table_only(number("", "C=1 tok/s", c.per_request.typical, kCount, 1)));
    } else {
      row.push_back(wide_only(
          table_only(number("", "C=" + n + " tok/s a request", c.per_request.typical, kCount, 1))));
      row.push_back(table_only(number("", "C=" + n + " tok/s", c.aggregate.typical, kCount, 0)));
    }
    row.push_back(wide_only(table_only(text("", "C=" + n + " range", ranged(c.aggregate, 0)))));
  }
  row.push_back(text("best", "best for", best));
  std::vector<Record> decode;
  for (const ExpectConcurrency& c : l.decode) {
    Record d{integer("requests", "requests", c.requests),
             integer("batch", "running on the busiest replica", c.batch),
             integer("kv_sequences", "sequences its KV cache holds",
                     static_cast<double>(c.kv_sequences))};
    for (auto& f :
         value_record("per_request_tokens_per_s", "a request", c.per_request, kCount, 1)) {
      d.push_back(std::move(f));
    }
    for (auto& f : value_record("aggregate_tokens_per_s", "all", c.aggregate, kCount, 1)) {
      d.push_back(std::move(f));
    }
    decode.push_back(std::move(d));
  }
  row.push_back(
      json_only(record("ttft", "TTFT", value_record("ttft_s", "TTFT", l.ttft_s, kSeconds, 3))));
  row.push_back(json_only(records("decode", "decode", std::move(decode))));
  row.push_back(json_only(number("floor_tokens_per_s", "weight-read bound, one request",
                                 l.floor_tokens_per_s, kCount, 1)));
  row.push_back(
      json_only(number("request_s", "one request alone", l.request_seconds, kSeconds, 2)));
  return row;
}

Outcome run_expect(const ExpectOptions& o) {
  ExpectRequest req;
  req.model = load_model(o.engine);
  EngineOptions engine = o.engine;
  engine.tp = 1;  // each layout sets its own
  req.engine = to_engine(engine);
  req.node = load_node(o.node);
  req.nodes = o.nodes;
  req.link = to_link(o.link, "--link", o.engine);
  req.fabric = to_fabric(o.fabric, req.link, req.node.name);
  req.memory = to_memory_settings(o.memory);
  req.prompt_tokens = parse_tokens(o.prompt, InputLocation::for_key("--prompt"));
  req.output_tokens = parse_tokens(o.output, InputLocation::for_key("--output"));
  req.concurrency = o.concurrency;
  req.accepted_tokens = o.accepted_tokens.given();
  const ExpectReport r = tpnet::run_expect(req);

  Document doc;
  doc.title =
      fmt::format("tpnet expect: {} on {} x {} at {}, {}-token prompts, {} outputs", req.model.name,
                  req.nodes, req.node.name, req.link.name, req.prompt_tokens, req.output_tokens);
  std::vector<Record> rows;
  for (std::size_t i = 0; i < r.layouts.size(); ++i) rows.push_back(layout_row(r, i));
  auto name_of = [&](int i) {
    return i < 0 ? std::string("none fits") : layout_name(r.layouts[static_cast<std::size_t>(i)]);
  };
  std::vector<Record> context;
  for (const auto& [tokens, rate] : r.context_slowdown) {
    context.push_back(Record{integer("context_tokens", "context", static_cast<double>(tokens)),
                             number("tokens_per_s", "decode, one request", rate, kCount, 1)});
  }
  doc.fields = {
      text("model", "model", req.model.name),
      integer("nodes", "nodes", req.nodes),
      text("node", "node", req.node.name),
      text("link", "link", req.link.name),
      text("fabric", "fabric profile", req.fabric.name),
      integer("prompt_tokens", "prompt", static_cast<double>(req.prompt_tokens)),
      integer("output_tokens", "output tokens", static_cast<double>(req.output_tokens)),
      number("accepted_tokens_per_decode", "tokens a decode forward yields", r.accepted_tokens,
             kCount, 2),
      text("best_latency", "best for one request's latency", name_of(r.best_latency)),
      text("best_throughput", "best for aggregate tokens/s", name_of(r.best_throughput)),
      text("source", "expected from", r.source),
      records("layouts", "layouts (typical; --wide and JSON add the range)", std::move(rows)),
      records("context_slowdown", "decode of one request on the best-latency layout by context",
              std::move(context)),
      texts("notes", "note", r.notes),
  };
  doc.warnings = r.warnings;
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
  add_format_option(sub, o->format);
  return Command{sub, [o] { return run_expect(*o); },
                 std::shared_ptr<const std::string>(o, &o->format)};
}

}  // namespace tpnet::cli
