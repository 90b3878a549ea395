// tpnet models' answers as documents: the catalog, one row a model, and one
// model's shapes, parameter estimate, weights per node and prefill compute
// (docs/json.md, "models" and "models show").
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "tpnet/usecase/model_summary.hpp"

namespace tpnet {
namespace {

Field billions_field(std::string key, std::string label, double value) {
  return number(std::move(key), std::move(label), value, kBillions, 2);
}

/// Estimate against stated, in percent; 0 when nothing is stated.
double percent_off_stated(double estimate, double stated) {
  return stated > 0.0 ? (estimate / stated - 1.0) * 100.0 : 0.0;
}

/// One run of the plan in JSON: its count and the layer's whole shape.
Record layer_run_fields(const LayerRun& run) {
  const MixerSpec& mixer = run.layer.mixer;
  const AttentionSpec& a = mixer.attention;
  const FfnSpec& ffn = run.layer.ffn;
  Record fields{count("count", "layers", run.count),
                text("mixer", "mixer", std::string(to_string(mixer.kind))),
                text("ffn", "FFN", std::string(to_string(ffn.kind))),
                text("description", "layer", describe_layer(run.layer))};
  if (is_attention(mixer.kind)) {
    Record attention{count("q_heads", "query heads", a.q_heads),
                     count("kv_heads", "KV heads", a.kv_heads),
                     count("head_dim", "query/key head size", a.head_dim),
                     count("v_head_dim", "value head size", a.v_head_dim),
                     count("window", "window (tokens)", a.window),
                     flag("output_gate", "gated output", a.output_gate),
                     flag("shared_kv", "K serves as V", a.shared_kv),
                     flag("borrowed_kv", "K and V of an earlier layer", a.borrowed_kv),
                     flag("latent", "latent (MLA)", a.latent),
                     count("sparse_top_k", "sparse top-k", a.indexer.top_k),
                     count("index_heads", "indexer heads", a.indexer.heads),
                     count("index_head_dim", "indexer head size", a.indexer.head_dim)};
    if (a.latent) {
      attention.push_back(record("mla", "MLA",
                                 {count("kv_lora_rank", "kv rank", a.mla.kv_lora_rank),
                                  count("q_lora_rank", "q rank", a.mla.q_lora_rank),
                                  count("qk_rope_head_dim", "rope", a.mla.qk_rope_head_dim),
                                  count("qk_nope_head_dim", "nope", a.mla.qk_nope_head_dim),
                                  count("v_head_dim", "v", a.mla.v_head_dim)}));
    }
    attention.push_back(
        count("compress_ratio", "compress ratio", a.compressed ? a.compression.ratio : 0));
    fields.push_back(record("attention", "attention", std::move(attention)));
  } else if (mixer.kind == Mixer::linear_attention) {
    const LinearAttentionSpec& l = mixer.linear;
    fields.push_back(
        record("linear_attention", "linear attention",
               {text("kind", "kind", std::string(to_string(l.kind))),
                count("key_heads", "key heads", l.key_heads),
                count("value_heads", "value heads", l.value_heads),
                count("key_head_dim", "key head size", l.key_head_dim),
                count("value_head_dim", "value head size", l.value_head_dim),
                count("conv_kernel", "convolution width", l.conv_kernel),
                count("gate_rank", "gate rank", l.gate_rank),
                flag("full_rank_output_gate", "full-rank output gate", l.full_rank_output_gate)}));
  } else if (mixer.kind == Mixer::mamba) {
    const MambaSpec& s = mixer.mamba;
    fields.push_back(record(
        "mamba", "Mamba-2",
        {count("heads", "heads", s.heads), count("head_dim", "head size", s.head_dim),
         count("state_size", "state size", s.state_size), count("groups", "groups", s.groups),
         count("conv_kernel", "convolution width", s.conv_kernel),
         count("state_bytes", "bytes per state element", s.state_bytes)}));
  }
  if (ffn.kind == FfnKind::dense) {
    fields.push_back(count("ffn_width", "FFN width", ffn.width));
  } else if (ffn.kind == FfnKind::moe) {
    const MoeSpec& e = ffn.moe;
    fields.push_back(
        record("moe", "experts",
               {count("routed_experts", "routed experts", e.routed_experts),
                count("experts_per_token", "experts per token", e.experts_per_token),
                count("expert_intermediate_size", "expert width", e.expert_intermediate_size),
                count("shared_experts", "shared experts", e.shared_experts),
                count("shared_expert_intermediate_size", "shared expert width",
                      e.shared_experts > 0 ? e.shared_width() : 0),
                count("latent_size", "latent width", e.latent_size)}));
  }
  if (ffn.kind != FfnKind::none) fields.push_back(flag("gated", "gated", ffn.gated));
  return fields;
}

/// The model's shapes: the layer plan run by run, and the counts and shapes
/// listings show, each a view of the plan (its first attention layer's
/// heads, its first MoE layer's experts, how many layers of each kind).
Record model_shape_fields(const ModelSummary& summary) {
  const ModelArch& m = summary.model;
  const LayerPlan& plan = m.layers;
  const MoeSpec* first_experts = first_moe(plan);
  const MoeSpec moe = first_experts != nullptr ? *first_experts : MoeSpec{};
  const AttentionSpec* first = first_attention(plan);
  const AttentionSpec attention = first != nullptr ? *first : AttentionSpec{};
  const MlaSpec mla = attention.latent ? attention.mla : MlaSpec{};
  const MixerSpec* linear_mixer = first_mixer(plan, Mixer::linear_attention);
  const LinearAttentionSpec linear =
      linear_mixer != nullptr ? linear_mixer->linear : LinearAttentionSpec{};
  const MixerSpec* mamba_mixer = first_mixer(plan, Mixer::mamba);
  const MambaSpec mamba = mamba_mixer != nullptr ? mamba_mixer->mamba : MambaSpec{};
  const MixerSpec* sliding_mixer = first_mixer(plan, Mixer::sliding_window);
  const auto widths = dense_widths(plan);
  const LayerTally& layers = summary.layers;
  const CompressedLayerCounts& ratios = summary.compressed_layers;
  const CompressedAttentionSpec compressed =
      attention.compressed ? attention.compression : CompressedAttentionSpec{};
  bool gated = true;
  for (const LayerRun& run : plan.runs()) {
    if (run.layer.ffn.kind != FfnKind::none) {
      gated = run.layer.ffn.gated;
      break;
    }
  }
  std::vector<Record> runs;
  for (const LayerRun& run : plan.runs()) runs.push_back(layer_run_fields(run));
  Record fields{
      count("hidden_size", "hidden size", m.hidden_size),
      count("num_layers", "layers", m.num_layers()),
      count("vocab_size", "vocabulary", m.vocab_size),
      count("num_attention_heads", "attention heads", attention.q_heads),
      count("num_kv_heads", "KV heads", attention.kv_heads),
      count("head_dim", "head size", attention.head_dim),
      text("attention", "attention", attention_label(plan)),
      count("sparse_attention_top_k", "sparse attention top-k", attention.indexer.top_k),
      count("intermediate_size", "dense FFN width", widths.empty() ? 0 : widths.front().first),
      record(
          "moe", "mixture of experts",
          {flag("present", "present", first_experts != nullptr),
           count("routed_experts", "routed experts", moe.routed_experts),
           count("experts_per_token", "experts per token", moe.experts_per_token),
           count("shared_experts", "shared experts", moe.shared_experts),
           count("expert_intermediate_size", "expert width", moe.expert_intermediate_size),
           moe.shared_experts > 0
               ? count("shared_expert_intermediate_size", "shared expert width", moe.shared_width())
               : json_only(count("shared_expert_intermediate_size", "shared expert width", 0)),
           count("first_dense_layers", "dense layers",
                 first_experts != nullptr ? layers.dense : 0)}),
      record("mla", "latent attention (MLA)",
             {flag("present", "present", mla.stated()),
              count("kv_lora_rank", "kv rank", mla.kv_lora_rank),
              count("q_lora_rank", "q rank", mla.q_lora_rank),
              count("qk_rope_head_dim", "rope head size", mla.qk_rope_head_dim),
              count("qk_nope_head_dim", "nope head size", mla.qk_nope_head_dim),
              count("v_head_dim", "value head size", mla.v_head_dim)}),
      count("linear_attention_layers", "linear-attention layers", layers.linear),
      record("linear_attention", "linear attention",
             {flag("present", "present", linear_mixer != nullptr),
              count("key_heads", "key heads", linear.key_heads),
              count("value_heads", "value heads", linear.value_heads),
              count("key_head_dim", "key head size", linear.key_head_dim),
              count("value_head_dim", "value head size", linear.value_head_dim),
              count("conv_kernel", "convolution width", linear.conv_kernel)}),
      count("sparse_attention_index_heads", "sparse index heads", attention.indexer.heads),
      count("sparse_attention_index_head_dim", "sparse index head size",
            attention.indexer.head_dim),
      count("sliding_window_tokens", "sliding window (tokens)",
            sliding_mixer != nullptr ? sliding_mixer->attention.window : 0),
      count("sliding_window_layers", "sliding-window layers", layers.sliding),
      record("layer_plan", "layer plan",
             {count("attention", "attention mixers", layers.attention),
              count("sliding_window", "sliding-window mixers", layers.sliding),
              count("chunked_attention", "chunked-attention mixers", layers.chunked),
              count("linear_attention", "linear-attention mixers", layers.linear),
              count("mamba", "Mamba-2 mixers", layers.mamba),
              count("cross_attention", "cross-attention mixers", layers.cross),
              count("no_mixer", "layers without a mixer", layers.no_mixer),
              count("dense_ffn", "dense FFNs", layers.dense), count("moe", "MoE FFNs", layers.moe),
              count("no_ffn", "layers without an FFN", layers.no_ffn),
              count("reduced_blocks", "blocks all-reduced under TP", layers.reduced_blocks),
              json_only(records("runs", "runs", std::move(runs)))}),
      table_only(texts("", "layers, run by run", describe_runs(plan))),
      flag("gated_ffn", "gated FFNs (3 matrices)", gated),
      record("mamba", "Mamba-2",
             {flag("present", "present", mamba_mixer != nullptr),
              count("heads", "heads", mamba.heads), count("head_dim", "head size", mamba.head_dim),
              count("state_size", "state size", mamba.state_size),
              count("groups", "groups", mamba.groups),
              count("conv_kernel", "convolution width", mamba.conv_kernel),
              count("state_bytes", "bytes per state element",
                    mamba_mixer != nullptr ? mamba.state_bytes : 0)}),
      record("compressed_attention", "compressed attention (DeepSeek-V4)",
             {flag("present", "present", attention.compressed),
              count("head_dim", "head size (K = V)", compressed.head_dim),
              count("q_lora_rank", "q rank", compressed.q_lora_rank),
              count("qk_rope_head_dim", "rope head size", compressed.qk_rope_head_dim),
              count("o_lora_rank", "output rank", compressed.o_lora_rank),
              count("o_groups", "output groups", compressed.o_groups),
              count("hc_mult", "hyper-connection streams", m.hyper_connections),
              count("window_only_layers", "layers with the window alone", ratios.window_only),
              count("ratio_4_layers", "layers compressing 4 to 1", ratios.ratio_4),
              count("ratio_128_layers", "layers compressing 128 to 1", ratios.ratio_128)}),
      count("moe_latent_size", "MoE latent width", moe.latent_size),
      count("mtp_layers", "MTP layers", m.mtp_layers),
      flag("tie_word_embeddings", "tied embeddings", m.tie_word_embeddings),
      text("torch_dtype", "dtype", m.torch_dtype),
      text("quantization", "quantization", m.quantization),
  };
  // Tables leave out what a model does not have: zeros, empty text, absent
  // groups; the layer plan's counts and the per-kind shapes repeat the runs,
  // which the table shows.
  for (auto& f : fields) {
    const bool absent = (f.kind == Field::Kind::number && f.number == 0.0) ||
                        (f.kind == Field::Kind::text && f.text.empty()) ||
                        (f.key == "moe" && first_experts == nullptr) ||
                        (f.key == "mla" && !mla.stated()) ||
                        (f.key == "linear_attention" && linear_mixer == nullptr) ||
                        (f.key == "mamba" && mamba_mixer == nullptr) ||
                        (f.key == "compressed_attention" && !attention.compressed);
    if (absent) f = json_only(std::move(f));
    if (f.kind == Field::Kind::record) {
      for (auto& inner : f.records.front()) {
        if (inner.key == "present") inner = json_only(std::move(inner));
      }
    }
  }
  return fields;
}

/// Whether the model's source states `key` (total_params, active_params):
/// a config.json states neither, and its counts are this estimate itself.
bool states_count(const ModelArch& m, const std::string& key) {
  return m.assumptions.count(key) == 0;
}

Field param_estimate_record(const ModelArch& m, const ParamEstimate& e) {
  Record fields{flag("complete", "complete", e.complete()),
                texts("missing_keys", "missing", e.missing),
                billions_field("total_params", "total", e.total_params())};
  // Against itself the comparison is 0% by construction: left out.
  if (states_count(m, "total_params")) {
    fields.push_back(signed_number("total_vs_stated_pct", "total vs stated",
                                   percent_off_stated(e.total_params(), m.total_params), kPercent,
                                   2));
  }
  fields.push_back(billions_field("active_params", "active", e.active_params()));
  if (states_count(m, "active_params")) {
    fields.push_back(signed_number("active_vs_stated_pct", "active vs stated",
                                   percent_off_stated(e.active_params(), m.active_params), kPercent,
                                   2));
  }
  Record rest{billions_field("mtp_params", "MTP layers", e.mtp),
              billions_field("total_with_mtp_params", "total with MTP", e.total_with_mtp()),
              billions_field("embedding_params", "embedding", e.total.embedding),
              billions_field("lm_head_params", "LM head", e.total.lm_head),
              billions_field("attention_params", "attention", e.total.attention),
              billions_field("dense_ffn_params", "dense FFN", e.total.dense_ffn),
              billions_field("routed_expert_params", "routed experts", e.total.routed_experts),
              billions_field("routed_expert_active_params", "routed experts read per token",
                             e.active.routed_experts),
              billions_field("shared_expert_params", "shared experts", e.total.shared_experts),
              billions_field("router_params", "router", e.total.router),
              billions_field("latent_projection_params", "latent MoE projections",
                             e.total.latent_projections)};
  for (auto& f : rest) fields.push_back(std::move(f));
  return json_only(record("param_estimate", "parameter estimate", std::move(fields)));
}

/// The estimate beside the stated counts, for people.
std::vector<Field> param_estimate_lines(const ModelArch& m, const ParamEstimate& e) {
  if (!e.complete()) {
    return {table_only(text("", "parameter estimate",
                            fmt::format("needs {} (docs/models.md)", fmt::join(e.missing, ", "))))};
  }
  auto against = [&m](double estimate, double count, const std::string& key) {
    if (!states_count(m, key))
      return fmt::format("{:.2f} B (nothing stated to compare)", estimate / 1e9);
    return fmt::format("{:.2f} B (stated {:.2f} B, {:+.2f}%)", estimate / 1e9, count / 1e9,
                       percent_off_stated(estimate, count));
  };
  const ParamParts& t = e.total;
  std::vector<Field> lines{
      table_only(
          text("", "total, estimated", against(e.total_params(), m.total_params, "total_params"))),
      table_only(text("", "active, estimated",
                      against(e.active_params(), m.active_params, "active_params"))),
  };
  if (e.mtp > 0.0) {
    lines.push_back(table_only(
        text("", "MTP layers, estimated", fmt::format("{:.2f} B, not in the total", e.mtp / 1e9))));
  }
  lines.push_back(table_only(text(
      "", "estimate by part",
      fmt::format("embedding {:.2f} B, LM head {:.2f} B, attention {:.2f} B, dense FFN {:.2f} B, "
                  "routed experts {:.2f} B, shared experts {:.2f} B, router {:.3f} B{} (norms "
                  "and biases left out; docs/formulas.md s.8)",
                  t.embedding / 1e9, t.lm_head / 1e9, t.attention / 1e9, t.dense_ffn / 1e9,
                  t.routed_experts / 1e9, t.shared_experts / 1e9, t.router / 1e9,
                  t.latent_projections > 0.0
                      ? fmt::format(", latent MoE projections {:.2f} B", t.latent_projections / 1e9)
                      : std::string()))));
  return lines;
}

}  // namespace

Document model_catalog_document(const std::vector<ModelArch>& models) {
  std::vector<Record> rows;
  rows.reserve(models.size());
  for (const ModelArch& m : models) {
    std::vector<std::string> assumed;
    for (const auto& [key, why] : m.assumptions) assumed.push_back(key);
    const auto missing = prefill_compute_missing(m);
    rows.push_back({
        text("name", "name", m.name),
        integer("hidden_size", "hidden", static_cast<double>(m.hidden_size)),
        integer("num_layers", "layers", m.num_layers()),
        integer("vocab_size", "vocab", static_cast<double>(m.vocab_size)),
        integer("num_attention_heads", "heads",
                first_attention(m.layers) != nullptr ? first_attention(m.layers)->q_heads : 0),
        text("attention", "attention", attention_label(m.layers)),
        number("total_params", "params", m.total_params, kBillions, 1),
        number("active_params", "active", m.active_params, kBillions, 1),
        number("bits_per_weight", "bits/weight", m.bits_per_weight, kCount, 1),
        json_only(text("description", "description", m.description)),
        json_only(text("source", "source", m.source)),
        integer("assumed_values", "assumed values", static_cast<double>(assumed.size())),
        json_only(texts("assumed_keys", "assumed", assumed)),
        text("predict", "predict", missing ? fmt::format("needs {}", missing->key) : "yes"),
        json_only(text("predict_missing", "predict needs", missing ? missing->reason : "")),
    });
  }
  Document doc;
  doc.fields = {records("models", "models", std::move(rows))};
  return doc;
}

Document model_summary_document(const ModelSummary& summary) {
  const ModelArch& m = summary.model;
  const ParamEstimate& e = summary.estimate;

  Document doc;
  doc.title = fmt::format("tpnet models show: {}", m.name);
  doc.warnings = summary.warnings;
  doc.fields = {text("name", "name", m.name), text("description", "description", m.description),
                text("source", "source", m.source)};
  for (auto& f : model_shape_fields(summary)) doc.fields.push_back(std::move(f));
  doc.fields.push_back(billions_field("total_params",
                                      states_count(m, "total_params")
                                          ? "total parameters (stated)"
                                          : "total parameters (estimated)",
                                      m.total_params));
  doc.fields.push_back(billions_field("active_params",
                                      states_count(m, "active_params")
                                          ? "active parameters (stated)"
                                          : "active parameters (estimated)",
                                      m.active_params));
  doc.fields.push_back(number("bits_per_weight", "bits per weight", m.bits_per_weight, kCount, 2));
  doc.fields.push_back(number("effective_bits_per_weight", "bits per weight over every part",
                              summary.effective_bits, kCount, 3));
  doc.fields.push_back(param_estimate_record(m, e));
  for (auto& f : param_estimate_lines(m, e)) doc.fields.push_back(std::move(f));
  std::vector<std::string> lines;
  for (const auto& [key, why] : m.assumptions) lines.push_back(fmt::format("{} - {}", key, why));
  doc.fields.push_back(table_only(texts("", "assumed", std::move(lines))));

  std::vector<Record> per_tp;
  for (const ModelTpRow& row : summary.per_tp) {
    per_tp.push_back({text("name", "TP", fmt::format("TP{}", row.tp)),
                      json_only(integer("tp", "tp", row.tp)),
                      number("weights_per_node_bytes", "weights per node",
                             row.weights_per_node.count(), kBytesGB, 1),
                      number("per_token_bytes", "bytes per prompt token",
                             row.per_token_bytes.count(), kBytesMB, 2),
                      flag("heads_divide", "heads divide", row.heads_divide)});
  }
  doc.fields.push_back(records("per_tp", "per node at each TP size", std::move(per_tp)));
  std::vector<Record> parts;
  for (const WeightPartRow& p : summary.parts) {
    parts.push_back(
        {text("part", "part", std::string(to_string(p.part))),
         number("bits_per_weight", "bits/weight", p.bits, kCount, 2),
         number("model_bytes", "whole model", p.model_bytes.count(), kBytesGB, 2),
         number("node_bytes_at_tp8", "per node at TP8", p.node_bytes_at_tp8.count(), kBytesGB, 2)});
  }
  doc.fields.push_back(records("weights_by_part", "weights by part", std::move(parts)));
  std::vector<Record> compute;
  for (const PrefillComputeRow& r : summary.prefill_compute) {
    compute.push_back(
        {integer("prompt_tokens", "prompt", static_cast<double>(r.prompt_tokens)),
         number("gemm_flops_per_token", "weight GEMMs", r.gemm_flops_per_token, kGigaflops, 2),
         number("mixer_flops_per_token", "attention and mixers", r.mixer_flops_per_token,
                kGigaflops, 2),
         number("mixer_share_percent", "mixer share", 100.0 * r.mixer_share(), kPercent, 1)});
  }
  doc.fields.push_back(records("prefill_compute",
                               "prefill compute per prompt token, whole model, from an empty "
                               "KV cache (docs/formulas.md s.18.1)",
                               std::move(compute)));
  if (!summary.prefill_compute_missing.empty()) {
    doc.fields.push_back(table_only(
        text("", "prefill compute", fmt::format("needs {}", summary.prefill_compute_missing))));
  }

  Record assumptions;
  for (const auto& [key, why] : m.assumptions) assumptions.push_back(text(key, key, why));
  doc.fields.push_back(json_only(record("assumptions", "assumptions", std::move(assumptions))));
  return doc;
}

}  // namespace tpnet
