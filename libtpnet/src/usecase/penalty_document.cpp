// tpnet penalty's answer and document: the headline sentences, a row per
// scenario with each kind of extra TTFT beside the others (docs/json.md,
// "penalty").
#include <fmt/format.h>

#include "tpnet/usecase/penalty.hpp"
#include "tpnet/usecase/shared_fields.hpp"

namespace tpnet {
namespace {

void append_point_fields(Record& rec, const ScenarioPenalty& s, const Link& from, const Link& to) {
  const PrefillPoint& pt = *s.calibrated_point;
  rec.push_back(json_only(number("point_comm_from_s", "point comm at " + from.name,
                                 pt.comm_from.value(), kSeconds, 2)));
  rec.push_back(json_only(
      number("point_comm_to_s", "point comm at " + to.name, pt.comm_to.value(), kSeconds, 2)));
  rec.push_back(signed_number("point_extra_ttft_s", "point extra", pt.extra.value(), kSeconds, 2));
  if (s.scenario.baseline_ttft) {
    rec.push_back(json_only(number("point_ttft_at_to_s", "point TTFT at " + to.name,
                                   (*s.scenario.baseline_ttft + pt.extra).value(), kSeconds, 2)));
  }
  if (pt.compute && pt.network_share && pt.ttft_increase) {
    rec.push_back(
        json_only(number("point_compute_s", "measured compute", pt.compute->value(), kSeconds, 2)));
    rec.push_back(wide_only(
        number("point_network_share_pct", "point share", *pt.network_share * 100.0, kPercent, 1)));
    rec.push_back(wide_only(signed_number("point_ttft_increase_pct", "point TTFT increase",
                                          *pt.ttft_increase * 100.0, kPercent, 1)));
  }
}

Record scenario_record(const ScenarioPenalty& s, const Link& from, const Link& to) {
  // The default table answers "what does the slower link cost": the prompt,
  // the bound, the prediction and the TTFT they lead to; --wide adds the rest.
  Record rec{
      text("name", "test", s.scenario.name),
      wide_only(integer("requests", "requests", static_cast<double>(s.scenario.prompt.requests))),
      wide_only(integer("prompt_tokens_each", "tokens per request",
                        static_cast<double>(s.scenario.prompt.tokens_each))),
      integer("prompt_tokens", "prompt tokens", static_cast<double>(s.total_tokens)),
      wide_only(number("prefill_bytes_per_node", "prefill bytes/node",
                       s.prefill_bytes_per_node.count(), kBytesGB, 1)),
      json_only(
          integer("prefill_forwards", "prefill forwards", static_cast<double>(s.prefill_forwards))),
      json_only(number("step_block_bytes", "step block", s.step_block.count(), kBytesMB, 1)),
      wide_only(number("comm_time_from_s", "comm at " + from.name, s.comm_time_from.value(),
                       kSeconds, 2)),
      signed_number("extra_ttft_bound_s", "extra bound", s.nominal_bound.value(), kSeconds, 2),
  };
  if (s.calibrated_point) append_point_fields(rec, s, from, to);
  if (s.predicted_extra) {
    rec.push_back(json_only(number("predicted_comm_from_s", "predicted comm at " + from.name,
                                   s.predicted_comm_from->value(), kSeconds, 2)));
    rec.push_back(json_only(number("predicted_comm_to_s", "predicted comm at " + to.name,
                                   s.predicted_comm_to->value(), kSeconds, 2)));
    rec.push_back(signed_number("predicted_extra_ttft_s", "predicted", s.predicted_extra->value(),
                                kSeconds, 2));
    if (const auto& range = s.predicted_extra_range) {
      // The spread of the profiles' measured curves (formulas.md s.29), as
      // compact as the column beside it: "+8.31..+8.49".
      rec.push_back(table_only(text("predicted_extra_range", "range", range_cell(*range))));
      rec.push_back(json_only(signed_number("predicted_extra_ttft_low_s", "predicted extra low",
                                            range->low.value(), kSeconds, 2)));
      rec.push_back(json_only(signed_number("predicted_extra_ttft_high_s", "predicted extra high",
                                            range->high.value(), kSeconds, 2)));
    }
    rec.push_back(wide_only(signed_number("achieved_bound_ttft_s", "bound at achieved rates",
                                          s.achieved_bound->value(), kSeconds, 2)));
    rec.push_back(json_only(number("achieved_bound_from_bps", "achieved rate at " + from.name,
                                   s.predicted_gap->from_rate.bits_per_second(), kGbps, 1)));
    rec.push_back(json_only(number("achieved_bound_to_bps", "achieved rate at " + to.name,
                                   s.predicted_gap->to_rate.bits_per_second(), kGbps, 1)));
    rec.push_back(json_only(number("achieved_bound_size_bytes", "at all-reduce size",
                                   s.predicted_gap->at_size.count(), kBytesMB, 1)));
    if (s.predicted_ttft_at_to) {
      rec.push_back(number("predicted_ttft_s", "predicted TTFT at " + to.name,
                           s.predicted_ttft_at_to->value(), kSeconds, 2));
    }
  }
  if (s.scenario.baseline_ttft) {
    rec.push_back(
        number("baseline_ttft_s", "baseline TTFT", s.scenario.baseline_ttft->value(), kSeconds, 2));
    rec.push_back(
        wide_only(number("network_share_pct", "net share", *s.network_share * 100.0, kPercent, 1)));
    rec.push_back(wide_only(signed_number("ttft_increase_bound_pct", "TTFT increase bound",
                                          *s.ttft_increase_bound * 100.0, kPercent, 1)));
    rec.push_back(wide_only(number("ttft_bound_s", "TTFT bound at " + to.name,
                                   s.ttft_bound_at_to->value(), kSeconds, 2)));
  }
  rec.push_back(texts("notes", "notes", s.notes));
  return rec;
}

/// The longest prompt of the run: the most tokens in one request, then in all.
const ScenarioPenalty* longest_prompt(const PenaltyReport& r) {
  const ScenarioPenalty* longest = nullptr;
  for (const auto& s : r.scenarios) {
    if (longest == nullptr ||
        s.scenario.prompt.tokens_each > longest->scenario.prompt.tokens_each ||
        (s.scenario.prompt.tokens_each == longest->scenario.prompt.tokens_each &&
         s.total_tokens > longest->total_tokens)) {
      longest = &s;
    }
  }
  return longest;
}

std::string signed_s(Seconds t) { return fmt::format("{:+.2f} s", t.value()); }

/// The three sentences `make run` opens with: what the slower link costs the
/// longest prompt, per 1,000 prompt tokens, and what it does to decode.
}  // namespace

std::vector<std::string> penalty_answer(const PenaltyReport& r) {
  const std::optional<DecodeReport>& decode = r.decode;
  const ScenarioPenalty* longest = longest_prompt(r);
  if (longest == nullptr || r.from.name == r.to.name) return {};
  // A bound holds only at the rates it assumes: the nominal one while the
  // links carry their nominal rates, the achieved one at the rates the
  // profiles measured. With a prediction the headline is the prediction and
  // the bounds follow, each with its rates.
  const std::string nominal_rates =
      fmt::format("{:.0f} and {:.0f} Gb/s", r.to.rate.bits_per_second() / 1e9,
                  r.from.rate.bits_per_second() / 1e9);
  const std::string head = fmt::format("{} vs {}: longest prompt ({}, {} tokens)", r.to.name,
                                       r.from.name, longest->scenario.name, longest->total_tokens);
  std::vector<std::string> out;
  std::string bounds;
  if (longest->predicted_extra) {
    out.push_back(fmt::format("{} {} TTFT predicted.", head, signed_s(*longest->predicted_extra)));
    bounds = fmt::format("Bounds on the longest prompt's cost: {} at the nominal {}",
                         signed_s(longest->nominal_bound), nominal_rates);
    if (longest->achieved_bound && longest->predicted_gap) {
      bounds += fmt::format(", {} at the {:.1f} and {:.1f} Gb/s the profiles measured",
                            signed_s(*longest->achieved_bound),
                            longest->predicted_gap->to_rate.bits_per_second() / 1e9,
                            longest->predicted_gap->from_rate.bits_per_second() / 1e9);
    }
    bounds += ".";
  } else {
    out.push_back(fmt::format("{} {} TTFT at most if both links carry their nominal {}.", head,
                              signed_s(longest->nominal_bound), nominal_rates));
  }
  out.push_back(
      fmt::format("Per 1,000 prompt tokens: {} at most (every byte at the nominal rates).",
                  fmt::format("{:+.3f} s", r.extra_per_1k_tokens.value())));
  if (!decode) {
    if (!bounds.empty()) out.push_back(bounds);
    return out;
  }
  const bool unchanged = decode->regime == CommRegime::latency_bound;
  out.push_back(fmt::format(
      "Decode {}: {} adds at most {:.2f} ms a forward, {:.1f}% of its {:.1f} ms weight-read floor.",
      unchanged ? "does not change" : "slows", r.to.name,
      decode->max_added_per_forward.value() * 1e3, decode->max_added_share * 100.0,
      decode->weight_read_floor.value() * 1e3));
  if (!bounds.empty()) out.push_back(bounds);
  return out;
}

Document penalty_document(const PenaltyRequest& request, const PenaltyReport& r) {
  const ModelArch& model = request.model;
  const EngineConfig& engine = request.engine;
  const Link& from = request.from.link;
  const Link& to = request.to.link;
  const std::string from_fabric = request.from.fabric ? request.from.fabric->name : "none";
  const std::string to_fabric = request.to.fabric ? request.to.fabric->name : "none";

  std::vector<Record> rows;
  for (const auto& s : r.scenarios) rows.push_back(scenario_record(s, from, to));

  Document doc;
  doc.answer = penalty_answer(r);
  doc.title = fmt::format(
      "tpnet penalty: {}, {} -> {}; bounds (no overlap) at the nominal rates and at the rates "
      "the profiles achieve, predicted on {} and {}{}",
      describe(model, engine), from.name, to.name, from_fabric, to_fabric,
      r.calibration ? "; point estimates from " + r.calibration->file->origin : "");
  doc.fields = {
      text("model", "model", model.name),
      integer("tp", "tensor-parallel size", engine.tensor_parallel_size),
      text("algorithm", "all-reduce algorithm", std::string(to_string(engine.algorithm))),
      integer("chunk_tokens", "prefill chunk", static_cast<double>(engine.max_num_batched_tokens)),
      link_summary("from link", from, request.collective),
      link_summary("to link", to, request.collective),
      link_record("from", "from link", from, request.collective),
      link_record("to", "to link", to, request.collective),
      number("per_token_bytes", "bytes per prompt token per node", r.per_token_bytes.count(),
             kBytesMB, 2),
      text("per_token_source", "bytes per token from",
           r.per_token_measured ? fmt::format("measured ({})", request.measured_per_token_origin)
                                : "formula"),
      signed_number("extra_s_per_1k_tokens", "extra time per 1,000 prompt tokens",
                    r.extra_per_1k_tokens.value(), kSeconds, 3),
      records("scenarios", "scenarios", std::move(rows)),
  };
  if (request.from.fabric && request.to.fabric) {
    doc.fields.push_back(records(
        "fabrics", "fabric profiles (the predicted column)",
        {fabric_fields(from, *request.from.fabric), fabric_fields(to, *request.to.fabric)}));
  }
  doc.warnings = r.warnings;
  return doc;
}

}  // namespace tpnet
