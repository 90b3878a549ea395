// tpnet expect's answer as a document: the cluster asked about, the layouts
// best for latency and for throughput, each layout's fit, TTFT and decode
// speeds with their ranges, and decode's slowdown with context
// (docs/json.md, "expect").
#include <fmt/format.h>

#include <algorithm>

#include <string>
#include <utility>
#include <vector>

#include "tpnet/usecase/expect.hpp"

namespace tpnet {
namespace {

std::string expect_layout_name(const ExpectLayout& l) {
  const std::string one = l.disaggregation ? l.disaggregation->name() : l.layout.name();
  return l.replicas > 1 ? fmt::format("{} x {}", l.replicas, one) : one;
}

std::string expect_fits_text(const ExpectLayout& l) {
  if (!l.refusal.empty()) return "no: vLLM refuses the TP";
  if (!l.fits) return fmt::format("no: {}", to_string(l.limit));
  return "yes";
}

/// "12.3 (9.8-15.1)": typical, then the slow and the fast end.
std::string expect_ranged(const ExpectedValue& v, int decimals) {
  return fmt::format("{:.{}f} ({:.{}f}-{:.{}f})", v.typical, decimals, v.slow, decimals, v.fast,
                     decimals);
}

Record expect_value_record(const std::string& key, const std::string& label, const ExpectedValue& v,
                           DisplayUnit unit, int decimals) {
  return Record{number(key + "_slow", label + " slow", v.slow, unit, decimals),
                number(key, label, v.typical, unit, decimals),
                number(key + "_fast", label + " fast", v.fast, unit, decimals)};
}

std::vector<Record> expect_decode_records(const ExpectLayout& l) {
  std::vector<Record> decode;
  decode.reserve(l.decode.size());
  for (const ExpectConcurrency& c : l.decode) {
    Record d{integer("requests", "requests", c.requests),
             integer("batch", "running on the busiest replica", c.batch),
             integer("kv_sequences", "sequences its KV cache holds",
                     static_cast<double>(c.kv_sequences))};
    for (auto& f :
         expect_value_record("per_request_tokens_per_s", "a request", c.per_request, kCount, 1)) {
      d.push_back(std::move(f));
    }
    for (auto& f : expect_value_record("aggregate_tokens_per_s", "all", c.aggregate, kCount, 1)) {
      d.push_back(std::move(f));
    }
    decode.push_back(std::move(d));
  }
  return decode;
}

Record expect_layout_row(const ExpectReport& r, std::size_t i,
                         const std::vector<int>& concurrency) {
  const ExpectLayout& l = r.layouts[i];
  const bool usable = l.fits && l.refusal.empty();
  std::string best;
  if (static_cast<int>(i) == r.best_latency) best = "latency";
  if (static_cast<int>(i) == r.best_throughput)
    best += best.empty() ? "throughput" : ", throughput";
  Record row{
      text("layout", "layout", expect_layout_name(l)),
      json_only(integer("tp", "TP", l.layout.tp)),
      json_only(integer("pp", "PP", l.layout.pp)),
      json_only(integer("replicas", "replicas", l.replicas)),
      text("fits", "fits", expect_fits_text(l)),
      json_only(flag("fits_memory", "fits in memory", l.fits)),
      json_only(text("refusal", "vLLM refuses", l.refusal)),
      number("ttft_s", "TTFT", usable ? l.ttft_s.typical : 0.0, kSeconds, 2),
      table_only(wide_only(text("", "TTFT range", usable ? expect_ranged(l.ttft_s, 2) : "-"))),
  };
  // The table: one request's speed at C=1, all requests' beyond; each
  // request's speed and the ranges in the wide table.
  // Every row has every concurrency's columns (a table and CSV take theirs
  // from the first row): a layout that does not fit or start has 0 in them.
  for (const int requests : concurrency) {
    const auto found =
        std::find_if(l.decode.begin(), l.decode.end(),
                     [&](const ExpectConcurrency& d) { return d.requests == requests; });
    ExpectConcurrency c;
    c.requests = requests;
    if (found != l.decode.end()) c = *found;
    const std::string n = std::to_string(c.requests);
    if (c.requests == 1) {
      row.push_back(table_only(number("", "C=1 tok/s", c.per_request.typical, kCount, 1)));
    } else {
      row.push_back(wide_only(table_only(
          number("", fmt::format("C={} tok/s a request", n), c.per_request.typical, kCount, 1))));
      row.push_back(
          table_only(number("", fmt::format("C={} tok/s", n), c.aggregate.typical, kCount, 0)));
    }
    row.push_back(wide_only(
        table_only(text("", fmt::format("C={} range", n), expect_ranged(c.aggregate, 0)))));
  }
  row.push_back(text("best", "best for", best));
  row.push_back(json_only(
      record("ttft", "TTFT", expect_value_record("ttft_s", "TTFT", l.ttft_s, kSeconds, 3))));
  row.push_back(json_only(records("decode", "decode", expect_decode_records(l))));
  row.push_back(json_only(number("floor_tokens_per_s", "weight-read bound, one request",
                                 l.floor_tokens_per_s, kCount, 1)));
  row.push_back(
      json_only(number("request_s", "one request alone", l.request_seconds, kSeconds, 2)));
  if (const auto& d = l.disaggregation) {
    row.push_back(json_only(
        record("disaggregation", "prefill/decode disaggregation",
               Record{integer("prefill_instances", "prefill instances", d->prefill_instances),
                      integer("decode_instances", "decode instances", d->decode_instances),
                      integer("prefill_tp", "prefill TP", d->prefill_tp),
                      integer("decode_tp", "decode TP", d->decode_tp)})));
  }
  return row;
}

}  // namespace

Document expect_document(const ExpectRequest& request, const ExpectReport& report) {
  const ExpectReport& r = report;
  Document doc;
  doc.title = fmt::format("tpnet expect: {} on {} x {} at {}, {}-token prompts, {} outputs",
                          request.model.name, request.nodes, request.node.name,
                          request.fabric.link.name, request.prompt_tokens, request.output_tokens);
  std::vector<Record> rows;
  rows.reserve(r.layouts.size());
  for (std::size_t i = 0; i < r.layouts.size(); ++i) {
    rows.push_back(expect_layout_row(r, i, request.concurrency));
  }
  auto name_of = [&](int i) {
    return i < 0 ? std::string("none fits")
                 : expect_layout_name(r.layouts[static_cast<std::size_t>(i)]);
  };
  std::vector<Record> context;
  context.reserve(r.context_slowdown.size());
  for (const auto& [tokens, rate] : r.context_slowdown) {
    context.push_back(Record{integer("context_tokens", "context", static_cast<double>(tokens)),
                             number("tokens_per_s", "decode, one request", rate, kCount, 1)});
  }
  doc.fields = {
      text("model", "model", request.model.name),
      integer("nodes", "nodes", request.nodes),
      text("node", "node", request.node.name),
      text("link", "link", request.fabric.link.name),
      text("fabric", "fabric profile", request.fabric.name),
      integer("prompt_tokens", "prompt", static_cast<double>(request.prompt_tokens)),
      integer("output_tokens", "output tokens", static_cast<double>(request.output_tokens)),
      number("accepted_tokens_per_decode", "tokens a decode forward yields", r.accepted_tokens,
             kCount, 2),
      text("best_latency", "best for one request's latency", name_of(r.best_latency)),
      text("best_throughput", "best for aggregate tokens/s", name_of(r.best_throughput)),
      text("source", "expected from", r.source),
      records("layouts", "layouts (typical; the wide table and JSON add the range)",
              std::move(rows)),
      records("context_slowdown", "decode of one request on the best-latency layout by context",
              std::move(context)),
      texts("notes", "note", r.notes),
  };
  doc.warnings = r.warnings;
  return doc;
}

}  // namespace tpnet
