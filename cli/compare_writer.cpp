// Streams a compare grid as CSV or JSON without building it in memory.

#include "compare_writer.hpp"

#include <fmt/format.h>

#include <iterator>

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
          {"weights_per_node_bytes", format_number(s.weights_per_node.count(), "weights")},
          {"fits_memory", s.fits_memory ? "true" : "false"}};
}

std::vector<Column> link_columns(const CompareRow& r) {
  return {{"from", r.from->name, true},
          {"from_bps", format_number(r.from->rate.bits_per_second(), "from_bps")},
          {"to", r.to->name, true},
          {"to_bps", format_number(r.to->rate.bits_per_second(), "to_bps")},
          {"comm_s_per_1k_tokens", format_number(r.comm_per_1k.value(), "comm")},
          {"extra_s_per_1k_tokens", format_number(r.extra_per_1k.value(), "extra")},
          {"decode_slowdown_pct", format_number(r.decode_slowdown * 100.0, "decode_slowdown")}};
}

std::vector<Column> prompt_columns(const PrefillScenario& p) {
  return {{"prompt", p.name, true},
          {"requests", format_number(static_cast<double>(p.prompt.requests), "requests")},
          {"prompt_tokens", format_number(static_cast<double>(p.prompt.total_tokens()), "tokens")}};
}

/// The per-row cells, appended without temporaries: this is the hot loop of
/// a million-row grid.
void append_row_tail(std::string& out, const CompareRow& r, bool projected, bool gated, bool csv) {
  auto cell = [&](const char* key, double value) {
    if (!csv) fmt::format_to(std::back_inserter(out), "\"{}\": ", key);
    append_number(out, value, key);
    out += csv ? "," : ", ";
  };
  cell("prefill_bytes_per_node", r.prefill_bytes.count());
  cell("extra_ttft_bound_s", r.extra_bound.value());
  if (projected) cell("projected_ttft_increase_pct", *r.projected_increase * 100.0);
  if (gated) {
    if (!csv) out += "\"within_budget\": ";
    out += r.within_budget ? "true" : "false";
    out += csv ? "," : ", ";
  }
  out.resize(out.size() - (csv ? 1 : 2));  // the last separator
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

/// Streams the grid as CSV or JSON, caching the parts shared by many rows so a
/// million rows take well under a second.
}  // namespace

std::uint64_t write_compare_grid(std::ostream& os, Format format, const CompareSpec& spec,
                                 const std::vector<LayoutSummary>& layouts,
                                 const Document& header) {
  std::uint64_t failed = 0;
  const bool projected = spec.baseline.has_value();
  const bool gated = spec.budgets.any();
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

  if (csv) {
    std::string head;
    for (const auto& c : layout_columns(layouts.front())) head += std::string(c.key) + ",";
    for (const char* k : {"from", "from_bps", "to", "to_bps", "comm_s_per_1k_tokens",
                          "extra_s_per_1k_tokens", "decode_slowdown_pct", "prompt", "requests",
                          "prompt_tokens", "prefill_bytes_per_node", "extra_ttft_bound_s"}) {
      head += std::string(k) + ",";
    }
    if (projected) head += "projected_ttft_increase_pct,";
    if (gated) head += "within_budget,";
    head.back() = '\n';
    buffer += head;
  } else {
    std::string top = render(header, Format::json);
    top.erase(top.find_last_of('}'));  // reopen the object to add the rows
    while (!top.empty() && (top.back() == '\n' || top.back() == ' ')) top.pop_back();
    buffer += top + ",\n  \"rows\": [";
  }

  const LayoutSummary* current_layout = nullptr;
  const Link* current_from = nullptr;
  const Link* current_to = nullptr;
  std::string layout_part;
  std::string link_part;
  std::size_t prompt_index = 0;
  bool first = true;
  for_each_compare_row(spec, layouts, [&](const CompareRow& r) {
    if (r.layout != current_layout) {
      current_layout = r.layout;
      current_from = nullptr;
      layout_part =
          csv ? csv_part(layout_columns(*r.layout)) : json_part(layout_columns(*r.layout));
    }
    if (r.from != current_from || r.to != current_to) {
      current_from = r.from;
      current_to = r.to;
      link_part = csv ? csv_part(link_columns(r)) : json_part(link_columns(r));
      prompt_index = 0;
    }
    if (!r.within_budget) ++failed;
    if (!csv) buffer += first ? "\n    {" : ",\n    {";
    buffer += layout_part;
    buffer += link_part;
    buffer += prompt_parts[prompt_index];
    append_row_tail(buffer, r, projected, gated, csv);
    first = false;
    ++prompt_index;
    flush(false);
  });
  if (!csv) buffer += "\n  ]\n}\n";
  flush(true);
  return failed;
}

}  // namespace tpnet::cli
