// tpnet plan's answer and document: what to buy and what it costs first,
// then every layout ranked with its switches, memory, TTFT, expected speed,
// cost and served users, and what the faster link buys (docs/json.md, "plan").
#include <fmt/format.h>

#include "tpnet/usecase/plan_search.hpp"

namespace tpnet {
namespace {

/// The table's switches cell, short enough that the columns beside it fit 100
/// characters: the full description (a ring's cables, why TP1 buys none, a
/// pair's inter-switch link) is in JSON and in the row's note.
std::string switches_cell(const Fabric& fabric) {
  switch (fabric.topology) {
    case FabricTopology::none:
      return "none";
    case FabricTopology::direct:
      return "direct cable";
    case FabricTopology::ring:
      return "ring";
    case FabricTopology::switched:
      break;
  }
  return fmt::format("{} x {}", fabric.switches, fabric.switch_name);
}

}  // namespace

std::vector<std::string> plan_answer(const PlanSearchReport& report) {
  if (report.options.empty()) return {};
  const PlanOption& best = report.options.front();
  std::vector<std::string> out;
  if (!best.usable) {
    out.push_back(fmt::format("No layout is usable; the best, {} at {}: {}.", best.layout_name(),
                              best.speed.name, best.reason));
    return out;
  }
  const bool no_fabric = !best.fabric || best.fabric->topology == FabricTopology::none;
  if (no_fabric) {
    out.push_back(fmt::format("Buy no fabric and run {}: the replicas exchange nothing.",
                              best.layout_name()));
  } else {
    out.push_back(fmt::format("Buy {} and run {} at {} per node.", best.fabric->description,
                              best.layout_name(), best.speed.name));
  }
  if (best.cost && !best.cost->currency.empty()) {
    const PlanCost& c = *best.cost;
    out.push_back(fmt::format("It costs {}{:.0f} {} ({:.0f} {} per node){}.",
                              c.complete ? "" : "at least ", c.total, c.currency, c.per_node,
                              c.currency, c.complete ? "" : ", not counting what has no price"));
  }
  // Ranked by what layouts give, the answer says what this one gives.
  if ((report.objective == PlanObjective::tokens_per_dollar ||
       report.objective == PlanObjective::throughput) &&
      best.expected) {
    const ExpectLayout& e = *best.expected;
    out.push_back(fmt::format(
        "Expected from public runs on the node: TTFT {:.2f} s, {:.1f} tok/s a request alone, "
        "{:.0f} tok/s at {} requests{}.",
        e.ttft_s.typical, e.decode.front().per_request.typical, e.decode.back().aggregate.typical,
        kPlanExpectedRequests,
        best.family == LayoutFamily::ep || best.family == LayoutFamily::disaggregated
            ? " (not validated on Spark)"
            : ""));
  }
  if (no_fabric) return out;
  std::string ttft = fmt::format("Extra TTFT against {}: at most {:+.2f} s a request",
                                 report.reference.name, best.worst_extra_ttft.value());
  if (best.worst_predicted_extra_ttft) {
    ttft += fmt::format(", {:+.2f} s predicted", best.worst_predicted_extra_ttft->value());
  }
  out.push_back(ttft + ".");
  return out;
}

Document plan_document(const PlanSearchRequest& in, const PlanSearchReport& report) {
  const ModelArch& model = in.model;

  const bool ranked_by_users = report.capacity.has_value() || !in.users_per_instance.empty();
  // Side by side with other kinds of layout, what each is expected to give is
  // what tells them apart: shown in the table, not only the wide one.
  const bool families = in.beyond_tp();
  // Beside them, the bound's columns are detail: the wide table keeps them.
  const auto bound_column = [families](Field field) {
    return families ? wide_only(std::move(field)) : std::move(field);
  };
  std::vector<Record> rows;
  for (const auto& r : report.options) {
    Record rec{
        integer("rank", "rank", r.rank),
        text("layout", "layout", r.layout_name()),
        json_only(integer("instances", "instances", r.instances)),
        json_only(integer("tp", "tp", r.tp)),
        text("speed", "speed", r.speed.name),
        json_only(number("speed_bps", "speed", r.speed.rate.bits_per_second(), kGbps, 0)),
        json_only(text("fabric", "switches", r.fabric ? r.fabric->description : "none carries it")),
        table_only(text("", "switches", r.fabric ? switches_cell(*r.fabric) : "none carries it")),
        json_only(integer("switches", "switch count", r.fabric ? r.fabric->switches : -1)),
        json_only(text("topology", "topology",
                       r.fabric ? std::string(to_string(r.fabric->topology)) : "none carries it")),
        wide_only(text("fabric_profile", "priced on",
                       r.fabric && r.fabric->profile ? r.fabric->profile->name : "-")),
        json_only(texts("fabric_notes", "fabric notes",
                        r.fabric ? r.fabric->notes : std::vector<std::string>{})),
        json_only(flag("fits_memory", "fits", r.fits_memory)),
        bound_column(table_only(text("", "fits", r.fits_memory ? "yes" : "NO"))),
        wide_only(number("weights_per_node_bytes", "weights/node", r.memory.weights_bytes.count(),
                         kBytesGB, 1)),
        wide_only(number("kv_cache_bytes", "KV cache/node", r.memory.kv_cache_bytes.count(),
                         kBytesGB, 1)),
        bound_column(signed_number("worst_extra_ttft_s", "extra TTFT", r.worst_extra_ttft.value(),
                                   kSeconds, 2)),
        json_only(
            number("mean_extra_ttft_s", "mean extra TTFT", r.mean_extra_ttft.value(), kSeconds, 3)),
    };
    if (families) {
      // After the layout, which names the row in the table's notes.
      rec.insert(rec.begin() + 2,
                 json_only(text("family", "kind", std::string(to_string(r.family)))));
      rec.push_back(json_only(text("layout_refusal", "refused", r.layout_refusal)));
      // A layout that cannot run has no prediction: n/a, not +0.00 s.
      rec.push_back(json_only(
          signed_number("worst_predicted_extra_ttft_s", "predicted",
                        r.worst_predicted_extra_ttft.value_or(Seconds(0.0)).value(), kSeconds, 2)));
      rec.push_back(wide_only(
          table_only(text("", "predicted",
                          r.worst_predicted_extra_ttft
                              ? fmt::format("{:+.2f} s", r.worst_predicted_extra_ttft->value())
                              : "n/a"))));
    } else {
      rec.push_back(signed_number("worst_predicted_extra_ttft_s", "predicted",
                                  r.worst_predicted_extra_ttft.value_or(Seconds(0.0)).value(),
                                  kSeconds, 2));
    }
    // What the layout is expected to give (tpnet expect): every row alike,
    // -1 where nothing is expected (no fit, or a node without rates).
    {
      const auto& e = r.expected;
      const bool has = e.has_value() && e->decode.size() == 2;
      const auto value = [&](Field field, std::string label, std::string cell) {
        if (!families) return wide_only(std::move(field));
        // Side by side with other kinds of layout, what each gives is what
        // tells them apart: a table column, n/a where nothing is expected.
        rec.push_back(table_only(text("", std::move(label), has ? std::move(cell) : "n/a")));
        return json_only(std::move(field));
      };
      rec.push_back(value(
          number("expected_ttft_s", "expected TTFT", has ? e->ttft_s.typical : -1.0, kSeconds, 2),
          "TTFT", has ? fmt::format("{:.2f} s", e->ttft_s.typical) : ""));
      rec.push_back(value(number("expected_c1_tokens_per_s", "expected C=1 tok/s",
                                 has ? e->decode[0].per_request.typical : -1.0, kCount, 1),
                          "tok/s 1",
                          has ? fmt::format("{:.1f}", e->decode[0].per_request.typical) : ""));
      rec.push_back(value(number("expected_aggregate_tokens_per_s",
                                 fmt::format("expected C={} tok/s", kPlanExpectedRequests),
                                 has ? e->decode[1].aggregate.typical : -1.0, kCount, 0),
                          fmt::format("tok/s {}", kPlanExpectedRequests),
                          has ? fmt::format("{:.0f}", e->decode[1].aggregate.typical) : ""));
    }
    if (in.baseline) {
      rec.push_back(
          wide_only(signed_number("worst_ttft_increase_pct", "TTFT increase",
                                  r.worst_ttft_increase.value_or(0.0) * 100.0, kPercent, 1)));
    }
    if (r.cost) {
      const PlanCost& c = *r.cost;
      rec.push_back(json_only(text("currency", "currency", c.currency)));
      rec.push_back(json_only(money("cost_total", "cost", c.total, c.currency)));
      // What is priced is a floor when a part has no price: the table says so.
      // Side by side with other kinds, the column must stay narrow enough to be shown.
      rec.push_back(table_only(text("", "cost",
                                    fmt::format("{}{:.0f} {}",
                                                c.complete ? ""
                                                : families ? ">= "
                                                           : "at least ",
                                                c.total, c.currency))));
      // The cost counts only what has a price: say so in the row, not only in JSON.
      rec.push_back(bound_column(table_only(text("", "all priced", c.complete ? "yes" : "no"))));
      rec.push_back(json_only(money("cost_nodes", "nodes cost", c.nodes, c.currency)));
      rec.push_back(json_only(money("cost_switches", "switches cost", c.switches, c.currency)));
      rec.push_back(json_only(money("cost_cables", "cables cost", c.cables, c.currency)));
      rec.push_back(wide_only(money("cost_per_node", "cost/node", c.per_node, c.currency)));
      rec.push_back(json_only(flag("cost_complete", "every price known", c.complete)));
      rec.push_back(json_only(texts("unpriced", "price unknown", c.unpriced)));
      if (families) {
        // -1 where nothing is expected or the bill is incomplete.
        rec.push_back(json_only(number("tokens_per_s_per_cost", "tok/s per money unit",
                                       r.tokens_per_dollar.value_or(-1.0), kCount, 9)));
        rec.push_back(table_only(text(
            "", fmt::format("per 1000 {}", c.currency),
            r.tokens_per_dollar ? fmt::format("{:.2f}", *r.tokens_per_dollar * 1000.0) : "n/a")));
      }
    }
    if (ranked_by_users) {
      // Every row has the same columns (CSV takes its header from the first):
      // -1 where the sweeps measured no config of this TP, or the bill is incomplete.
      rec.push_back(json_only(number("users", "served users", r.users.value_or(-1.0), kCount, 1)));
      rec.push_back(table_only(
          text("", "served users", r.users ? fmt::format("{:.0f}", *r.users) : "not measured")));
      rec.push_back(json_only(number("users_per_cost", "users per money unit",
                                     r.users_per_dollar.value_or(-1.0), kCount, 9)));
      rec.push_back(table_only(
          text("", "users per 1000",
               r.users_per_dollar ? fmt::format("{:.3f}", *r.users_per_dollar * 1000.0) : "n/a")));
    }
    rec.push_back(json_only(flag("within_budget", "within budget", r.within_budget)));
    rec.push_back(bound_column(flag("usable", "usable", r.usable)));
    rec.push_back(note_unless_wide(text("reason", "why", r.reason)));
    rows.push_back(std::move(rec));
  }
  std::string prompts;
  for (const auto& p : in.workload.prompts) prompts += (prompts.empty() ? "" : ", ") + p.name;

  Document doc;
  doc.answer = plan_answer(report);
  doc.title = fmt::format("tpnet plan: {} on {} x {} ({} workload: {})", model.name, in.nodes,
                          in.node.name, in.workload.name, prompts);
  doc.fields = {text("model", "model", model.name), integer("nodes", "nodes", in.nodes),
                text("node", "node", in.node.name), text("workload", "workload", in.workload.name),
                text("reference", "extra TTFT against", report.reference.name)};
  if (report.reference_profile) {
    doc.fields.push_back(
        text("reference_profile", "predicted against", describe(*report.reference_profile)));
  }
  doc.fields.push_back(text("objective", "ranked by", std::string(to_string(report.objective))));
  if (!report.options.empty() && report.options.front().usable) {
    const PlanOption& best = report.options.front();
    doc.fields.push_back(text("recommendation", "recommended", best.reason));
    if (best.cost && !best.cost->currency.empty()) {
      const PlanCost& c = *best.cost;
      // A bill with an unpriced part is a floor, and says what to get quoted.
      std::string line =
          fmt::format("{}{:.0f} {} ({:.0f} {} per node)", c.complete ? "" : "at least ", c.total,
                      c.currency, c.per_node, c.currency);
      for (std::size_t i = 0; i < c.unpriced.size(); ++i) {
        line += (i == 0 ? "; get a quote for " : ", ") + c.unpriced[i];
      }
      doc.fields.push_back(text("recommended_cost", "its cost", line));
    }
  }
  doc.fields.push_back(records("options", "options, best first", std::move(rows)));
  std::vector<Record> trades;
  std::vector<std::string> trade_sentences;
  for (const auto& t : speed_trades(report)) {
    trade_sentences.push_back(t.sentence);
    const std::string currency =
        t.faster_cost.currency.empty() ? t.slower_cost.currency : t.faster_cost.currency;
    Record rec{
        json_only(text("layout", "layout", t.layout)),
        json_only(text("slower_speed", "slower", t.slower.name)),
        json_only(text("faster_speed", "faster", t.faster.name)),
        json_only(text("slower_fabric", "slower fabric", t.slower_fabric)),
        json_only(text("faster_fabric", "faster fabric", t.faster_fabric)),
        json_only(text("currency", "currency", currency)),
        json_only(signed_number("extra_cost", "extra cost", t.extra_cost, kCount, 0)),
        json_only(flag("cost_complete", "every price known", t.cost_complete)),
        json_only(number("ttft_saved_s", "TTFT saved", t.ttft_saved.value(), kSeconds, 3)),
        json_only(text("prompt", "prompt", t.prompt)),
        json_only(texts("sources", "sources", t.sources)),
        json_only(text("sentence", "trade", t.sentence)),
    };
    if (t.ttft_saved_fraction) {
      rec.insert(rec.end() - 3, json_only(number("ttft_saved_pct", "TTFT saved",
                                                 *t.ttft_saved_fraction * 100.0, kPercent, 1)));
    }
    trades.push_back(std::move(rec));
  }
  doc.fields.push_back(
      json_only(records("speed_trades", "what the faster link buys", std::move(trades))));
  // As prose in text: one wrapped sentence per layout, not a one-column table.
  if (!trade_sentences.empty()) {
    doc.fields.push_back(
        table_only(texts("speed_trades", "what the faster link buys", trade_sentences)));
  }
  doc.warnings = report.warnings;
  return doc;
}

}  // namespace tpnet
