// compare's layouts side by side on a cluster: what the node's public runs
// say each gives (expected TTFT and decode speed), its replicas and the
// nodes' cost, best first (docs/formulas.md s.10.1).
#include <fmt/format.h>

#include <algorithm>

#include "tpnet/base/limits.hpp"
#include "tpnet/usecase/compare.hpp"

namespace tpnet {
namespace {

/// The link's own profile, else the node's built-in switch profile of it,
/// else its nominal rate.
FabricProfile expectation_profile(const CompareRequest& r, const ProfiledLink& link) {
  if (link.fabric) return *link.fabric;
  if (r.fabric_catalog.empty()) return nominal_fabric(link.link, r.collective);
  return default_fabric(r.fabric_catalog, link.link, r.collective, r.node.name,
                        FabricTopology::switched);
}

/// The layout's row of run_expect on `profile`; refusal says why there is none.
std::optional<ExpectLayout> expect_one(const CompareRequest& r, const CompareExpectation& e,
                                       const ProfiledLink& link, std::string& refusal) {
  ExpectRequest ask;
  ask.model = r.model;
  ask.engine = r.engine;
  ask.node = r.node;
  ask.nodes = e.nodes * e.replicas;
  ask.fabric = expectation_profile(r, link);
  ask.memory = r.memory;
  const PrefillScenario& first = r.prompts.front();
  ask.prompt_tokens = first.prompt.tokens_each;
  ask.output_tokens = first.output_tokens.value_or(kDefaultOutputTokens);
  ask.concurrency = {1, kSideBySideRequests};
  ask.accepted_tokens = r.accepted_tokens;
  const SingleLayoutExpectation expected = expect_single_layout(ask, e.layout, e.disaggregation);
  if (expected.refused) {
    refusal = expected.refused->detail();
  } else if (!expected.row) {
    refusal = "nothing is expected of it from the node's public runs";
  } else if (!expected.row->refusal.empty()) {
    refusal = expected.row->refusal;
  } else if (!expected.row->fits) {
    refusal = fmt::format("{} does not fit in {}'s memory", e.name, r.node.name);
  } else if (expected.row->decode.size() == 2) {
    return expected.row;
  }
  return std::nullopt;
}

std::vector<CompareExpectation> candidates(const CompareRequest& r) {
  std::vector<CompareExpectation> out;
  std::vector<int> tps;
  std::vector<ParallelLayout> layouts = r.layouts;
  // On a cluster, one-node replicas stand beside the grid's layouts (the
  // grid leaves them out: they send nothing over the network).
  if (r.cluster_nodes) layouts.insert(layouts.begin(), ParallelLayout{1, 1, 1});
  for (const auto& layout : layouts) {
    if (std::any_of(out.begin(), out.end(),
                    [&](const CompareExpectation& e) { return e.layout == layout; })) {
      continue;
    }
    CompareExpectation e;
    e.layout = layout;
    e.nodes = layout.nodes();
    out.push_back(std::move(e));
    if (std::find(tps.begin(), tps.end(), layout.tp) == tps.end()) tps.push_back(layout.tp);
  }
  for (const auto& d : r.disaggregations) {
    for (const int tp : tps) {
      CompareExpectation e;
      e.disaggregation = DisaggregationLayout{d.prefill_instances, d.decode_instances, tp, tp};
      e.layout = ParallelLayout{tp, 1, 1};
      e.nodes = e.disaggregation->nodes();
      out.push_back(std::move(e));
    }
  }
  return out;
}

}  // namespace

std::optional<double> CompareExpectation::throughput() const {
  if (!expected || expected->decode.empty()) return std::nullopt;
  return expected->decode.back().aggregate.typical;
}

std::vector<CompareExpectation> compare_expectations(const CompareRequest& r) {
  if (!r.cluster_nodes && r.disaggregations.empty()) return {};
  if (r.cluster_nodes) {
    require_field(
        *r.cluster_nodes >= 1 && *r.cluster_nodes <= kMaxClusterNodes, "cluster.nodes",
        fmt::format("{} is out of range; allowed 1 to {}", *r.cluster_nodes, kMaxClusterNodes));
  }
  require_field(r.node.expected.has_value(), "node",
                fmt::format("layouts side by side are what public runs on the node give, and {} "
                            "has no expected rates in its catalog entry; give a node that has them",
                            r.node.name));
  require_field(!r.from.empty() && !r.to.empty() && !r.prompts.empty(), "links.from",
                "layouts side by side need a link to go from, one to go to and a prompt");
  std::vector<CompareExpectation> out = candidates(r);
  for (auto& e : out) {
    if (r.cluster_nodes) {
      if (*r.cluster_nodes % e.nodes != 0) {
        e.name = e.disaggregation ? e.disaggregation->name() : e.layout.name();
        e.refusal =
            fmt::format("{} nodes do not divide into instances of {}", *r.cluster_nodes, e.nodes);
        continue;
      }
      e.replicas = *r.cluster_nodes / e.nodes;
    }
    const std::string one = e.disaggregation ? e.disaggregation->name() : e.layout.name();
    e.name = e.replicas > 1 ? fmt::format("{} x {}", e.replicas, one) : one;
    e.expected = expect_one(r, e, r.to.front(), e.refusal);
    if (e.expected) {
      std::string ignored;
      if (const auto from = expect_one(r, e, r.from.front(), ignored)) {
        e.ttft_from_s = from->ttft_s.typical;
      }
    }
    if (r.prices) {
      e.cost = price_purchase(Purchase{r.node.name, e.nodes * e.replicas, {}, 0, {}}, *r.prices,
                              r.today);
      if (const auto throughput = e.throughput()) {
        e.tokens_per_dollar = users_per_dollar(*throughput, *e.cost);
      }
    }
  }
  const bool by_money = r.prices.has_value();
  std::stable_sort(
      out.begin(), out.end(), [by_money](const CompareExpectation& a, const CompareExpectation& b) {
        if (by_money && a.tokens_per_dollar.has_value() != b.tokens_per_dollar.has_value()) {
          return a.tokens_per_dollar.has_value();
        }
        if (by_money && a.tokens_per_dollar) {
          return *a.tokens_per_dollar > *b.tokens_per_dollar;
        }
        const auto ta = a.throughput();
        const auto tb = b.throughput();
        if (ta.has_value() != tb.has_value()) return ta.has_value();
        return ta && *ta > *tb;
      });
  return out;
}

}  // namespace tpnet

