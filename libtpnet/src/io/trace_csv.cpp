#include "tpnet/io/trace_csv.hpp"

#include <fmt/format.h>

#include <optional>

#include "csv_table.hpp"
#include "tpnet/base/limits.hpp"
#include "tpnet/io/text_file.hpp"

namespace tpnet {

std::vector<ScheduledRequest> parse_trace_csv(std::string_view text, const std::string& origin) {
  struct Columns {
    std::size_t arrival, prompt, output;
  };
  std::optional<Columns> columns;
  std::vector<ScheduledRequest> requests;
  csv::Table::stream(text, origin, [&](const csv::Table& table, const csv::Row& row) {
    if (!columns) {
      columns = Columns{table.require_column("arrival_s"), table.require_column("prompt_tokens"),
                        table.require_column("output_tokens")};
    }
    auto at = [&](const char* column) {
      return InputLocation::in_file(origin, row.line, std::string("column ") + column);
    };
    ScheduledRequest r;
    r.arrival_s = table.number(row, columns->arrival);
    if (!(r.arrival_s >= 0.0 && r.arrival_s <= kMaxSeconds)) {
      throw InputError(fmt::format("is {:g}; allowed 0 to 3.6e+08 s", r.arrival_s),
                       at("arrival_s"));
    }
    r.prompt_tokens = table.integer(row, columns->prompt);
    r.output_tokens = table.integer(row, columns->output);
    for (const auto& [value, name] : {std::pair{r.prompt_tokens, "prompt_tokens"},
                                      std::pair{r.output_tokens, "output_tokens"}}) {
      if (value < 1 || value > kMaxTokens) {
        throw InputError(fmt::format("is {}; allowed 1 to {} tokens", value, kMaxTokens), at(name));
      }
    }
    if (requests.size() >= static_cast<std::size_t>(kMaxPromptRequests)) {
      throw InputError(fmt::format("more than {} requests", kMaxPromptRequests), at("arrival_s"));
    }
    requests.push_back(r);
  });
  if (requests.empty()) {
    throw InputError("has no requests (rows of arrival_s,prompt_tokens,output_tokens)",
                     InputLocation::in_file(origin, 1, ""));
  }
  return requests;
}

std::vector<ScheduledRequest> load_trace_csv(const std::string& path) {
  return parse_trace_csv(read_text_file(path), path);
}

}  // namespace tpnet
