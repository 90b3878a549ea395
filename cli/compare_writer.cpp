// Streams a compare grid as CSV or JSON without building it in memory.

#include "compare_writer.hpp"

#include <fmt/format.h>

#include <iterator>

#include "tpnet/base/error.hpp"

namespace tpnet::cli {
namespace {

/// The row's cells, layout first and prompt last, as CSV and JSON print them.
struct Column {
  const char* key;
  std::string value;  ///< already formatted; text values are quoted for JSON by `quoted`
  bool quoted = false;
};

std::vector<Column> layout_columns(const LayoutSummary& s) {
  return {{"layout", s.layout.name(), true},
          {"tp", format_number(s.layout.tp, "tp")},
          {"pp", format_number(s.layout.pp, "pp")},
          {"ep", format_number(s.layout.ep, "ep")},
          {"nodes", format_number(s.layout.nodes(), "nodes")},
          {"per_token_bytes", format_number(s.per_token_bytes.count(), "per_token_bytes")},
          {"bytes_ratio", format_number(s.bytes_ratio, "bytes_ratio")},
          {"compute_ratio", format_number(s.compute_ratio, "compute_ratio")},
          {"steps_per_forward", format_number(s.steps_per_forward, "steps_per_forward")},
          {"prefill_forward_bytes", format_number(s.prefill_forward_bytes.count(), "prefill")},
          {"prefill_messages_per_forward",
           format_number(static_cast<double>(s.prefill_messages), "messages")},
          {"decode_forward_bytes", format_number(s.decode_forward_bytes.count(), "decode")},
          {"decode_messages_per_forward",
           format_number(static_cast<double>(s.decode_messages), "messages")},
          {"weights_per_node_bytes", format_number(s.weights_per_node().count(), "weights")},
          {"fits_memory", s.fits_memory() ? "true" : "false"}};
}

std::vector<Column> link_columns(const Link& from, const Link& to, const CompareRow& r) {
  return {{"from", from.name, true},
          {"from_bps", format_number(from.rate.bits_per_second(), "from_bps")},
          {"to", to.name, true},
          {"to_bps", format_number(to.rate.bits_per_second(), "to_bps")},
          {"comm_s_per_1k_tokens", format_number(r.comm_per_1k.value(), "comm")},
          {"extra_s_per_1k_tokens", format_number(r.extra_per_1k.value(), "extra")},
          {"decode_slowdown_pct", format_number(r.decode_slowdown * 100.0, "decode_slowdown")}};
}

std::vector<Column> prompt_columns(const PrefillScenario& p) {
  return {{"prompt", p.name, true},
          {"requests", format_number(static_cast<double>(p.prompt.requests), "requests")},
          {"prompt_tokens", format_number(static_cast<double>(p.prompt.total_tokens()), "tokens")}};
}

/// The per-row cells after the prompt's.
enum class Tail {
  prefill_bytes,
  extra_bound,
  point_comm,
  point_extra,
  point_share,
  point_increase,
  predicted_extra,
  predicted_bound,
  ttft_increase,
  ttft_source,
  within_budget
};

struct TailKey {
  const char* key;
  Tail cell;
};

/// Keys of the per-row cells, in the order append_row_tail writes them.
std::vector<TailKey> tail_keys(const CompareReport& report) {
  std::vector<TailKey> keys{{"prefill_bytes_per_node", Tail::prefill_bytes},
                            {"extra_ttft_bound_s", Tail::extra_bound}};
  if (report.calibration) {
    keys.push_back({"point_comm_from_s", Tail::point_comm});
    keys.push_back({"point_extra_ttft_s", Tail::point_extra});
    if (report.calibration->compute != nullptr) {
      keys.push_back({"point_network_share_pct", Tail::point_share});
      keys.push_back({"point_ttft_increase_pct", Tail::point_increase});
    }
  }
  if (!report.request.from_fabrics.empty()) {
    keys.push_back({"predicted_extra_ttft_s", Tail::predicted_extra});
    keys.push_back({"achieved_bound_ttft_s", Tail::predicted_bound});
  }
  if (report.projected()) {
    keys.push_back({"ttft_increase_pct", Tail::ttft_increase});
    keys.push_back({"ttft_source", Tail::ttft_source});
  }
  const bool gated = report.gated();
  if (gated) keys.push_back({"within_budget", Tail::within_budget});
  return keys;
}

/// The per-row cells, appended without temporaries: this is the hot loop of
/// a million-row grid.
void append_row_tail(std::string& out, const CompareRow& r, const std::vector<TailKey>& keys,
                     bool csv) {
  const std::optional<PrefillPoint>& point = r.point;
  // PP and EP layouts are not predicted: null (JSON) or empty (CSV).
  const auto append_predicted = [&](const std::optional<Seconds>& value, const char* key) {
    if (value) {
      append_number(out, value->value(), key);
    } else if (!csv) {
      out += "null";
    }
  };
  for (std::size_t i = 0; i < keys.size(); ++i) {
    const char* key = keys[i].key;
    if (!csv) fmt::format_to(std::back_inserter(out), "\"{}\": ", key);
    switch (keys[i].cell) {
      case Tail::prefill_bytes:
        append_number(out, r.prefill_bytes.count(), key);
        break;
      case Tail::extra_bound:
        append_number(out, r.extra_bound.value(), key);
        break;
      case Tail::point_comm:
        append_number(out, point->comm_from.value(), key);
        break;
      case Tail::point_extra:
        append_number(out, point->extra.value(), key);
        break;
      case Tail::point_share:
        append_number(out, point->network_share.value_or(0.0) * 100.0, key);
        break;
      case Tail::point_increase:
        append_number(out, point->ttft_increase.value_or(0.0) * 100.0, key);
        break;
      case Tail::predicted_extra:
        append_predicted(r.predicted_extra, key);
        break;
      case Tail::predicted_bound:
        append_predicted(r.predicted_bound, key);
        break;
      case Tail::ttft_increase:
        append_number(out, r.ttft_increase.value_or(0.0) * 100.0, key);
        break;
      case Tail::ttft_source: {
        const char* source = !r.ttft_increase ? "none" : r.ttft_measured ? "measured" : "projected";
        out += csv ? source : json_string(source);
        break;
      }
      case Tail::within_budget:
        out += r.within_budget ? "true" : "false";
        break;
    }
    if (i + 1 < keys.size()) out += csv ? "," : ", ";
  }
  out += csv ? "\n" : "}";
}

std::string csv_part(const std::vector<Column>& columns) {
  std::string out;
  for (const auto& c : columns) {
    out += c.quoted && c.value.find_first_of(",\"") != std::string::npos ? json_string(c.value)
                                                                         : c.value;
    out += ',';
  }
  return out;
}

std::string json_part(const std::vector<Column>& columns) {
  std::string out;
  for (const auto& c : columns) {
    out += fmt::format("\"{}\": {}, ", c.key, c.quoted ? json_string(c.value) : c.value);
  }
  return out;
}

}  // namespace

/// Streams the grid as CSV or JSON, caching the parts shared by many rows so a
/// million rows take well under a second.
std::uint64_t write_compare_grid(std::ostream& os, Format format, const CompareReport& report,
                                 const Document& header) {
  std::uint64_t failed = 0;
  const CompareRequest& spec = report.request;
  const std::vector<LayoutSummary>& layouts = report.layouts;
  const bool gated = report.gated();
  const bool csv = format == Format::csv;
  std::vector<std::string> prompt_parts;
  for (const auto& p : spec.prompts) {
    prompt_parts.push_back(csv ? csv_part(prompt_columns(p)) : json_part(prompt_columns(p)));
  }
  std::string buffer;
  buffer.reserve(1 << 20);
  auto flush = [&](bool force) {
    if (force || buffer.size() > (1 << 19)) {
      os.write(buffer.data(), static_cast<std::streamsize>(buffer.size()));
      buffer.clear();
    }
  };

  const auto keys = tail_keys(report);
  if (csv) {
    // The header from the same columns the rows are written from.
    std::string head;
    for (const auto& part : {layout_columns(layouts.front()),
                             link_columns(spec.from.front(), spec.to.front(), CompareRow{}),
                             prompt_columns(spec.prompts.front())}) {
      for (const auto& c : part) head += std::string(c.key) + ",";
    }
    for (const auto& key : keys) head += std::string(key.key) + ",";
    head.back() = '\n';
    buffer += head;
  } else {
    // The header's fields, then "rows", then gate_passed and warnings last.
    Document fields_only = header;
    fields_only.warnings.clear();
    std::string top = render(fields_only, Format::json);
    top.erase(top.rfind("\"warnings\""));
    buffer += top + "\"rows\": [";
  }
  const LayoutSummary* current_layout = nullptr;
  const Link* current_from = nullptr;
  const Link* current_to = nullptr;
  std::string layout_part;
  std::string link_part;
  std::size_t prompt_index = 0;
  bool first = true;
  for_each_compare_row(report, [&](const CompareRow& r) {
    if (r.layout == nullptr || r.from == nullptr || r.to == nullptr || r.prompt == nullptr) {
      throw Error("a compare row lacks its layout, links or prompt");
    }
    if (r.layout != current_layout) {
      current_layout = r.layout;
      current_from = nullptr;
      layout_part =
          csv ? csv_part(layout_columns(*r.layout)) : json_part(layout_columns(*r.layout));
    }
    if (r.from != current_from || r.to != current_to) {
      current_from = r.from;
      current_to = r.to;
      const auto columns = link_columns(*r.from, *r.to, r);
      link_part = csv ? csv_part(columns) : json_part(columns);
      prompt_index = 0;
    }
    if (!r.within_budget) ++failed;
    if (!csv) buffer += first ? "\n    {" : ",\n    {";
    buffer += layout_part;
    buffer += link_part;
    buffer += prompt_parts[prompt_index];
    append_row_tail(buffer, r, keys, csv);
    first = false;
    ++prompt_index;
    flush(false);
  });
  if (!csv) {
    buffer += "\n  ],\n";
    if (gated) buffer += fmt::format("  \"gate_passed\": {},\n", failed == 0);
    buffer += "  \"warnings\": [";
    for (std::size_t i = 0; i < header.warnings.size(); ++i) {
      if (i > 0) buffer += ", ";
      buffer += json_string(header.warnings[i]);
    }
    buffer += "]\n}\n";
  }
  flush(true);
  return failed;
}

}  // namespace tpnet::cli
