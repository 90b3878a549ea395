// tpnet report: one self-contained HTML file (or Markdown with its SVGs
// beside it) for a cluster decision: a verdict in plain words, the charts
// with a sentence under each, the switch drawn, the memory fit, the traps
// and checklist, and the inputs to reproduce it (docs/report.md).
//
// Every number comes from the same libtpnet calls the other commands make
// (plan, penalty, decode, compare, memory, capacity, predict), and every
// chart from charts.hpp, so the report never disagrees with them.

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>

#include "calibration_flags.hpp"
#include "capacity_flags.hpp"
#include "chart.hpp"
#include "charts.hpp"
#include "common.hpp"
#include "price_flags.hpp"
#include "switch_drawing.hpp"
#include "tpnet/base/error.hpp"
#include "tpnet/base/quantity.hpp"
#include "tpnet/io/baseline_csv.hpp"
#include "tpnet/io/output_file.hpp"
#include "tpnet/usecase/decision_report.hpp"
#include "tpnet/usecase/decode.hpp"
#include "tpnet/usecase/plan_search.hpp"

namespace tpnet::cli {
namespace {

using chart::seconds;
using chart::signed_seconds;

struct ReportOptions {
  EngineOptions engine;
  ClusterOptions cluster;
  std::string baseline;
  CapacityFlags capacity;
  CalibrationFlags calibration;
  PriceOptions prices;
  std::string out;
  std::string kind = "html";
  std::string summary_format = "table";
  CLI::Option* tp_option = nullptr;
};

// ---- the report as data, rendered to HTML or Markdown -------------------

struct ReportFigure {
  std::string name;  ///< in Markdown's file name: report-<name>-<hash>.svg
  std::string svg;
  std::string sentence;  ///< what it shows, under it
};

struct ReportTable {
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;
};

struct ReportSection {
  std::string heading;
  std::vector<std::string> paragraphs;
  std::vector<ReportFigure> figures;
  std::vector<ReportTable> tables;
  std::vector<std::string> items;  ///< a bulleted list
  bool code = false;               ///< items are one command line each
};

struct Report {
  std::string title;
  std::vector<std::string> verdict;
  std::vector<ReportSection> sections;
};

std::string bytes(double b) { return chart::format_quantity(b, "B", 3); }
std::string rate(BitRate r) { return chart::format_quantity(r.bits_per_second(), "b/s", 4); }

std::string html_escaped(const std::string& s) { return chart::xml_escaped(s); }

std::string markdown_cell(const std::string& s) {
  std::string out;
  for (const char c : s) {
    if (c == '|') {
      out += "\\|";
    } else if (c == '\n') {
      out += ' ';
    } else {
      out += c;
    }
  }
  return out;
}

constexpr const char* kStyle =
    "body{font-family:DejaVu Sans,Verdana,Arial,sans-serif;color:#222;max-width:820px;"
    "margin:24px auto;padding:0 16px;line-height:1.45}"
    "h1{font-size:24px}h2{font-size:19px;border-bottom:1px solid #ccc;padding-bottom:4px;"
    "margin-top:32px}"
    ".verdict{background:#eef4f9;border-left:4px solid #0072B2;padding:8px 16px}"
    "figure{margin:16px 0}figcaption{color:#444;font-size:14px}"
    "svg{max-width:100%;height:auto}"
    "table{border-collapse:collapse;font-size:13px;margin:8px 0}"
    "th,td{border:1px solid #ccc;padding:3px 6px;text-align:left;vertical-align:top}"
    "th{background:#f2f2f2}code,pre{background:#f6f6f6;font-size:13px}"
    "pre{padding:8px;white-space:pre-wrap;word-break:break-all}";

std::string render_html(const Report& r) {
  std::string out =
      "<!DOCTYPE html>\n<html xmlns=\"http://www.w3.org/1999/xhtml\" lang=\"en\">\n<head>\n"
      "<meta charset=\"utf-8\"/>\n<meta name=\"viewport\" content=\"width=device-width\"/>\n";
  out += "<title>" + html_escaped(r.title) + "</title>\n<style>" + kStyle + "</style>\n</head>\n";
  out += "<body>\n<h1>" + html_escaped(r.title) + "</h1>\n<div class=\"verdict\">\n";
  for (const auto& p : r.verdict) out += "<p>" + html_escaped(p) + "</p>\n";
  out += "</div>\n";
  for (const auto& s : r.sections) {
    out += "<h2>" + html_escaped(s.heading) + "</h2>\n";
    for (const auto& p : s.paragraphs) out += "<p>" + html_escaped(p) + "</p>\n";
    for (const auto& f : s.figures) {
      out += "<figure>\n" + f.svg + "<figcaption>" + html_escaped(f.sentence) +
             "</figcaption>\n</figure>\n";
    }
    for (const auto& t : s.tables) {
      out += "<table>\n<tr>";
      for (const auto& h : t.header) out += "<th>" + html_escaped(h) + "</th>";
      out += "</tr>\n";
      for (const auto& row : t.rows) {
        out += "<tr>";
        for (const auto& c : row) out += "<td>" + html_escaped(c) + "</td>";
        out += "</tr>\n";
      }
      out += "</table>\n";
    }
    if (!s.items.empty()) {
      if (s.code) {
        out += "<pre>";
        for (const auto& i : s.items) out += html_escaped(i) + "\n";
        out += "</pre>\n";
      } else {
        out += "<ul>\n";
        for (const auto& i : s.items) out += "<li>" + html_escaped(i) + "</li>\n";
        out += "</ul>\n";
      }
    }
  }
  out += "</body>\n</html>\n";
  return out;
}

/// `<stem>-<chart>-<hash>.svg`: named by its content, so that a report
/// written while another run writes the same --out links only to its own
/// charts (no rename can replace a Markdown file and its SVGs as one). FNV-1a
/// over the SVG text: stable across runs and machines, unlike std::hash.
std::string svg_file_name(const std::string& stem, const ReportFigure& figure) {
  constexpr std::uint64_t kOffset = 14695981039346656037ULL;
  constexpr std::uint64_t kPrime = 1099511628211ULL;
  std::uint64_t hash = kOffset;
  for (const char c : figure.svg) {
    hash ^= static_cast<unsigned char>(c);
    hash *= kPrime;
  }
  constexpr int kShownBits = 48;  // 12 hex digits: a clash needs ~16M versions of one chart
  return fmt::format("{}-{}-{:012x}.svg", stem, figure.name, hash >> (64 - kShownBits));
}

std::string render_markdown(const Report& r, const std::string& stem) {
  std::string out = "# " + r.title + "\n\n";
  for (const auto& p : r.verdict) out += "> " + p + "\n>\n";
  if (!r.verdict.empty()) out.resize(out.size() - 2);
  out += "\n";
  for (const auto& s : r.sections) {
    out += "## " + s.heading + "\n\n";
    for (const auto& p : s.paragraphs) out += p + "\n\n";
    for (const auto& f : s.figures) {
      out += fmt::format("![{}]({})\n\n{}\n\n", f.sentence, svg_file_name(stem, f), f.sentence);
    }
    for (const auto& t : s.tables) {
      out += "|";
      for (const auto& h : t.header) out += " " + markdown_cell(h) + " |";
      out += "\n|";
      for (std::size_t i = 0; i < t.header.size(); ++i) out += " --- |";
      out += "\n";
      for (const auto& row : t.rows) {
        out += "|";
        for (const auto& c : row) out += " " + markdown_cell(c) + " |";
        out += "\n";
      }
      out += "\n";
    }
    if (!s.items.empty()) {
      if (s.code) {
        out += "```\n";
        for (const auto& i : s.items) out += i + "\n";
        out += "```\n\n";
      } else {
        for (const auto& i : s.items) out += "- " + i + "\n";
        out += "\n";
      }
    }
  }
  return out;
}

// ---- what goes in it ------------------------------------------------------

std::string quoted_word(const std::string& w) {
  if (!w.empty() && w.find_first_of(" \t\"'$\\*?;&|<>()") == std::string::npos) return w;
  std::string out = "'";
  for (const char c : w) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

using Gathered = DecisionReport;

/// Reads the report's files and maps its flags to the use case's request.
DecisionRequest to_decision_request(const ReportOptions& o) {
  DecisionRequest request;
  request.plan = to_plan_request(o.engine, o.cluster);
  apply_price_options(request.plan, o.prices);
  if (o.tp_option->count() > 0) request.tp = o.engine.tp;
  if (!o.baseline.empty()) {
    request.baseline = load_baseline_csv(o.baseline);
    request.baseline_origin = o.baseline;
  }
  request.calibration = load_calibration(o.calibration);
  // The calibration measured this cluster: it prices the fabric the plan
  // buys, as every other command's profile choice would.
  if (request.calibration) request.plan.calibration = request.calibration->file;
  request.capacity = load_capacity_request(o.capacity, request.tp, request.plan.model.name);
  return request;
}

/// One request's decode speed: the bound at both speeds and, when the
/// report predicted the tests, the prediction of the first one-request test.
std::string decode_speed_line(const Gathered& g) {
  const DecodeReport& d = g.decode;
  std::string line = fmt::format(
      "Decode speed of one request: at most {:.1f} tokens/s at {} and {:.1f} at {} (the weights "
      "read once per forward and its bytes sent); NCCL's modelled latency of its collectives "
      "({} per forward) brings that to {:.1f} and {:.1f}",
      d.request_tokens_per_s_bound_from, g.from.name, d.request_tokens_per_s_bound_to, g.to.name,
      seconds(d.latency_per_forward.value()), d.request_tokens_per_s_with_latency_from,
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

std::vector<std::string> verdict_lines(const Gathered& g) {
  std::vector<std::string> out;
  const PlanOption* best = g.chosen_option();
  if (best != nullptr) {
    const bool buys_nothing = best->fabric && best->fabric->topology == FabricTopology::none;
    std::string buy =
        buys_nothing ? fmt::format(
                           "Buy no fabric and run {} x TP1: the replicas exchange nothing over "
                           "RoCE.",
                           best->instances)
                     : fmt::format("Buy {} and run {} x TP{} at {} per node.",
                                   best->fabric ? best->fabric->description : "no switch",
                                   best->instances, best->tp, best->speed.name);
    if (best->fabric) {
      std::vector<std::string> cables;
      for (const auto& c : best->fabric->cables) cables.push_back(c.text());
      if (!cables.empty() && best->fabric->plan) {
        buy += fmt::format(" Cables: {}.", fmt::join(cables, "; "));
      }
    }
    out.push_back(buy + " Why: " + best->reason);
  } else if (!g.plan.options.empty()) {
    out.push_back("No layout of these nodes is usable as asked: " + g.plan.options.front().reason);
  }
  // With no budget and no sweep the plan ranks by fewest switches, which
  // always buys the faster link: the reader is shown the trade instead.
  std::string ranked = fmt::format("Ranked by {}", to_string(g.plan.objective));
  if (g.plan.objective == PlanObjective::fewest_switches) {
    ranked += " (give a TTFT budget to rank by cost, or sweeps to rank by users per dollar)";
  }
  out.push_back(ranked + ".");
  for (const auto& t : speed_trades(g.plan)) {
    std::string trade =
        "Trade: " + t.sentence +
        (g.decode.regime == CommRegime::latency_bound ? "; decode is unchanged." : ".");
    if (!t.sources.empty()) trade += fmt::format(" Prices: {}.", fmt::join(t.sources, "; "));
    out.push_back(trade);
  }
  const ScenarioPenalty* worst = g.worst_scenario();
  if (worst != nullptr && g.from.name != g.to.name) {
    std::string cost = fmt::format(
        "What {} instead of {} costs at TP{}: at most {} on the longest test ({}, {} prompt "
        "tokens) at the nominal rates",
        g.to.name, g.from.name, g.tp, signed_seconds(worst->extra_ttft_bound.value()),
        worst->scenario.name, worst->total_tokens);
    if (worst->predicted_extra) {
      cost += fmt::format(", predicted {} on the fabric profiles",
                          signed_seconds(worst->predicted_extra->value()));
      if (const auto& range = worst->predicted_extra_range) {
        cost += " (measured range " + range_text(*range) + ")";
      }
      if (worst->predicted_bound && worst->predicted_gap) {
        cost +=
            fmt::format(" (at most {} at the rates the profiles achieve, {:.1f} and {:.1f} Gb/s)",
                        signed_seconds(worst->predicted_bound->value()),
                        worst->predicted_gap->from_rate.bits_per_second() / 1e9,
                        worst->predicted_gap->to_rate.bits_per_second() / 1e9);
      }
      if (worst->predicted_extra->value() > worst->extra_ttft_bound.value()) {
        cost += fmt::format(
            "; above the nominal bound: the profiles' measured all-reduce times ({}, {}) are "
            "slower than the nominal rates",
            g.fabrics[0].name, g.fabrics[1].name);
      }
    }
    if (worst->ttft_increase_bound) {
      cost += fmt::format(", at most {:.1f}% of its measured {} TTFT",
                          *worst->ttft_increase_bound * 100.0,
                          seconds(worst->scenario.baseline_ttft->value()));
    }
    cost += fmt::format("; {} per 1,000 prompt tokens in all.",
                        signed_seconds(g.penalty.extra_per_1k_tokens.value()));
    out.push_back(cost);
    std::string decode = fmt::format(
        "What does not change: decode. A decode forward sends {} per node in {} small "
        "all-reduces, latency-bound; {} adds at most {} to it ({:.1f}% of its {} weight-read "
        "floor)",
        bytes(g.decode.forward_sent.count()), g.decode.allreduces_per_forward, g.to.name,
        seconds(g.decode.max_added_per_forward.value()), g.decode.max_added_share * 100.0,
        seconds(g.decode.weight_read_floor.value()));
    if (g.decode.fabric) {
      decode += fmt::format("; the fabric profiles give {} ({:.1f}%)",
                            signed_seconds(g.decode.fabric->added.value()),
                            g.decode.fabric->added_share * 100.0);
      if (g.decode.fabric->added.value() > g.decode.max_added_per_forward.value()) {
        decode += fmt::format(
            ", above the bound since the profiles' rates ({} for {}, {} for {}) are below the "
            "nominal ones",
            rate(fabric_rate(g.fabrics[0])), g.from.name, rate(fabric_rate(g.fabrics[1])),
            g.to.name);
      }
    }
    out.push_back(decode + ".");
    out.push_back(decode_speed_line(g));
  }
  return out;
}

std::vector<std::string> plan_row(const PlanOption& r) {
  return {std::to_string(r.rank),
          fmt::format("{} x TP{}", r.instances, r.tp),
          r.speed.name,
          r.fabric ? r.fabric->description : "none carries it",
          r.fits_memory ? "yes" : "NO",
          bytes(r.memory.weights_bytes.count()),
          bytes(r.memory.kv_cache_bytes.count()),
          signed_seconds(r.worst_extra_ttft.value()),
          r.usable ? "yes" : "no",
          r.reason};
}

Report build_report(const ReportOptions& o, const Gathered& g) {
  Report r;
  r.title = fmt::format("{} on {} x {}: network decision ({})", g.model.name, o.cluster.nodes,
                        g.node.name, fmt::join(o.cluster.speeds, " vs "));
  r.verdict = verdict_lines(g);
  const std::string subject = describe(g.model, g.engine);

  ReportSection cost;
  cost.heading = fmt::format("TTFT cost of {} instead of {}", g.to.name, g.from.name);
  cost.figures.push_back(
      {"penalty", chart::render_svg([&] {
         auto f = penalty_figure(g.penalty, g.from, g.to, subject);
         f.id = "penalty";
         return f;
       }()),
       fmt::format("Extra time to first token per test at TP{}: the bound (every prefill byte at "
                   "{}, nothing overlapped) and the scheduler's prediction on the fabric "
                   "profiles. The largest is {}.",
                   g.tp, g.to.name, g.worst_scenario() ? g.worst_scenario()->scenario.name : "")});
  cost.paragraphs.push_back(fmt::format(
      "Prefill sends {} per prompt token per node at TP{}; the predicted column uses the fabric "
      "profiles {} and {}.",
      bytes(g.penalty.per_token_bytes.count()), g.tp, g.fabrics[0].name, g.fabrics[1].name));
  r.sections.push_back(std::move(cost));

  if (g.compare && !g.compare->layouts.empty()) {
    ReportSection layouts;
    layouts.heading = "Layouts compared";
    if (g.compare->layouts.size() == 1) {
      // One bar compares nothing: say it.
      const LayoutSummary& only = g.compare->layouts.front();
      std::string text = fmt::format(
          "Only {} spreads an instance over the network at this cluster size: it sends {} per "
          "prompt token per node",
          only.layout.name(), bytes(only.per_token_bytes.count()));
      if (only.layout.tp == g.tp && only.layout.pp == 1 && only.layout.ep == 1) {
        text += fmt::format(", and {} instead of {} adds at most {} per 1,000 prompt tokens",
                            g.to.name, g.from.name, seconds(g.penalty.extra_per_1k_tokens.value()));
      }
      layouts.paragraphs.push_back(text + ".");
    } else {
      auto f = compare_figure(*g.compare);
      f.id = "compare";
      layouts.figures.push_back(
          {"compare", chart::render_svg(f),
           g.compare->projected()
               ? "Bytes per prompt token per node by TP size, and the worst projected TTFT "
                 "increase on the slower link from the measured TTFTs."
               : "Bytes per prompt token per node by TP size, and the extra TTFT bound per 1,000 "
                 "prompt tokens on the slower link."});
    }
    r.sections.push_back(std::move(layouts));
  }

  ReportSection steps;
  steps.heading = "Predicted steps";
  if (g.predict) {
    auto f = predict_figure(*g.predict, kReportChartRequests);
    f.id = "predict";
    steps.figures.push_back(
        {"predict", chart::render_svg(f),
         "Each test's requests through vLLM's scheduler at both speeds: prefill steps, decode "
         "steps, and the first token (black tick). The slower link stretches prefill only."});
  } else if (!g.predict_refused.empty()) {
    steps.paragraphs.push_back("No step timeline: tpnet predict refuses these inputs: " +
                               g.predict_refused);
  } else {
    steps.paragraphs.emplace_back(
        "No step timeline: it needs measured single-request TTFTs to fit the prefill compute "
        "(--baseline).");
  }
  r.sections.push_back(std::move(steps));

  if (g.capacity) {
    ReportSection cap;
    cap.heading = "Capacity under the SLOs";
    auto f = capacity_figure(*g.capacity);
    f.id = "capacity";
    cap.figures.push_back({"capacity", chart::render_svg(f),
                           "Measured decode speed and TTFT against load per configuration, the "
                           "SLO lines, and each configuration's C_max ringed."});
    r.sections.push_back(std::move(cap));
  }

  ReportSection sw;
  sw.heading = "Switch port plan";
  const PlanOption* drawn = nullptr;
  for (const auto& opt : g.plan.options) {
    if (opt.usable && opt.fabric && opt.fabric->plan) {
      drawn = &opt;
      break;
    }
  }
  if (drawn != nullptr) {
    const SwitchPlan& plan = *drawn->fabric->plan;
    sw.figures.push_back(
        {"switch", switch_plan_svg(plan, "switch"),
         fmt::format("The recommended {} at {}: each cage in its breakout mode, its cable fanned "
                     "out to the sub-ports, and which node sits on which.",
                     drawn->fabric->description, drawn->speed.name)});
    if (!drawn->fabric->alternatives.empty()) {
      sw.paragraphs.push_back(fmt::format("Also does it with as few switches: {}.",
                                          fmt::join(drawn->fabric->alternatives, ", ")));
    }
    ReportSection traps;
    traps.heading = "Traps and checklist";
    for (const auto& t : plan.traps) traps.items.push_back(t.text + " (" + t.source + ")");
    ReportTable checks{{"check", "the catalog says", "ok", "verify on the hardware"}, {}};
    for (const auto& c : plan.checklist) {
      checks.rows.push_back({c.check, c.catalog, c.catalog_ok ? "yes" : "NO", c.verify});
    }
    if (!checks.rows.empty()) traps.tables.push_back(std::move(checks));
    if (traps.items.empty() && traps.tables.empty()) {
      traps.paragraphs.emplace_back("The catalog lists no traps for this plan.");
    }
    r.sections.push_back(std::move(sw));
    r.sections.push_back(std::move(traps));
  } else if (const PlanOption* best = g.chosen_option(); best != nullptr && best->fabric) {
    sw.paragraphs.push_back(
        best->fabric->topology == FabricTopology::none
            ? fmt::format("No switch to buy: {} x TP1 replicas exchange nothing over RoCE.",
                          best->instances)
            : fmt::format("No switch to buy: the recommended layout is cabled as {}.",
                          best->fabric->description));
    for (const auto& note : best->fabric->notes) sw.items.push_back(note);
    r.sections.push_back(std::move(sw));
  } else {
    sw.paragraphs.emplace_back("No usable layout has a switch plan to draw.");
    r.sections.push_back(std::move(sw));
  }

  ReportSection mem;
  mem.heading = "Memory fit";
  auto mf = memory_figure(g.memory, g.model.name);
  mf.id = "memory";
  mem.figures.push_back({"memory", chart::render_svg(mf),
                         "What each node holds at each TP size; the KV cache gets what vLLM's "
                         "budget leaves."});
  for (const auto& m : g.memory) {
    if (m.tp != g.tp) continue;
    mem.paragraphs.push_back(fmt::format("At TP{}: {}", m.tp, m.fit_summary));
    if (m.kv_tokens && m.kv_bytes_per_token) {
      std::string kv = fmt::format("KV cache at TP{}: {} hold {} tokens ({} per token)", m.tp,
                                   bytes(m.kv_cache_bytes.count()), *m.kv_tokens,
                                   bytes(m.kv_bytes_per_token->count()));
      if (m.max_sequences) {
        kv += fmt::format(", {} sequences of max-model-len {} tokens at once", *m.max_sequences,
                          m.max_model_len);
      }
      mem.paragraphs.push_back(kv + ".");
    }
    if (!m.nccl_advice.empty()) mem.paragraphs.push_back(m.nccl_advice + ".");
  }
  r.sections.push_back(std::move(mem));

  ReportSection options;
  options.heading = "Every layout ranked";
  ReportTable t{{"rank", "layout", "speed", "switches", "fits", "weights/node", "KV cache/node",
                 "worst extra TTFT", "usable", "why"},
                {}};
  for (const auto& opt : g.plan.options) t.rows.push_back(plan_row(opt));
  options.tables.push_back(std::move(t));
  options.paragraphs.push_back(fmt::format("Extra TTFT against {}, for the {} workload.",
                                           g.plan.reference.name, g.workload));
  r.sections.push_back(std::move(options));

  if (!g.warnings.empty()) {
    ReportSection w;
    w.heading = "Warnings";
    for (const auto& text : g.warnings) w.items.push_back(name_fields(text, FieldNames::flags));
    r.sections.push_back(std::move(w));
  }

  ReportSection inputs;
  inputs.heading = "Inputs";
  std::string line = "tpnet";
  for (const auto& w : command_line()) line += " " + quoted_word(w);
  inputs.paragraphs.push_back(fmt::format("Made by tpnet {} with this command:", TPNET_VERSION));
  inputs.items.push_back(line);
  inputs.code = true;
  r.sections.push_back(std::move(inputs));
  return r;
}

Outcome run_report(const ReportOptions& o) {
  if (o.out.empty()) throw InputError("give the file to write", InputLocation::for_key("--out"));
  check_output_path(o.out, "--out");
  const bool markdown = o.kind == "markdown";
  const std::filesystem::path out(o.out);
  const std::string stem = out.stem().string();
  const Gathered g = run_decision_report(to_decision_request(o));
  const Report report = build_report(o, g);

  Outcome outcome;
  Document& doc = outcome.doc;
  doc.title = fmt::format("tpnet report: {} written", o.out);
  doc.fields.push_back(text("out", "report written to", o.out));
  std::vector<std::string> svgs;
  if (markdown) {
    for (const auto& s : report.sections) {
      for (const auto& f : s.figures) {
        const std::string path = (out.parent_path() / svg_file_name(stem, f)).string();
        check_output_path(path, "--out");
        write_file_atomically(path, f.svg, "--out");
        svgs.push_back(path);
      }
    }
    write_file_atomically(o.out, render_markdown(report, stem), "--out");
    doc.fields.push_back(texts("svgs", "charts written beside it", svgs));
  } else {
    write_file_atomically(o.out, render_html(report), "--out");
  }
  doc.fields.push_back(texts("verdict", "verdict", report.verdict));
  doc.warnings = g.warnings;
  return outcome;
}

}  // namespace

Command setup_report(CLI::App& app) {
  auto o = std::make_shared<ReportOptions>();
  CLI::App* sub = app.add_subcommand(
      "report",
      "A self-contained HTML design review (or Markdown with SVGs): verdict, charts, switch "
      "plan, memory fit, traps, inputs");
  add_engine_options(sub, o->engine, false);
  o->tp_option = sub->add_option("--tp,--tensor-parallel-size", o->engine.tp,
                                 "TP of the penalty, decode and timeline sections and of the "
                                 "--baseline's measurements (default: the recommended layout's)");
  add_cluster_options(sub, o->cluster);
  sub->add_option("--baseline", o->baseline,
                  "CSV of measured TTFT at the fastest speed (columns requests, "
                  "prompt_tokens_each, ttft_s), as tpnet penalty reads it");
  add_capacity_flags(sub, o->capacity, "Capacity (measured sweeps, as tpnet capacity reads them)",
                     "A sweep CSV, a vllm bench serve result, or a folder");
  add_calibration_options(sub, o->calibration);
  add_memory_options(sub, o->cluster.memory);
  add_price_file_options(sub, o->prices);
  add_objective_option(sub, o->prices);
  sub->add_option("--out", o->out, "The file to write (report.html, or report.md)")->required();
  sub->add_option("--format", o->kind,
                  "html: one self-contained file; markdown: the text, with each chart as an SVG "
                  "beside it (<stem>-<chart>-<hash>.svg)")
      ->check(CLI::IsMember({"html", "markdown"}))
      ->default_str("html");
  return Command{sub, [o] { return run_report(*o); },
                 std::shared_ptr<const std::string>(o, &o->summary_format)};
}

}  // namespace tpnet::cli
