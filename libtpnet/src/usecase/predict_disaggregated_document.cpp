// predict's words for its xPyD runs: a sentence of the answer and one table,
// each scenario at each link (docs/json.md, predict's "disaggregation").
#include <fmt/format.h>

#include "predict_disaggregated.hpp"

namespace tpnet {
namespace {

const char* busier_pool(const DisaggregatedResult& run) {
  return run.prefill_busier ? "prefill" : "decode";
}

Record disaggregated_row(const PredictScenarioResult& s, const PredictLink& l) {
  const DisaggregatedLink& d = *l.disaggregated;
  const DisaggregatedResult& run = d.run;
  const KvTransfer& kv = d.longest_transfer;
  const KvTransferTime& time = d.longest_transfer_time;
  return Record{
      text("scenario", "scenario", s.name),
      text("link", "link", l.link.name),
      text("layout", "layout", d.layout.name()),
      number("mean_hand_off_s", "hand-off, mean", run.mean_hand_off_s, kMilliseconds, 1),
      number("hand_off_share_of_ttft_pct", "hand-off share of TTFT",
             run.hand_off_share_of_ttft * 100.0, kPercent, 1),
      number("prefill_utilisation_pct", "prefill pool busy", run.prefill.utilisation * 100.0,
             kPercent, 1),
      number("decode_utilisation_pct", "decode pool busy", run.decode.utilisation * 100.0, kPercent,
             1),
      text("busiest_pool", "busiest pool", busier_pool(run)),
      json_only(integer("prefill_steps", "prefill steps", run.prefill.steps)),
      json_only(integer("decode_steps", "decode steps", run.decode.steps)),
      integer("longest_prompt_tokens", "longest prompt", static_cast<double>(kv.prompt_tokens)),
      json_only(integer("kv_blocks", "its KV blocks", static_cast<double>(kv.blocks))),
      number("kv_bytes_per_decode_rank", "its KV to a decode rank", kv.per_decode_rank.count(),
             kBytesMB, 1),
      json_only(number("kv_bytes_per_prefill_rank", "its KV from a prefill rank",
                       kv.per_prefill_rank.count(), kBytesMB, 1)),
      json_only(
          number("kv_bytes_total", "its KV, every decode rank", kv.total.count(), kBytesMB, 1)),
      json_only(number("kv_wire_s", "on the wire", time.wire.value(), kMilliseconds, 2)),
      json_only(flag("kv_host_staged", "staged through host memory", time.host_staged)),
      number("kv_staging_s", "host staging", time.staging.value(), kMilliseconds, 2),
      number("kv_transfer_s", "its hand-off", time.total.value(), kMilliseconds, 2),
  };
}

}  // namespace

std::string disaggregated_answer(const PredictLink& link) {
  const DisaggregatedLink& d = *link.disaggregated;
  return fmt::format(
      "{} at {}: the KV hand-off takes {:.1f} ms a request on average, {:.1f}% of TTFT; the {} "
      "pool is the busier ({:.0f}% of the run); not validated on Spark.",
      d.layout.name(), link.link.name, d.run.mean_hand_off_s * 1e3,
      d.run.hand_off_share_of_ttft * 100.0, busier_pool(d.run),
      (d.run.prefill_busier ? d.run.prefill.utilisation : d.run.decode.utilisation) * 100.0);
}

Field disaggregation_field(const PredictReport& report) {
  std::vector<Record> rows;
  for (const PredictScenarioResult& s : report.scenarios) {
    for (const PredictLink& l : s.links) {
      if (l.disaggregated) rows.push_back(disaggregated_row(s, l));
    }
  }
  return records("disaggregation",
                 "prefill/decode disaggregation (the longest prompt's hand-off; not validated on "
                 "Spark)",
                 std::move(rows));
}

}  // namespace tpnet
