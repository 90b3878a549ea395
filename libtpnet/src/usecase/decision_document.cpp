#include "tpnet/usecase/decision_document.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <string>
#include <vector>

#include "tpnet/base/quantity_text.hpp"

namespace tpnet {
namespace {

DocumentFigure figure(std::string chart, std::string caption) {
  return DocumentFigure{std::move(chart), std::move(caption), {}, {}};
}

std::string bytes_text(double b) { return format_quantity(b, "B", 3); }
std::string rate_text(BitRate r) { return format_quantity(r.bits_per_second(), "b/s", 4); }

/// One request's decode speed: the bound at both speeds and, when the
/// report predicted the tests, the prediction of the first one-request test.
std::string decode_speed_line(const DecisionReport& g) {
  const DecodeReport& d = g.decode;
  std::string line = fmt::format(
      "Decode speed of one request: at most {:.1f} tokens/s at {} and {:.1f} at {} (the weights "
      "read once per forward and its bytes sent); NCCL's modelled latency of its collectives "
      "({} per forward) brings that to {:.1f} and {:.1f}",
      d.request_tokens_per_s_bound_from, g.from.name, d.request_tokens_per_s_bound_to, g.to.name,
      format_seconds(d.latency_per_forward.value()), d.request_tokens_per_s_with_latency_from,
      d.request_tokens_per_s_with_latency_to);
  if (g.predict) {
    for (const auto& s : g.predict->scenarios) {
      if (s.requests != 1 || s.links.size() < 2) continue;
      line += fmt::format("; predicted {:.1f} and {:.1f} tokens/s on the fabric profiles ({})",
                          s.links[0].decode_tokens_per_s, s.links[1].decode_tokens_per_s, s.name);
      break;
    }
  }
  return line + ".";
}

/// What the chosen option buys, in one sentence.
std::string purchase_line(const PlanOption& best) {
  const bool buys_nothing = best.fabric && best.fabric->topology == FabricTopology::none;
  if (buys_nothing) {
    return fmt::format("Buy no fabric and run {}: the replicas exchange nothing over RoCE.",
                       best.layout_name());
  }
  return fmt::format("Buy {} and run {} at {} per node.",
                     best.fabric ? best.fabric->description : "no switch", best.layout_name(),
                     best.speed.name);
}

/// The cables the chosen option buys and why the plan chose it.
std::string purchase_reason(const PlanOption& best) {
  std::string why;
  if (best.fabric && best.fabric->plan) {
    std::vector<std::string> cables;
    cables.reserve(best.fabric->cables.size());
    for (const auto& c : best.fabric->cables) cables.push_back(c.text());
    if (!cables.empty()) why = fmt::format("Cables: {}. ", fmt::join(cables, "; "));
  }
  return fmt::format("{}Why: {}", why, best.reason);
}

/// What the chosen option costs, or that nothing was priced.
std::string purchase_cost_line(const PlanOption& best, int nodes, const std::string& node_name) {
  if (!best.cost || best.cost->currency.empty()) {
    return "What it costs: no prices for these parts (give a price file to see it).";
  }
  const PlanCost& c = *best.cost;
  std::string line = fmt::format(
      "What it costs: {} {:.0f} for {} x {} and the fabric ({} {:.0f} of it switches "
      "and cables)",
      c.currency, c.total, nodes, node_name, c.currency, c.switches + c.cables);
  if (!c.complete) {
    line += fmt::format(", not counting {} (price unknown)", fmt::join(c.unpriced, ", "));
  }
  return line + ".";
}

/// The trade of the chosen layout between its slowest and fastest speed.
const SpeedTrade* chosen_trade(const std::vector<SpeedTrade>& trades, const PlanOption* best) {
  if (best == nullptr) return nullptr;
  for (const auto& t : trades) {
    if (t.layout == best->layout_name()) return &t;
  }
  return nullptr;
}

/// What the slower link would cost: the money it saves on the chosen layout
/// (when priced) and the TTFT it adds on the longest test.
std::string slower_link_line(const DecisionReport& g, const SpeedTrade* trade) {
  const ScenarioPenalty* worst = g.worst_scenario();
  if (g.from.name == g.to.name || worst == nullptr) {
    return fmt::format("Only one link speed was asked ({}): there is no slower link to price.",
                       g.from.name);
  }
  std::string money;
  if (trade != nullptr && trade->cost_complete && trade->slower.name == g.to.name) {
    const std::string currency = trade->faster_cost.currency;
    money = trade->extra_cost > 0.0
                ? fmt::format("{} {:.0f} less, but ", currency, trade->extra_cost)
                : fmt::format("no saving ({} {:.0f} more), and ", currency, -trade->extra_cost);
  }
  std::string line = fmt::format(
      "{} instead of {} at TP{}: {}at most {} TTFT on the longest test ({}, {} prompt tokens)",
      g.to.name, g.from.name, g.tp, money, format_signed_seconds(worst->nominal_bound.value()),
      worst->scenario.name, worst->total_tokens);
  if (worst->predicted_extra) {
    line += fmt::format(", {} predicted on the fabric profiles",
                        format_signed_seconds(worst->predicted_extra->value()));
  }
  return line + ".";
}

/// Decode in one sentence: the most the slower link adds to a forward.
std::string decode_short_line(const DecisionReport& g) {
  const bool unchanged = g.decode.regime == CommRegime::latency_bound;
  return fmt::format(
      "Decode {}: {} adds at most {} a forward, {:.1f}% of its {} weight-read floor.",
      unchanged ? "does not change" : "slows", g.to.name,
      format_seconds(g.decode.max_added_per_forward.value()), g.decode.max_added_share * 100.0,
      format_seconds(g.decode.weight_read_floor.value()));
}

/// What the slower link costs on the longest test, bound and prediction.
std::string ttft_cost_line(const DecisionReport& g, const ScenarioPenalty& worst) {
  std::string cost = fmt::format(
      "What {} instead of {} costs at TP{}: at most {} on the longest test ({}, {} prompt "
      "tokens) at the nominal rates",
      g.to.name, g.from.name, g.tp, format_signed_seconds(worst.nominal_bound.value()),
      worst.scenario.name, worst.total_tokens);
  if (worst.predicted_extra) {
    cost += fmt::format(", predicted {} on the fabric profiles",
                        format_signed_seconds(worst.predicted_extra->value()));
    if (const auto& range = worst.predicted_extra_range) {
      cost += " (measured range " + range_text(*range) + ")";
    }
    if (worst.achieved_bound && worst.predicted_gap) {
      cost += fmt::format(" (at most {} at the rates the profiles achieve, {:.1f} and {:.1f} Gb/s)",
                          format_signed_seconds(worst.achieved_bound->value()),
                          worst.predicted_gap->from_rate.bits_per_second() / 1e9,
                          worst.predicted_gap->to_rate.bits_per_second() / 1e9);
    }
    if (worst.predicted_extra->value() > worst.nominal_bound.value()) {
      cost += fmt::format(
          "; above the nominal bound: the profiles' measured all-reduce times ({}, {}) are "
          "slower than the nominal rates",
          g.fabrics[0].name, g.fabrics[1].name);
    }
  }
  if (worst.ttft_increase_bound) {
    cost +=
        fmt::format(", at most {:.1f}% of its measured {} TTFT", *worst.ttft_increase_bound * 100.0,
                    format_seconds(worst.scenario.baseline_ttft->value()));
  }
  return cost + fmt::format("; {} per 1,000 prompt tokens in all.",
                            format_signed_seconds(g.penalty.extra_per_1k_tokens.value()));
}

/// Why decode barely changes: the bytes, the bound and the profiles' figure.
std::string decode_unchanged_line(const DecisionReport& g) {
  std::string decode = fmt::format(
      "What does not change: decode. A decode forward sends {} per node in {} small "
      "all-reduces, latency-bound; {} adds at most {} to it ({:.1f}% of its {} weight-read "
      "floor)",
      bytes_text(g.decode.forward_sent.count()), g.decode.allreduces_per_forward, g.to.name,
      format_seconds(g.decode.max_added_per_forward.value()), g.decode.max_added_share * 100.0,
      format_seconds(g.decode.weight_read_floor.value()));
  if (g.decode.fabric) {
    decode += fmt::format("; the fabric profiles give {} ({:.1f}%)",
                          format_signed_seconds(g.decode.fabric->added.value()),
                          g.decode.fabric->added_share * 100.0);
    if (g.decode.fabric->added.value() > g.decode.max_added_per_forward.value()) {
      decode += fmt::format(
          ", above the bound since the profiles' rates ({} for {}, {} for {}) are below the "
          "nominal ones",
          rate_text(fabric_rate(g.fabrics[0])), g.from.name, rate_text(fabric_rate(g.fabrics[1])),
          g.to.name);
    }
  }
  return decode + ".";
}

/// The verdict box: what to buy, what it costs, what the slower link would
/// cost and what it does to decode; the reasons and sources follow it in
/// their own section (verdict_details_section).
std::vector<std::string> verdict_lines(const DecisionReport& g) {
  std::vector<std::string> out;
  const PlanOption* best = g.chosen_option();
  if (best != nullptr) {
    out.push_back(purchase_line(*best));
    out.push_back(purchase_cost_line(*best, g.nodes, g.node.name));
  } else if (!g.plan.options.empty()) {
    out.push_back("No layout of these nodes is usable as asked: " + g.plan.options.front().reason);
  }
  const std::vector<SpeedTrade> trades = speed_trades(g.plan);
  out.push_back(slower_link_line(g, chosen_trade(trades, best)));
  if (g.from.name != g.to.name && g.worst_scenario() != nullptr)
    out.push_back(decode_short_line(g));
  return out;
}

/// Why the verdict says what it says, and where each price comes from:
/// the plan's reason, the ranking, each trade, the TTFT and decode details.
DocumentSection verdict_details_section(const DecisionReport& g) {
  DocumentSection details;
  details.heading = "Why, and the sources";
  if (const PlanOption* best = g.chosen_option(); best != nullptr) {
    details.paragraphs.push_back(purchase_reason(*best));
  }
  // With no budget and no sweep the plan ranks by fewest switches, which
  // always buys the faster link: the reader is shown the trade instead.
  std::string ranked = fmt::format("Ranked by {}", to_string(g.plan.objective));
  if (g.plan.objective == PlanObjective::fewest_switches) {
    ranked += " (give a TTFT budget to rank by cost, or sweeps to rank by users per dollar)";
  }
  details.paragraphs.push_back(ranked + ".");
  std::vector<std::string> sources;
  for (const auto& t : speed_trades(g.plan)) {
    details.paragraphs.push_back(
        // The decode analysis is of instances x TP: it speaks for those trades only.
        fmt::format("Trade: {}{}", t.sentence,
                    t.family == LayoutFamily::tp && g.decode.regime == CommRegime::latency_bound
                        ? "; decode is unchanged."
                        : "."));
    for (const auto& source : t.sources) {
      if (std::find(sources.begin(), sources.end(), source) == sources.end()) {
        sources.push_back(source);
      }
    }
  }
  const ScenarioPenalty* worst = g.worst_scenario();
  if (worst != nullptr && g.from.name != g.to.name) {
    details.paragraphs.push_back(ttft_cost_line(g, *worst));
    details.paragraphs.push_back(decode_unchanged_line(g));
    details.paragraphs.push_back(decode_speed_line(g));
  }
  if (!sources.empty()) {
    details.paragraphs.emplace_back("Prices, with where and when each was seen:");
    details.items = std::move(sources);
  }
  return details;
}

DocumentSection ttft_cost_section(const DecisionReport& g) {
  DocumentSection cost;
  cost.heading = fmt::format("TTFT cost of {} instead of {}", g.to.name, g.from.name);
  cost.figures.push_back(figure(
      "penalty",
      fmt::format("Extra time to first token per test at TP{}: the bound (every prefill byte at "
                  "{}, nothing overlapped) and the scheduler's prediction on the fabric "
                  "profiles. The largest is {}.",
                  g.tp, g.to.name, g.worst_scenario() ? g.worst_scenario()->scenario.name : "")));
  cost.paragraphs.push_back(fmt::format(
      "Prefill sends {} per prompt token per node at TP{}; the predicted column uses the fabric "
      "profiles {} and {}.",
      bytes_text(g.penalty.per_token_bytes.count()), g.tp, g.fabrics[0].name, g.fabrics[1].name));
  return cost;
}

DocumentSection layouts_section(const DecisionReport& g) {
  DocumentSection layouts;
  layouts.heading = "Layouts compared";
  if (g.compare->layouts.size() == 1) {
    // One bar compares nothing: say it.
    const LayoutSummary& only = g.compare->layouts.front();
    std::string text = fmt::format(
        "Only {} spreads an instance over the network at this cluster size: it sends {} per "
        "prompt token per node",
        only.layout.name(), bytes_text(only.per_token_bytes.count()));
    if (only.layout.tp == g.tp && only.layout.pp == 1 && only.layout.ep == 1) {
      text +=
          fmt::format(", and {} instead of {} adds at most {} per 1,000 prompt tokens", g.to.name,
                      g.from.name, format_seconds(g.penalty.extra_per_1k_tokens.value()));
    }
    layouts.paragraphs.push_back(text + ".");
  } else {
    layouts.figures.push_back(figure(
        "compare",
        g.compare->projected()
            ? "Bytes per prompt token per node by TP size, and the worst projected TTFT "
              "increase on the slower link from the measured TTFTs."
            : "Bytes per prompt token per node by TP size, and the extra TTFT bound per 1,000 "
              "prompt tokens on the slower link."));
  }
  return layouts;
}

/// What the cluster is expected to give, layout by layout (tpnet expect).
DocumentSection expected_section(const DecisionReport& g) {
  DocumentSection sec;
  sec.heading = "Expected speed";
  const ExpectReport& e = *g.expected;
  const auto name = [&](int i) {
    const ExpectLayout& l = e.layouts[static_cast<std::size_t>(i)];
    const std::string one = l.layout.name();
    return l.replicas > 1 ? fmt::format("{} x {}", l.replicas, one) : one;
  };
  if (e.best_latency < 0) {
    sec.paragraphs.emplace_back(
        "No layout of these nodes fits the model in memory and starts, so nothing is expected.");
    return sec;
  }
  sec.paragraphs.push_back(fmt::format(
      "With nothing measured, from the rates public runs on {} achieved: one request is fastest on "
      "{} and the most tokens/s at {} requests come from {}. Each value is the typical one; the "
      "range of the runs is in tpnet expect's wide table and JSON.",
      g.node.name, name(e.best_latency),
      e.layouts.front().decode.empty()
          ? 0
          : e.layouts[static_cast<std::size_t>(e.best_throughput)].decode.back().requests,
      name(e.best_throughput)));
  DocumentTable table;
  table.header = {"layout", "fits", "TTFT"};
  const ExpectLayout& best = e.layouts[static_cast<std::size_t>(e.best_latency)];
  for (const auto& c : best.decode) {
    table.header.push_back(
        fmt::format("{} request{} tok/s", c.requests, c.requests > 1 ? "s" : ""));
  }
  for (std::size_t i = 0; i < e.layouts.size(); ++i) {
    const ExpectLayout& l = e.layouts[i];
    std::vector<std::string> row{name(static_cast<int>(i))};
    if (l.decode.empty()) {
      row.emplace_back(l.refusal.empty() ? "no: " + std::string(to_string(l.limit))
                                         : "no: vLLM refuses the TP");
      while (row.size() < table.header.size()) row.emplace_back("-");
    } else {
      row.emplace_back("yes");
      row.push_back(format_seconds(l.ttft_s.typical));
      for (const auto& c : l.decode) row.push_back(fmt::format("{:.0f}", c.aggregate.typical));
    }
    table.rows.push_back(std::move(row));
  }
  sec.tables.push_back(std::move(table));
  sec.figures.push_back(
      figure("expected",
             "Expected decode tokens/s of all requests by layout, at each concurrency: "
             "typical, from public runs on the node."));
  return sec;
}

DocumentSection steps_section(const DecisionReport& g) {
  DocumentSection steps;
  steps.heading = "Predicted steps";
  if (g.predict) {
    steps.figures.push_back(figure(
        "predict",
        "Each test's requests through vLLM's scheduler at both speeds: prefill steps, decode "
        "steps, and the first token (black tick). The slower link stretches prefill only."));
  } else if (!g.predict_refused.empty()) {
    steps.paragraphs.push_back("No step timeline: tpnet predict refuses these inputs: " +
                               g.predict_refused);
  } else {
    steps.paragraphs.emplace_back(
        "No step timeline: it needs measured single-request TTFTs to fit the prefill compute "
        "(`workload.baseline`).");
  }
  return steps;
}

DocumentSection traps_section(const SwitchPlan& plan) {
  DocumentSection traps;
  traps.heading = "Traps and checklist";
  for (const auto& t : plan.traps) traps.items.push_back(t.text + " (" + t.source + ")");
  DocumentTable checks{{"check", "the catalog says", "ok", "verify on the hardware"}, {}};
  for (const auto& c : plan.checklist) {
    checks.rows.push_back({c.check, c.catalog, c.catalog_ok ? "yes" : "NO", c.verify});
  }
  if (!checks.rows.empty()) traps.tables.push_back(std::move(checks));
  if (traps.items.empty() && traps.tables.empty()) {
    traps.paragraphs.emplace_back("The catalog lists no traps for this plan.");
  }
  return traps;
}

/// The switch section, and its traps when a switch is drawn.
std::vector<DocumentSection> switch_sections(const DecisionReport& g) {
  DocumentSection sw;
  sw.heading = "Switch port plan";
  if (const PlanOption* drawn = g.switch_drawn(); drawn != nullptr) {
    sw.figures.push_back(figure(
        "switch",
        fmt::format("The recommended {} at {}: each cage in its breakout mode, its cable fanned "
                    "out to the sub-ports, and which node sits on which.",
                    drawn->fabric->description, drawn->speed.name)));
    if (!drawn->fabric->alternatives.empty()) {
      sw.paragraphs.push_back(fmt::format("Also does it with as few switches: {}.",
                                          fmt::join(drawn->fabric->alternatives, ", ")));
    }
    return {std::move(sw), traps_section(*drawn->fabric->plan)};
  }
  if (const PlanOption* best = g.chosen_option(); best != nullptr && best->fabric) {
    sw.paragraphs.push_back(
        best->fabric->topology == FabricTopology::none
            ? fmt::format("No switch to buy: {} x TP1 replicas exchange nothing over RoCE.",
                          best->instances)
            : fmt::format("No switch to buy: the recommended layout is cabled as {}.",
                          best->fabric->description));
    for (const auto& note : best->fabric->notes) sw.items.push_back(note);
  } else {
    sw.paragraphs.emplace_back("No usable layout has a switch plan to draw.");
  }
  return {std::move(sw)};
}

DocumentSection memory_section(const DecisionReport& g) {
  DocumentSection mem;
  mem.heading = "Memory fit";
  mem.figures.push_back(
      figure("memory",
             "What each node holds at each TP size; the KV cache gets what vLLM's "
             "budget leaves."));
  for (const auto& m : g.memory) {
    if (m.tp != g.tp) continue;
    mem.paragraphs.push_back(fmt::format("At TP{}: {}", m.tp, m.fit_summary));
    if (m.kv_tokens && m.kv_bytes_per_token) {
      std::string kv = fmt::format("KV cache at TP{}: {} hold {} tokens ({} per token)", m.tp,
                                   bytes_text(m.kv_cache_bytes.count()), *m.kv_tokens,
                                   bytes_text(m.kv_bytes_per_token->count()));
      if (m.max_sequences) {
        kv += fmt::format(", {} sequences of max-model-len {} tokens at once", *m.max_sequences,
                          m.max_model_len);
      }
      mem.paragraphs.push_back(kv + ".");
    }
    if (!m.nccl_advice.empty()) mem.paragraphs.push_back(m.nccl_advice + ".");
  }
  return mem;
}

std::vector<std::string> option_row(const PlanOption& r) {
  return {std::to_string(r.rank),
          r.layout_name(),
          r.speed.name,
          r.fabric ? r.fabric->description : "none carries it",
          r.fits_memory ? "yes" : "NO",
          bytes_text(r.memory.weights_bytes.count()),
          bytes_text(r.memory.kv_cache_bytes.count()),
          format_signed_seconds(r.worst_extra_ttft.value()),
          r.usable ? "yes" : "no",
          r.reason};
}

DocumentSection options_section(const DecisionReport& g) {
  DocumentSection options;
  options.heading = "Every layout ranked";
  DocumentTable t{{"rank", "layout", "speed", "switches", "fits", "weights/node", "KV cache/node",
                   "worst extra TTFT", "usable", "why"},
                  {}};
  for (const auto& opt : g.plan.options) t.rows.push_back(option_row(opt));
  options.tables.push_back(std::move(t));
  options.paragraphs.push_back(fmt::format("Extra TTFT against {}, for the {} workload.",
                                           g.plan.reference.name, g.workload));
  return options;
}

std::string speed_names(const std::vector<Link>& speeds) {
  std::vector<std::string> names;
  names.reserve(speeds.size());
  for (const auto& s : speeds) names.push_back(s.name);
  return fmt::format("{}", fmt::join(names, " vs "));
}

}  // namespace

Document write_decision_document(const DecisionReport& g) {
  Document doc;
  doc.title = fmt::format("{} on {} x {}: network decision ({})", g.model.name, g.nodes,
                          g.node.name, speed_names(g.speeds));
  doc.answer = verdict_lines(g);
  doc.sections.push_back(verdict_details_section(g));
  doc.sections.push_back(ttft_cost_section(g));
  if (g.compare && !g.compare->layouts.empty()) doc.sections.push_back(layouts_section(g));
  doc.sections.push_back(steps_section(g));
  if (g.expected) {
    doc.sections.push_back(expected_section(g));
  } else if (!g.expected_refused.empty()) {
    DocumentSection none;
    none.heading = "Expected speed";
    none.paragraphs.push_back("No expected speed: " + g.expected_refused);
    doc.sections.push_back(std::move(none));
  }
  if (g.capacity) {
    DocumentSection cap;
    cap.heading = "Capacity under the SLOs";
    cap.figures.push_back(
        figure("capacity",
               "Measured decode speed and TTFT against load per configuration, the "
               "SLO lines, and each configuration's C_max ringed."));
    doc.sections.push_back(std::move(cap));
  }
  for (auto& s : switch_sections(g)) doc.sections.push_back(std::move(s));
  doc.sections.push_back(memory_section(g));
  doc.sections.push_back(options_section(g));
  return doc;
}

}  // namespace tpnet
