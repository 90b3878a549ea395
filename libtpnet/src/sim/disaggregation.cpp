#include "tpnet/sim/disaggregation.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <optional>

namespace tpnet {
namespace {

constexpr int kMostInstances = 1024;

/// The count at the front of `text` up to `letter` (either case), consumed.
std::optional<int> leading_count(std::string_view& text, char letter) {
  int value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc{} || end == text.data()) return std::nullopt;
  text.remove_prefix(static_cast<std::size_t>(end - text.data()));
  if (text.empty() || std::toupper(static_cast<unsigned char>(text.front())) != letter) {
    return std::nullopt;
  }
  text.remove_prefix(1);
  if (value < 1 || value > kMostInstances) return std::nullopt;
  return value;
}

void require_time(Seconds time, const char* field, bool positive) {
  const double v = time.value();
  require_field(std::isfinite(v) && (positive ? v > 0.0 : v >= 0.0), field,
                positive ? "must be a time above 0 s" : "must be a time of at least 0 s");
}

}  // namespace

std::string DisaggregationLayout::name() const {
  std::string out = fmt::format("{}P{}D", prefill_instances, decode_instances);
  if (prefill_tp == decode_tp && prefill_tp > 1) {
    out += fmt::format(" TP{}", prefill_tp);
  } else if (prefill_tp > 1 || decode_tp > 1) {
    out += fmt::format(" (P TP{}, D TP{})", prefill_tp, decode_tp);
  }
  return out;
}

DisaggregationLayout parse_disaggregation(std::string_view text, const InputLocation& where) {
  std::string_view rest = text;
  const std::optional<int> prefill = leading_count(rest, 'P');
  const std::optional<int> decode = prefill ? leading_count(rest, 'D') : std::nullopt;
  if (!prefill || !decode || !rest.empty()) {
    throw InputError(fmt::format("'{}' is not xPyD: prefill and decode instances, each 1 to {}, "
                                 "as in 2P1D",
                                 text, kMostInstances),
                     where);
  }
  DisaggregationLayout layout;
  layout.prefill_instances = *prefill;
  layout.decode_instances = *decode;
  return layout;
}

DisaggregationRates disaggregation_rates(const DisaggregationInput& input) {
  const DisaggregationLayout& layout = input.layout;
  require_field(layout.prefill_instances >= 1, "disaggregation.prefill_instances",
                "must be at least 1");
  require_field(layout.decode_instances >= 1, "disaggregation.decode_instances",
                "must be at least 1");
  require_field(layout.prefill_tp >= 1, "disaggregation.prefill_tp", "must be at least 1");
  require_field(layout.decode_tp >= 1, "disaggregation.decode_tp", "must be at least 1");
  require_field(input.decode_batch >= 1, "disaggregation.decode_batch", "must be at least 1");
  require_field(input.output_tokens >= 1, "workload.output_tokens", "must be at least 1 token");
  require_time(input.prefill_per_request, "disaggregation.prefill_per_request", true);
  require_time(input.kv_transfer, "disaggregation.kv_transfer", false);
  require_time(input.decode_step, "disaggregation.decode_step", true);

  DisaggregationRates out;
  out.prefill_requests_per_s = layout.prefill_instances / input.prefill_per_request.value();
  // A request holds a decode slot for its every output token's step.
  const double request_decode_s =
      static_cast<double>(input.output_tokens) * input.decode_step.value();
  out.decode_requests_per_s =
      static_cast<double>(layout.decode_instances) * input.decode_batch / request_decode_s;
  out.prefill_bound = out.prefill_requests_per_s < out.decode_requests_per_s;
  out.served_requests_per_s = std::min(out.prefill_requests_per_s, out.decode_requests_per_s);
  out.matched_prefill_instances = out.decode_requests_per_s * input.prefill_per_request.value();
  out.ttft = input.prefill_per_request + input.kv_transfer + input.decode_step;
  out.decode_tokens_per_s = TokenRate(1.0 / input.decode_step.value());
  return out;
}

}  // namespace tpnet
