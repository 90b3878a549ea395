#include "tpnet/io/baseline_csv.hpp"

#include <fmt/format.h>

#include <optional>

#include "csv_table.hpp"
#include "tpnet/base/limits.hpp"
#include "tpnet/base/quantity.hpp"
#include "tpnet/io/text_file.hpp"

namespace tpnet {

std::vector<PrefillScenario> parse_baseline_csv(std::string_view text, const std::string& origin) {
  struct Columns {
    std::optional<std::size_t> name;
    std::size_t requests, tokens, ttft;
    std::optional<std::size_t> output, decode;
  };
  std::optional<Columns> columns;
  std::vector<PrefillScenario> scenarios;
  // Streamed, and no more rows than one run takes as scenarios: the memory
  // is the scenarios', never the whole table's cells.
  csv::Table::stream(text, origin, [&](const csv::Table& table, const csv::Row& row) {
    if (!columns) {
      columns = Columns{table.column("test"),
                        table.require_column("requests"),
                        table.require_column("prompt_tokens_each"),
                        table.require_column("ttft_s"),
                        table.column("output_tokens"),
                        table.column("decode_tok_s_per_request")};
    }
    if (scenarios.size() == kMaxScenarios) {
      throw InputError(fmt::format("is row {}; a baseline may have at most {} rows, the "
                                   "scenarios one run takes",
                                   kMaxScenarios + 1, kMaxScenarios),
                       InputLocation::in_file(origin, row.line));
    }
    const std::size_t requests_column = columns->requests;
    const std::size_t tokens_column = columns->tokens;
    const std::size_t ttft_column = columns->ttft;
    auto at = [&](std::size_t column) {
      return InputLocation::in_file(
          origin, row.line,
          "column " + std::string(column == requests_column ? "requests"
                                  : column == tokens_column ? "prompt_tokens_each"
                                                            : "ttft_s"));
    };
    PrefillScenario s;
    s.prompt.requests = table.integer(row, requests_column);
    s.prompt.tokens_each = table.integer(row, tokens_column);
    // The same limits as --prompt: what the fuzzers' contract holds every path to.
    require_prompt_limits(s.prompt, at(requests_column), at(tokens_column));
    const double ttft = table.number(row, ttft_column);
    if (ttft <= 0.0) throw InputError("must be a positive TTFT in seconds", at(ttft_column));
    if (ttft < kMinSeconds || ttft > kMaxSeconds) {
      throw InputError(fmt::format("is {:g}; allowed 1e-09 to 3.6e+08 s (1 ns to 100,000 h)", ttft),
                       at(ttft_column));
    }
    s.baseline_ttft = Seconds(ttft);
    if (columns->output) {
      const long long outputs = table.integer(row, *columns->output);
      if (outputs < 1 || outputs > kMaxTokens) {
        throw InputError(fmt::format("is {}; allowed 1 to {} output tokens", outputs, kMaxTokens),
                         InputLocation::in_file(origin, row.line, "column output_tokens"));
      }
      s.output_tokens = outputs;
    }
    if (columns->decode) {
      const double rate = table.number(row, *columns->decode);
      if (!(rate >= kMinTokensPerSecond && rate <= kMaxTokensPerSecond)) {
        throw InputError(
            fmt::format("is {:g}; allowed {:g} to {:g} tokens/s", rate, kMinTokensPerSecond,
                        kMaxTokensPerSecond),
            InputLocation::in_file(origin, row.line, "column decode_tok_s_per_request"));
      }
      s.decode_tokens_per_s = rate;
    }
    s.name = columns->name ? table.text(row, *columns->name) : "row " + std::to_string(row.line);
    scenarios.push_back(std::move(s));
  });
  return scenarios;
}

std::vector<PrefillScenario> load_baseline_csv(const std::string& path) {
  return parse_baseline_csv(read_text_file(path), path);
}

}  // namespace tpnet