namespace tpnet {

std::vector<std::string> side_by_side_answer(const CompareReport& report) {
  if (report.expectations.empty() || !report.expectations.front().expected) return {};
  const CompareExpectation& best = report.expectations.front();
  const ExpectLayout& e = *best.expected;
  const CompareRequest& r = report.request;
  std::string on = r.cluster_nodes ? fmt::format(" on {} nodes", *r.cluster_nodes) : std::string();
  std::string line = fmt::format(
      "Expected{}, {} gives the most tokens/s{}: TTFT {:.2f} s at {} ({}), {:.1f} tok/s a request "
      "alone, {:.0f} tok/s at {} requests",
      on, best.name, best.tokens_per_dollar ? " per dollar" : "", e.ttft_s.typical,
      r.to.front().link.name, r.prompts.front().name, e.decode.front().per_request.typical,
      e.decode.back().aggregate.typical, kSideBySideRequests);
  if (best.layout.ep > best.layout.tp || best.disaggregation) line += " (not validated on Spark)";
  return {line + "."};
}

Field side_by_side_field(const CompareReport& report) {
  const CompareRequest& r = report.request;
  std::vector<Record> rows;
  const std::string currency =
      r.prices && !report.expectations.empty() && report.expectations.front().cost
          ? report.expectations.front().cost->currency
          : std::string();
  for (const auto& e : report.expectations) {
    const bool has = e.expected.has_value();
    const auto cell = [has](const std::string& value) { return has ? value : std::string("n/a"); };
    Record rec{
        text("layout", "layout", e.name),
        integer("nodes", "nodes each", e.nodes),
        json_only(integer("replicas", "replicas", e.replicas)),
        json_only(text("kind", "kind",
                       e.disaggregation            ? "pd"
                       : e.layout.ep > e.layout.tp ? "ep"
                       : e.layout.pp > 1           ? "pp"
                       : e.layout.nodes() == 1     ? "replicas"
                                                   : "tp")),
        json_only(number("expected_ttft_s", "TTFT", has ? e.expected->ttft_s.typical : -1.0,
                         kSeconds, 3)),
        table_only(
            text("", "TTFT", cell(has ? fmt::format("{:.2f} s", e.expected->ttft_s.typical) : ""))),
        json_only(number("expected_ttft_from_s", "TTFT at the faster link",
                         e.ttft_from_s.value_or(-1.0), kSeconds, 3)),
        table_only(text("", fmt::format("vs {}", r.from.front().link.name),
                        has && e.ttft_from_s
                            ? fmt::format("{:+.2f} s", e.expected->ttft_s.typical - *e.ttft_from_s)
                            : "n/a")),
        json_only(number("expected_c1_tokens_per_s", "tok/s 1",
                         has ? e.expected->decode.front().per_request.typical : -1.0, kCount, 1)),
        table_only(
            text("", "tok/s 1",
                 cell(has ? fmt::format("{:.1f}", e.expected->decode.front().per_request.typical)
                          : ""))),
        json_only(number("expected_aggregate_tokens_per_s",
                         fmt::format("tok/s {}", kSideBySideRequests),
                         e.throughput().value_or(-1.0), kCount, 0)),
        table_only(text("", fmt::format("tok/s {}", kSideBySideRequests),
                        cell(has ? fmt::format("{:.0f}", *e.throughput()) : ""))),
    };
    if (r.prices) {
      rec.push_back(
          json_only(money("nodes_cost", "nodes cost", e.cost ? e.cost->total : -1.0, currency)));
      rec.push_back(table_only(
          text("", "nodes cost",
               e.cost ? fmt::format("{}{:.0f} {}", e.cost->complete ? "" : ">= ", e.cost->total,
                                    e.cost->currency)
                      : "n/a")));
      rec.push_back(json_only(number("tokens_per_s_per_cost", "tok/s per money unit",
                                     e.tokens_per_dollar.value_or(-1.0), kCount, 9)));
      rec.push_back(table_only(text(
          "", fmt::format("per 1000 {}", currency),
          e.tokens_per_dollar ? fmt::format("{:.2f}", *e.tokens_per_dollar * 1000.0) : "n/a")));
    }
    rec.push_back(note_unless_wide(text("refusal", "why none", e.refusal)));
    rows.push_back(std::move(rec));
  }
  const std::string label =
      fmt::format("side by side{}, expected from public runs on {} at {}",
                  r.cluster_nodes ? fmt::format(" on {} nodes", *r.cluster_nodes) : "", r.node.name,
                  r.to.front().link.name);
  return records("side_by_side", label, std::move(rows));
}

}  // namespace tpnet
