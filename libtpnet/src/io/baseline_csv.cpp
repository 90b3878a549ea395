#include "tpnet/io/baseline_csv.hpp"

#include <fmt/format.h>

#include "csv_table.hpp"
#include "tpnet/io/text_file.hpp"
#include "tpnet/limits.hpp"
#include "tpnet/quantity.hpp"

namespace tpnet {

std::vector<PrefillScenario> parse_baseline_csv(std::string_view text, const std::string& origin) {
  const auto table = csv::Table::parse(text, origin);
  const auto name_column = table.column("test");
  const auto requests_column = table.require_column("requests");
  const auto tokens_column = table.require_column("prompt_tokens_each");
  const auto ttft_column = table.require_column("ttft_s");
  const auto output_column = table.column("output_tokens");
  const auto decode_column = table.column("decode_tok_s_per_request");

  std::vector<PrefillScenario> scenarios;
  for (const auto& row : table.rows()) {
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
    if (output_column) {
      const long long outputs = table.integer(row, *output_column);
      if (outputs < 1 || outputs > kMaxTokens) {
        throw InputError(fmt::format("is {}; allowed 1 to {} output tokens", outputs, kMaxTokens),
                         InputLocation::in_file(origin, row.line, "column output_tokens"));
      }
      s.output_tokens = outputs;
    }
    if (decode_column) {
      const double rate = table.number(row, *decode_column);
      if (!(rate >= kMinTokensPerSecond && rate <= kMaxTokensPerSecond)) {
        throw InputError(
            fmt::format("is {:g}; allowed {:g} to {:g} tokens/s", rate, kMinTokensPerSecond,
                        kMaxTokensPerSecond),
            InputLocation::in_file(origin, row.line, "column decode_tok_s_per_request"));
      }
      s.decode_tokens_per_s = rate;
    }
    s.name = name_column ? table.text(row, *name_column) : "row " + std::to_string(row.line);
    scenarios.push_back(std::move(s));
  }
  return scenarios;
}

std::vector<PrefillScenario> load_baseline_csv(const std::string& path) {
  return parse_baseline_csv(read_text_file(path), path);
}

}  // namespace tpnet
