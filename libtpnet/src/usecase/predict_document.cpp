// tpnet predict's answer as a document: the settings, each link's fabric
// profile, the compute fit and the decode fit, a table per link and the
// scenarios between the first two links (docs/json.md, "predict").
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <iterator>
#include <string>
#include <vector>

#include "predict_disaggregated.hpp"
#include "tpnet/usecase/predict.hpp"
#include "tpnet/usecase/shared_fields.hpp"

namespace tpnet {
namespace {

Record link_result(const PredictLink& l) {
  std::vector<double> firsts;
  for (const Seconds s : l.first_token) firsts.push_back(s.value());
  // Tables list each request's TTFT for a handful of requests; JSON always.
  Field each = numbers("first_token_s", "TTFT each", firsts, kSeconds, 2);
  if (firsts.size() > 8) each = json_only(std::move(each));
  Record out{
      text("link", "link", l.link.name),
      text("fabric", "fabric", l.fabric.name),
      number("last_first_token_s", "last first token", l.last_first_token.value(), kSeconds, 2),
      number("mean_ttft_s", "mean TTFT", l.mean_ttft.value(), kSeconds, 2),
      std::move(each),
      number("decode_tokens_per_s", "decode tokens/s a request", l.decode_tokens_per_s, kCount, 1),
      number("network_share_pct", "net share", l.network_share * 100.0, kPercent, 1),
      json_only(number("communication_s", "communication", l.communication.value(), kSeconds, 3)),
      json_only(
          number("sent_bytes_per_node", "sent per node", l.sent_per_node.count(), kBytesGB, 2)),
      json_only(integer("steps", "steps", l.schedule.step_count)),
      json_only(integer("mixed_steps", "mixed steps", l.schedule.mixed_steps)),
      json_only(number("finished_s", "last token", l.finished.value(), kSeconds, 2)),
  };
  if (l.alltoall_share) {
    out.push_back(number("alltoall_share_pct", "all-to-all share of net", *l.alltoall_share * 100.0,
                         kPercent, 1));
  }
  if (const auto& e = l.expected) {
    // Ranged only where expected rates price the run: measured runs keep their columns.
    out.push_back(table_only(
        text("expected_range", "expected range",
             fmt::format("{:.2f}-{:.2f} s, {:.1f}-{:.1f} tok/s", e->last_first_token_fast.value(),
                         e->last_first_token_slow.value(), e->decode_tokens_per_s_slow,
                         e->decode_tokens_per_s_fast))));
    out.push_back(json_only(record(
        "expected_range", "expected range",
        Record{
            number("last_first_token_fast_s", "fast", e->last_first_token_fast.value(), kSeconds,
                   2),
            number("last_first_token_slow_s", "slow", e->last_first_token_slow.value(), kSeconds,
                   2),
            number("decode_tokens_per_s_slow", "slow", e->decode_tokens_per_s_slow, kCount, 1),
            number("decode_tokens_per_s_fast", "fast", e->decode_tokens_per_s_fast, kCount, 1)})));
  }
  return out;
}

Record scenario_record(const PredictScenarioResult& s) {
  std::vector<Record> links;
  for (const auto& l : s.links) links.push_back(link_result(l));
  Record rec{
      text("name", "scenario", s.name),
      integer("requests", "requests", s.requests),
      integer("prompt_tokens_each", "tokens each", static_cast<double>(s.prompt_tokens_each)),
      json_only(
          integer("output_tokens_each", "outputs each", static_cast<double>(s.output_tokens_each))),
      json_only(integer("prompt_tokens", "prompt tokens", static_cast<double>(s.prompt_tokens))),
  };
  if (s.extra_last_first_token) {
    rec.push_back(signed_number("extra_last_first_token_s", "extra",
                                s.extra_last_first_token->value(), kSeconds, 2));
    if (const auto& range = s.extra_last_first_token_range) {
      rec.push_back(table_only(text("extra_last_first_token_range", "range", range_cell(*range))));
      rec.push_back(json_only(
          signed_number("extra_last_first_token_low_s", "low", range->low.value(), kSeconds, 2)));
      rec.push_back(json_only(signed_number("extra_last_first_token_high_s", "high",
                                            range->high.value(), kSeconds, 2)));
    }
    rec.push_back(signed_number("increase_last_first_token_pct", "increase",
                                *s.increase_last_first_token * 100.0, kPercent, 1));
    rec.push_back(wide_only(signed_number("extra_mean_ttft_s", "extra mean TTFT",
                                          s.extra_mean_ttft->value(), kSeconds, 2)));
    rec.push_back(wide_only(signed_number("increase_mean_ttft_pct", "mean increase",
                                          *s.increase_mean_ttft * 100.0, kPercent, 1)));
  }
  if (s.bound_extra) {
    rec.push_back(signed_number("bound_extra_s", "bound at nominal rates", s.bound_extra->value(),
                                kSeconds, 2));
  }
  rec.push_back(json_only(
      integer("most_prefills_in_a_step", "prompts sharing a step", s.most_prefills_in_a_step)));
  rec.push_back(texts("why", "why", s.why));
  rec.push_back(json_only(records("links", "links", std::move(links))));
  return rec;
}

/// One table per link: each scenario's numbers at that link.
Field per_link_table(const PredictReport& r, std::size_t link) {
  std::vector<Record> rows;
  for (const auto& s : r.scenarios) {
    Record row{text("name", "scenario", s.name)};
    for (auto& f : link_result(s.links[link])) {
      if (f.key == "link" || f.key == "fabric") continue;
      row.push_back(std::move(f));
    }
    rows.push_back(std::move(row));
  }
  const PredictLink& first = r.scenarios.front().links[link];
  return table_only(records("at_" + first.link.name,
                            "at " + first.link.name + " (" + describe(first.fabric) + ")",
                            std::move(rows)));
}

Field fit_record(const PredictReport& r) {
  const PrefillComputeModel& m = r.fit.model;
  std::vector<Record> rows;
  for (const auto& row : r.fit.rows) {
    rows.push_back(Record{
        text("name", "row", row.name),
        integer("prompt_tokens", "prompt tokens", static_cast<double>(row.prompt_tokens)),
        number("measured_ttft_s", "measured TTFT", row.measured.value(), kSeconds, 2),
        number("communication_s", "communication", row.communication.value(), kSeconds, 2),
        number("predicted_ttft_s", "fitted TTFT", row.predicted.value(), kSeconds, 2),
        signed_number("residual_pct", "residual", row.residual_pct, kPercent, 1),
    });
  }
  return record("fit", "prefill compute",
                Record{text("source", "from", r.fit.source),
                       number("per_step_s", "per step", m.per_step.value(), kMilliseconds, 1),
                       number("gemm_s_per_pflop", "GEMMs, seconds per PFLOP",
                              m.seconds_per_gemm_flop * 1e15, kSeconds, 3),
                       number("mixer_s_per_pflop", "token mixing, seconds per PFLOP",
                              m.seconds_per_mixer_flop * 1e15, kSeconds, 3),
                       json_only(number("gemm_flops_per_token", "GEMM FLOPs per token",
                                        r.cost.flops_per_token, kGigaflops, 2)),
                       texts("coefficients_fitted", "fitted", r.fit.coefficients_fitted),
                       records("rows", "fit to the baseline", std::move(rows))});
}

Field decode_record(const PredictReport& r) {
  std::vector<Record> points;
  for (const auto& p : r.decode.points) {
    points.push_back(Record{
        integer("tp", "TP", p.measured.tp),
        number("measured_itl_s", "measured ITL", p.measured.itl.value(), kMilliseconds, 2),
        number("weight_read_floor_s", "weight reads", p.weight_read_floor.value(), kMilliseconds,
               2),
        number("communication_s", "communication", p.communication.value(), kMilliseconds, 2),
        number("predicted_itl_s", "fitted ITL", p.predicted.value(), kMilliseconds, 2),
        signed_number("residual_pct", "residual", p.residual_pct, kPercent, 1),
    });
  }
  return record(
      "decode", "decode forwards",
      Record{
          text("source", "efficiency from",
               r.decode.source.empty() ? "none (the weight-read floor)" : r.decode.source),
          number("efficiency", "memory bandwidth achieved", r.decode.efficiency, kCount, 3),
          number("weight_read_floor_s", "weight reads of one request's forward at this TP",
                 r.decode_model.weight_read(1 + r.decode_model_drafts).value(), kMilliseconds, 2),
          number("accepted_tokens_per_decode", "accepted tokens per forward", r.accepted_tokens,
                 kCount, 2),
          records("points", "fit to the measured ITL", std::move(points))});
}

Field fabric_records(const PredictRequest& req, bool show_sources) {
  std::vector<Record> rows;
  for (const ProfiledLink& l : req.links)
    rows.push_back(fabric_fields(l.link, *l.fabric, show_sources));
  return records("fabrics", "fabric profiles", std::move(rows));
}

}  // namespace

Document predict_document(const PredictRequest& req, const PredictReport& r, bool show_sources) {
  Document doc;
  doc.answer = predict_answer(r);
  doc.csv = CsvLayout::sections;  // the settings, then the fabrics and the scenarios
  std::vector<std::string> link_names;
  for (const ProfiledLink& l : req.links) link_names.push_back(l.link.name);
  const std::string layout =
      req.data_parallel_size > 1
          ? fmt::format("{} at TP{} x DP{}, the experts over {} ranks", req.model.name,
                        req.engine.tensor_parallel_size, req.data_parallel_size,
                        req.data_parallel_size * req.engine.tensor_parallel_size)
          : describe(req.model, req.engine);
  doc.title = fmt::format("tpnet predict: {}; vLLM's scheduler step by step at {}", layout,
                          fmt::join(link_names, ", "));
  std::vector<Record> rows;
  for (const auto& s : r.scenarios) rows.push_back(scenario_record(s));
  doc.fields = {
      text("model", "model", req.model.name),
      integer("tp", "tensor-parallel size", req.engine.tensor_parallel_size),
      integer("chunk_tokens", "step budget (max_num_batched_tokens)",
              static_cast<double>(req.engine.max_num_batched_tokens)),
      integer("long_prefill_token_threshold", "long_prefill_token_threshold",
              static_cast<double>(req.engine.long_prefill_token_threshold)),
      integer("max_num_seqs", "max_num_seqs", req.engine.max_num_seqs),
      integer("spec_tokens", "speculative tokens", req.engine.num_speculative_tokens),
      number("overlap_pct", "communication overlapped", req.overlap * 100.0, kPercent, 0),
      fabric_records(req, show_sources),
      fit_record(r),
      decode_record(r),
  };
  if (req.data_parallel_size > 1) {
    // An EP layout says itself beside the TP; plain TP's answer keeps its fields.
    const int ranks = req.engine.tensor_parallel_size * req.data_parallel_size;
    std::vector<Field> layout_fields;
    layout_fields.push_back(
        integer("data_parallel_size", "data-parallel size", req.data_parallel_size));
    layout_fields.push_back(
        integer("expert_parallel_size", "expert-parallel ranks (TP x DP, one a node)", ranks));
    layout_fields.push_back(text("all2all_backend", "all-to-all backend",
                                 std::string(to_string(req.engine.all2all_backend))));
    doc.fields.insert(doc.fields.begin() + 2, std::make_move_iterator(layout_fields.begin()),
                      std::make_move_iterator(layout_fields.end()));
  }
  for (std::size_t i = 0; i < req.links.size(); ++i) doc.fields.push_back(per_link_table(r, i));
  if (req.disaggregation) doc.fields.push_back(disaggregation_field(r));
  doc.fields.push_back(records("scenarios", "between the first two links", std::move(rows)));
  doc.fields.push_back(texts("notes", "note", r.notes));
  doc.warnings = r.warnings;
  return doc;
}

}  // namespace tpnet
