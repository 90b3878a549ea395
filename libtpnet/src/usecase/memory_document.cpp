// tpnet memory's answer as a document: what one node holds part by part,
// what is left for the KV cache and whether it fits; or, for the smallest TP
// that fits, that answer and every size tried (docs/json.md, "memory").
#include <fmt/format.h>

#include "tpnet/base/quantity.hpp"
#include "tpnet/usecase/memory.hpp"

namespace tpnet {
namespace {

constexpr DisplayUnit kMebibytes{"MiB", 1048576.0};

Field memory_gigabytes(std::string key, std::string label, Bytes value) {
  return number(std::move(key), std::move(label), value.count(), kBytesGB, 2);
}

/// How the caller names `field`: its own name unless the caller says otherwise.
std::string field_named(const MemoryDocumentNames& names, std::string_view field) {
  return names.field ? names.field(field) : std::string(field);
}

/// The KV cache in tokens and sequences; empty when its size per token is unknown.
Record memory_kv_fields(const MemoryReport& r, const MemoryDocumentNames& names) {
  Record out;
  if (r.kv_bytes_per_token) {
    out.push_back(number("kv_bytes_per_token", "KV cache per token per node",
                         r.kv_bytes_per_token->count(), kBytesKB, 1));
    out.push_back(text("kv_bytes_per_token_source", "per-token size from",
                       r.kv_per_token_given    ? field_named(names, "memory.kv_bytes_per_token")
                       : r.kv_per_token_stated ? "model file"
                                               : "architecture"));
    if (r.stage_layer_share < 1.0) {
      out.push_back(number("stage_layer_share", "share of the layers on this node",
                           r.stage_layer_share, kCount, 3));
    }
  }
  if (r.kv_tokens) out.push_back(count("kv_tokens", "KV cache tokens", *r.kv_tokens));
  if (r.sequence_bytes) {
    out.push_back(number("sequence_bytes",
                         fmt::format("one sequence of {} tokens", r.max_model_len),
                         r.sequence_bytes->count(), kBytesGB, 3));
  }
  if (r.sequence) {
    const SequenceState& s = *r.sequence;
    out.push_back(json_only(record(
        "sequence", "one max-model-len sequence by layer kind",
        {number("attention_bytes", "full attention", s.attention.count(), kBytesGB, 3),
         number("sparse_index_bytes", "DSA index keys", s.sparse_index.count(), kBytesGB, 3),
         number("sliding_window_bytes", "sliding windows", s.sliding_window.count(), kBytesGB, 3),
         number("linear_state_bytes", "linear-attention state", s.linear_state.count(), kBytesGB,
                3)})));
  }
  if (r.max_model_len_fits) {
    out.push_back(
        flag("max_model_len_fits", "one max-model-len sequence fits", *r.max_model_len_fits));
  }
  if (r.max_sequences) {
    out.push_back(count("max_sequences", "max-model-len sequences at once", *r.max_sequences));
  }
  if (r.longest_sequence_tokens) {
    out.push_back(count("longest_sequence_tokens", "longest one sequence can be",
                        *r.longest_sequence_tokens));
  }
  if (r.max_num_seqs_bytes) {
    out.push_back(
        memory_gigabytes("max_num_seqs_bytes",
                         fmt::format("{} {} such sequences",
                                     field_named(names, "engine.max_num_seqs"), r.max_num_seqs),
                         *r.max_num_seqs_bytes));
  }
  return out;
}

/// Where the Engram tables live and what of them counts; empty for a model without them.
Record memory_engram_fields(const MemoryReport& r, const MemoryDocumentNames& names) {
  if (!r.has_engram) return {};
  const EngramTables& e = r.engram;
  return {
      text("engram_tables",
           fmt::format("Engram tables ({})", field_named(names, "memory.engram_tables")),
           std::string(to_string(e.placement))),
      memory_gigabytes("engram_table_bytes", "Engram tables per node", e.per_node),
      memory_gigabytes("engram_gpu_bytes", "  in GPU memory", e.gpu),
      memory_gigabytes("engram_host_bytes",
                       e.host_counted ? "  in pinned host memory (unified: counted)"
                                      : "  in pinned host memory (not counted)",
                       e.host),
      memory_gigabytes("engram_disk_bytes", "  on disk (not counted)", e.disk),
      flag("engram_host_counted", "host memory counts against the budget", e.host_counted),
      memory_gigabytes("engram_counted_bytes", "Engram tables counted", e.counted),
      memory_gigabytes("gpu_weights_bytes", "model on the GPU (weights + Engram in GPU memory)",
                       r.gpu_weights_bytes),
  };
}

/// NCCL, CUDA graphs, activations, the budget they leave and the settings
/// that size the KV cache.
Record memory_runtime_fields(const MemoryReport& r, const MemoryDocumentNames& names) {
  return {
      integer("nccl_channels", "NCCL_MAX_NCHANNELS (buffers per peer)", r.nccl_channels),
      number("nccl_buffsize_bytes", "NCCL_BUFFSIZE", r.nccl_buffsize.count(), kMebibytes, 2),
      text("nccl_profile", "NCCL settings", r.nccl_tuned ? "node's tuned pair" : "NCCL's own"),
      integer("nccl_ranks", "NCCL communicator ranks", r.nccl_ranks),
      memory_gigabytes("nccl_bytes", "NCCL buffers", r.nccl_bytes),
      memory_gigabytes("cuda_graph_bytes", "CUDA graphs", r.cuda_graph_bytes),
      // A row only where an EP layout runs DeepEP; JSON always has the key.
      r.alltoall_buffer_bytes.count() > 0.0
          ? memory_gigabytes("alltoall_buffer_bytes", "DeepEP buffers", r.alltoall_buffer_bytes)
          : json_only(memory_gigabytes("alltoall_buffer_bytes", "DeepEP buffers",
                                       r.alltoall_buffer_bytes)),
      count("chunk_tokens", "prefill chunk", r.chunk_tokens),
      number("activation_factor", "activation factor", r.activation_factor, kTimes, 1),
      memory_gigabytes("activation_peak_bytes", "activation peak", r.activation_peak_bytes),
      memory_gigabytes(
          "autotune_spike_bytes",
          fmt::format("autotune spike ({})", field_named(names, "memory.autotune_spike")),
          r.autotune_spike_bytes),
      memory_gigabytes("fixed_bytes",
                       r.has_engram ? "fixed parts (weights, Engram counted, NCCL, graphs, ...)"
                                    : "weights + NCCL + graphs + activations",
                       r.fixed_bytes),
      flag("fixed_fits", "fixed parts fit the budget", r.fixed_fits),
      r.fixed_fits
          ? json_only(memory_gigabytes("shortfall_bytes", "short of the budget by", Bytes(0.0)))
          : memory_gigabytes("shortfall_bytes", "short of the budget by", r.shortfall_bytes),
      memory_gigabytes("kv_cache_bytes", "left for the KV cache", r.kv_cache_bytes),
      text("kv_cache_dtype", field_named(names, "memory.kv_cache_dtype"), names.kv_cache_dtype),
      integer("kv_cache_dtype_bytes", "bytes per KV element", r.kv_cache_dtype_bytes),
      count("max_model_len", field_named(names, "memory.max_model_len"), r.max_model_len),
      integer("max_num_seqs", field_named(names, "engine.max_num_seqs"), r.max_num_seqs),
  };
}

Record memory_report_fields(const ModelArch& model, const MemoryReport& r,
                            const MemoryDocumentNames& names) {
  // Replicated parts as an object keyed by part, so CSV stays one key,value list.
  Record parts;
  std::vector<std::string> lines;
  parts.reserve(r.weights.replicated.size());
  lines.reserve(r.weights.replicated.size());
  for (const auto& p : r.weights.replicated) {
    const Bytes bytes = p.node_bytes;
    parts.push_back(record(p.name, p.name,
                           {number("params", "params", p.params, kBillions, 3),
                            number("node_params", "held per node", p.node_params, kBillions, 3),
                            memory_gigabytes("node_bytes", "bytes per node", bytes)}));
    lines.push_back(fmt::format("{} ({:.3f} B params, {:.2f} GB per node)", p.name,
                                p.node_params / 1e9, bytes.count() / 1e9));
  }
  Record out{
      text("model", "model", model.name),
      integer("tp", "tensor-parallel size", r.tp),
      text("node", "node", r.node),
      memory_gigabytes("node_memory_bytes", "usable memory per node", r.node_memory),
      memory_gigabytes("os_reserved_bytes", "the node's OS reserve (reserved_memory)",
                       r.os_reserved),
      number("gpu_memory_utilization", field_named(names, "memory.gpu_memory_utilization"),
             r.gpu_memory_utilization, kCount, 2),
      memory_gigabytes("budget_bytes", "vLLM's budget (memory x utilization)", r.budget),
      memory_gigabytes("weights_bytes", "weights", r.weights_bytes),
      memory_gigabytes("weights_split_bytes", "  split over TP", r.weights.split),
      memory_gigabytes("weights_replicated_bytes", "  held whole by every rank",
                       r.weights.replicated_bytes),
      memory_gigabytes("weights_mtp_bytes", "  MTP layers (drafting)", r.weights.mtp),
      table_only(texts("", "    part", std::move(lines))),
  };
  for (auto& f : memory_engram_fields(r, names)) out.push_back(std::move(f));
  for (auto& f : memory_runtime_fields(r, names)) out.push_back(std::move(f));
  for (auto& f : memory_kv_fields(r, names)) out.push_back(std::move(f));
  out.push_back(flag("fits", "fits", r.fits));
  out.push_back(text("limit", "what pushes it over", std::string(to_string(r.limit))));
  out.push_back(text("fit_summary", "fit", r.fit_summary));
  if (!r.nccl_advice.empty()) out.push_back(text("nccl_advice", "NCCL settings", r.nccl_advice));
  out.push_back(json_only(record("replicated_parts", "replicated parts", std::move(parts))));
  return out;
}

/// One TP size the search tried, as a row of the ladder.
Record tried_tp_row(const MemoryReport& r) {
  Record row{text("name", "TP", fmt::format("TP{}", r.tp)), json_only(integer("tp", "tp", r.tp)),
             memory_gigabytes("weights_bytes", "weights", r.weights_bytes)};
  if (r.has_engram) {
    row.push_back(memory_gigabytes("engram_counted_bytes", "Engram counted", r.engram.counted));
  }
  for (auto& f : Record{memory_gigabytes("nccl_bytes", "NCCL", r.nccl_bytes),
                        memory_gigabytes("fixed_bytes", "fixed parts", r.fixed_bytes),
                        memory_gigabytes("budget_bytes", "budget", r.budget),
                        memory_gigabytes("kv_cache_bytes", "KV cache", r.kv_cache_bytes)}) {
    row.push_back(std::move(f));
  }
  if (r.kv_tokens) row.push_back(count("kv_tokens", "KV tokens", *r.kv_tokens));
  row.push_back(flag("fits", "fits", r.fits));
  row.push_back(
      note_unless_wide(text("limit", "what pushes it over", std::string(to_string(r.limit)))));
  return row;
}

}  // namespace

std::vector<std::string> memory_answer(const ModelArch& model, const MemoryReport& r) {
  const std::string head = fmt::format("{} {} {} on {}", model.name,
                                       r.fits ? "fits" : "does not fit", r.layout.name(), r.node);
  if (!r.fits) return {fmt::format("{}: {}.", head, r.fit_summary)};
  std::string line = fmt::format("{}: {} of the {} budget per node, {} left for the KV cache", head,
                                 format_bytes(r.fixed_bytes, 4), format_bytes(r.budget, 4),
                                 format_bytes(r.kv_cache_bytes, 4));
  if (r.kv_tokens && r.max_sequences) {
    line += fmt::format(" ({} tokens: {} sequences of {} tokens at once)", *r.kv_tokens,
                        *r.max_sequences, r.max_model_len);
  }
  return {line + "."};
}

Document memory_document(const ModelArch& model, const MemoryReport& r,
                         const MemoryDocumentNames& names) {
  Document doc;
  doc.answer = memory_answer(model, r);
  doc.title = fmt::format("tpnet memory: {} as {}, per node of {} ({} usable x {:g})", model.name,
                          r.layout.name(), r.node, format_bytes(r.node_memory, 4),
                          r.gpu_memory_utilization);
  doc.fields = memory_report_fields(model, r, names);
  doc.warnings = r.warnings;
  return doc;
}

Document memory_document(const ModelArch& model, const MinTpReport& found,
                         const MemoryDocumentNames& names) {
  std::vector<Record> tried;
  tried.reserve(found.tried.size());
  for (const auto& r : found.tried) tried.push_back(tried_tp_row(r));
  Document doc;
  if (found.tp == 0) {
    const MemoryReport& nearest = found.tried[found.closest];
    doc.title = fmt::format("tpnet memory: {} fits at no TP from 1 to {}", model.name,
                            found.tried.back().tp);
    doc.answer = {fmt::format("{} fits at no TP from 1 to {}: {}; TP{} comes nearest.", model.name,
                              found.tried.back().tp, found.why_none, nearest.tp)};
    doc.fields = {text("model", "model", model.name),
                  json_only(integer("min_tp", "smallest TP that fits", 0)),
                  table_only(text("", "smallest TP that fits", "none")),
                  text("why_none", "why", found.why_none),
                  integer("closest_tp", "comes nearest", nearest.tp),
                  text("fit_summary", "at that TP", nearest.fit_summary),
                  records("tried", "TP sizes tried", std::move(tried))};
    doc.warnings.push_back(fmt::format("{} fits at no TP from 1 to {}: {}; TP{} comes nearest",
                                       model.name, found.tried.back().tp, found.why_none,
                                       nearest.tp));
    for (const auto& w : nearest.warnings) doc.warnings.push_back(w);
    return doc;
  }
  const MemoryReport& r = found.tried.back();
  doc.answer = memory_answer(model, r);
  doc.answer.insert(doc.answer.begin(),
                    fmt::format("The smallest TP that fits {} is {}.", model.name, r.tp));
  doc.title = fmt::format("tpnet memory: the smallest TP that fits {} is {}", model.name, r.tp);
  // The answer's report with the same keys as a single TP gives, after min_tp; the ladder last.
  doc.fields = memory_report_fields(model, r, names);
  doc.fields.insert(doc.fields.begin() + 1, integer("min_tp", "smallest TP that fits", r.tp));
  doc.fields.push_back(records("tried", "TP sizes tried", std::move(tried)));
  doc.warnings = r.warnings;
  return doc;
}

}  // namespace tpnet
