// tpnet memory: what each node holds (weights, NCCL buffers, CUDA graphs,
// activations) and what is left for the KV cache; --min-tp for the smallest TP that fits.

#include <fmt/format.h>

#include <algorithm>
#include <memory>
#include <optional>

#include "charts.hpp"
#include "common.hpp"
#include "svg_output.hpp"
#include "tpnet/base/quantity.hpp"
#include "tpnet/io/model_catalog.hpp"
#include "tpnet/usecase/memory.hpp"
#include "vllm_args.hpp"

namespace tpnet::cli {
namespace {

constexpr DisplayUnit kMiB{"MiB", 1048576.0};

struct MemoryCommandOptions {
  std::string model;
  std::string quantization;
  std::string bits_per_weight;
  int tp = 0;
  int pp = 1;
  int ep = 1;
  bool min_tp = false;
  std::string node = std::string(kDefaultNodeName);
  MemoryOptions memory;
  std::string chunk = "4096";
  int activation_bytes = EngineConfig{}.activation_bytes;
  int max_num_seqs = EngineConfig{}.max_num_seqs;
  int spec_tokens = 0;
  std::string vllm_args;  ///< expanded into the flags above before parsing
  std::string svg;
  std::string format = "table";
  CLI::Option* tp_option = nullptr;  ///< to tell an absent --tp from --tp 0
};

MemoryRequest to_request(const MemoryCommandOptions& o) {
  MemoryRequest request;
  request.layout = ParallelLayout{o.tp, o.pp, o.ep};
  request.engine.tensor_parallel_size = o.tp;
  request.engine.max_num_batched_tokens = parse_tokens(o.chunk, InputLocation::for_key("--chunk"));
  request.engine.activation_bytes = o.activation_bytes;
  request.engine.max_num_seqs = o.max_num_seqs;
  request.engine.num_speculative_tokens = o.spec_tokens;
  request.node = load_node(o.node);
  request.settings = to_memory_settings(o.memory);
  return request;
}

Field gigabytes(std::string key, std::string label, Bytes value) {
  return number(std::move(key), std::move(label), value.count(), kBytesGB, 2);
}

/// The KV cache in tokens and sequences; empty when its size per token is unknown.
Record kv_fields(const MemoryReport& r) {
  Record out;
  if (r.kv_bytes_per_token) {
    out.push_back(number("kv_bytes_per_token", "KV cache per token per node",
                         r.kv_bytes_per_token->count(), kBytesKB, 1));
    out.push_back(text("kv_bytes_per_token_source", "per-token size from",
                       r.kv_per_token_given    ? "--kv-bytes-per-token"
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
    out.push_back(gigabytes("max_num_seqs_bytes",
                            fmt::format("--max-num-seqs {} such sequences", r.max_num_seqs),
                            *r.max_num_seqs_bytes));
  }
  return out;
}

/// Where the Engram tables live and what of them counts; empty for a model without them.
Record engram_fields(const MemoryReport& r) {
  if (!r.has_engram) return {};
  const EngramTables& e = r.engram;
  return {
      text("engram_tables", "Engram tables (--engram-tables)", std::string(to_string(e.placement))),
      gigabytes("engram_table_bytes", "Engram tables per node", e.per_node),
      gigabytes("engram_gpu_bytes", "  in GPU memory", e.gpu),
      gigabytes("engram_host_bytes",
                e.host_counted ? "  in pinned host memory (unified: counted)"
                               : "  in pinned host memory (not counted)",
                e.host),
      gigabytes("engram_disk_bytes", "  on disk (not counted)", e.disk),
      flag("engram_host_counted", "host memory counts against the budget", e.host_counted),
      gigabytes("engram_counted_bytes", "Engram tables counted", e.counted),
      gigabytes("gpu_weights_bytes", "model on the GPU (weights + Engram in GPU memory)",
                r.gpu_weights_bytes),
  };
}

Record report_fields(const ModelArch& model, const MemoryReport& r, const std::string& dtype) {
  // Replicated parts as an object keyed by part, so CSV stays one key,value list.
  Record parts;
  std::vector<std::string> lines;
  for (const auto& p : r.weights.replicated) {
    const Bytes bytes = p.node_bytes;
    parts.push_back(record(p.name, p.name,
                           {number("params", "params", p.params, kBillions, 3),
                            number("node_params", "held per node", p.node_params, kBillions, 3),
                            gigabytes("node_bytes", "bytes per node", bytes)}));
    lines.push_back(fmt::format("{} ({:.3f} B params, {:.2f} GB per node)", p.name,
                                p.node_params / 1e9, bytes.count() / 1e9));
  }
  Record out{
      text("model", "model", model.name),
      integer("tp", "tensor-parallel size", r.tp),
      text("node", "node", r.node),
      gigabytes("node_memory_bytes", "usable memory per node", r.node_memory),
      gigabytes("os_reserved_bytes", "the node's OS reserve (reserved_memory)", r.os_reserved),
      number("gpu_memory_utilization", "--gpu-memory-utilization", r.gpu_memory_utilization, kCount,
             2),
      gigabytes("budget_bytes", "vLLM's budget (memory x utilization)", r.budget),
      gigabytes("weights_bytes", "weights", r.weights_bytes),
      gigabytes("weights_split_bytes", "  split over TP", r.weights.split),
      gigabytes("weights_replicated_bytes", "  held whole by every rank",
                r.weights.replicated_bytes),
      gigabytes("weights_mtp_bytes", "  MTP layers (drafting)", r.weights.mtp),
      table_only(texts("", "    part", std::move(lines))),
  };
  for (auto& f : engram_fields(r)) out.push_back(std::move(f));
  Record runtime{
      integer("nccl_channels", "NCCL_MAX_NCHANNELS (buffers per peer)", r.nccl_channels),
      number("nccl_buffsize_bytes", "NCCL_BUFFSIZE", r.nccl_buffsize.count(), kMiB, 2),
      text("nccl_profile", "NCCL settings", r.nccl_tuned ? "node's tuned pair" : "NCCL's own"),
      integer("nccl_ranks", "NCCL communicator ranks", r.nccl_ranks),
      gigabytes("nccl_bytes", "NCCL buffers", r.nccl_bytes),
      gigabytes("cuda_graph_bytes", "CUDA graphs", r.cuda_graph_bytes),
      count("chunk_tokens", "prefill chunk", r.chunk_tokens),
      number("activation_factor", "activation factor", r.activation_factor, kTimes, 1),
      gigabytes("activation_peak_bytes", "activation peak", r.activation_peak_bytes),
      gigabytes("autotune_spike_bytes", "autotune spike (--autotune-spike)",
                r.autotune_spike_bytes),
      gigabytes("fixed_bytes",
                r.has_engram ? "fixed parts (weights, Engram counted, NCCL, graphs, ...)"
                             : "weights + NCCL + graphs + activations",
                r.fixed_bytes),
      flag("fixed_fits", "fixed parts fit the budget", r.fixed_fits),
      r.fixed_fits ? json_only(gigabytes("shortfall_bytes", "short of the budget by", Bytes(0.0)))
                   : gigabytes("shortfall_bytes", "short of the budget by", r.shortfall_bytes),
      gigabytes("kv_cache_bytes", "left for the KV cache", r.kv_cache_bytes),
      text("kv_cache_dtype", "--kv-cache-dtype", dtype),
      integer("kv_cache_dtype_bytes", "bytes per KV element", r.kv_cache_dtype_bytes),
      count("max_model_len", "--max-model-len", r.max_model_len),
      integer("max_num_seqs", "--max-num-seqs", r.max_num_seqs),
  };
  for (auto& f : runtime) out.push_back(std::move(f));
  for (auto& f : kv_fields(r)) out.push_back(std::move(f));
  out.push_back(flag("fits", "fits", r.fits));
  out.push_back(text("limit", "what pushes it over", std::string(to_string(r.limit))));
  out.push_back(text("fit_summary", "fit", r.fit_summary));
  if (!r.nccl_advice.empty()) out.push_back(text("nccl_advice", "NCCL settings", r.nccl_advice));
  out.push_back(json_only(record("replicated_parts", "replicated parts", std::move(parts))));
  return out;
}

Record tried_row(const MemoryReport& r) {
  Record row{text("name", "TP", fmt::format("TP{}", r.tp)), json_only(integer("tp", "tp", r.tp)),
             gigabytes("weights_bytes", "weights", r.weights_bytes)};
  if (r.has_engram) {
    row.push_back(gigabytes("engram_counted_bytes", "Engram counted", r.engram.counted));
  }
  for (auto& f : Record{gigabytes("nccl_bytes", "NCCL", r.nccl_bytes),
                        gigabytes("fixed_bytes", "fixed parts", r.fixed_bytes),
                        gigabytes("budget_bytes", "budget", r.budget),
                        gigabytes("kv_cache_bytes", "KV cache", r.kv_cache_bytes)}) {
    row.push_back(std::move(f));
  }
  if (r.kv_tokens) row.push_back(count("kv_tokens", "KV tokens", *r.kv_tokens));
  row.push_back(flag("fits", "fits", r.fits));
  row.push_back(
      note_unless_wide(text("limit", "what pushes it over", std::string(to_string(r.limit)))));
  return row;
}

Document memory_answer(const MemoryCommandOptions& o, const ModelArch& model,
                       const MemoryRequest& request) {
  if (!o.min_tp && o.tp_option->count() == 0) {
    throw InputError("give a tensor-parallel size, or --min-tp for the smallest that fits",
                     InputLocation::for_key("--tp"));
  }
  Document doc;
  if (!o.min_tp) {
    if (request.layout.pp > 1 || request.layout.ep > 1) validate_layout(request.layout, model);
    const MemoryReport r = analyze_memory(model, request);
    doc.title = fmt::format("tpnet memory: {} as {}, per node of {} ({} usable x {:g})", model.name,
                            r.layout.name(), r.node, format_bytes(r.node_memory, 4),
                            r.gpu_memory_utilization);
    doc.fields = report_fields(model, r, o.memory.kv_cache_dtype);
    doc.warnings = r.warnings;
    return doc;
  }
  const MinTpReport found = find_min_tp(model, request);
  std::vector<Record> tried;
  for (const auto& r : found.tried) tried.push_back(tried_row(r));
  if (found.tp == 0) {
    const MemoryReport& nearest = found.tried[found.closest];
    doc.title = fmt::format("tpnet memory: {} fits at no TP from 1 to {}", model.name,
                            found.tried.back().tp);
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
  doc.title = fmt::format("tpnet memory: the smallest TP that fits {} is {}", model.name, r.tp);
  // The answer's report with the same keys as --tp gives, after min_tp; the ladder last.
  doc.fields = report_fields(model, r, o.memory.kv_cache_dtype);
  doc.fields.insert(doc.fields.begin() + 1, integer("min_tp", "smallest TP that fits", r.tp));
  doc.fields.push_back(records("tried", "TP sizes tried", std::move(tried)));
  doc.warnings = r.warnings;
  return doc;
}

/// The TP sizes the chart compares: powers of two to 16 and the one asked for.
std::vector<int> chart_tps(int asked) {
  std::vector<int> tps{1, 2, 4, 8, 16};
  if (asked > 0 && std::find(tps.begin(), tps.end(), asked) == tps.end()) tps.push_back(asked);
  std::sort(tps.begin(), tps.end());
  return tps;
}

Document run_memory(const MemoryCommandOptions& o) {
  if (!o.min_tp && o.tp_option->count() == 0) {
    throw InputError("give a tensor-parallel size, or --min-tp for the smallest that fits",
                     InputLocation::for_key("--tp"));
  }
  check_svg_path(o.svg);
  const ModelArch model = load_model(o.model, o.quantization, o.bits_per_weight);
  const MemoryRequest request = to_request(o);
  Document doc = memory_answer(o, model, request);
  if (!o.svg.empty()) {
    write_svg(o.svg, memory_figure(memory_by_tp(model, request, chart_tps(o.tp)), model.name), doc);
  }
  return doc;
}

}  // namespace

Command setup_memory(CLI::App& app) {
  auto o = std::make_shared<MemoryCommandOptions>();
  CLI::App* sub = app.add_subcommand(
      "memory", "Memory per node: weights, NCCL, CUDA graphs, activations and the KV cache");
  sub->add_option("-m,--model", o->model,
                  "Built-in model name (tpnet models), a model YAML file, or a Hugging Face "
                  "config.json (or its folder)")
      ->required();
  add_precision_options(sub, o->quantization, o->bits_per_weight);
  add_vllm_args_option(sub, o->vllm_args);
  o->tp_option = sub->add_option("--tp,--tensor-parallel-size", o->tp,
                                 "Tensor-parallel size: nodes per instance");
  auto* pp = sub->add_option("--pp", o->pp, "Pipeline stages: each node holds its stage's layers")
                 ->default_str("1");
  auto* ep = sub->add_option("--ep", o->ep,
                             "Expert-parallel size (MoE): routed experts spread over EP ranks")
                 ->default_str("1");
  sub->add_flag("--min-tp", o->min_tp,
                "Answer the smallest TP (1, 2, 4, 8, ...) that fits with room for one "
                "--max-model-len sequence")
      ->excludes(o->tp_option)
      ->excludes(pp)
      ->excludes(ep);
  add_node_option(sub, o->node);
  add_memory_options(sub, o->memory);
  const std::string engine = "Engine (vLLM names)";
  sub->add_option("--max-num-seqs", o->max_num_seqs, "Most requests running at once")
      ->group(engine)
      ->default_str(std::to_string(EngineConfig{}.max_num_seqs));
  sub->add_option("--spec-tokens,--num-speculative-tokens", o->spec_tokens,
                  "Draft tokens per request per decode forward (MTP): above 0, the MTP layers' "
                  "weights are loaded too")
      ->group(engine)
      ->default_str("0");
  sub->add_option("--chunk,--max-num-batched-tokens", o->chunk,
                  "Prefill tokens per forward pass; sets the activation peak")
      ->group(engine)
      ->default_str("4096");
  sub->add_option("--activation-bytes", o->activation_bytes,
                  "Bytes per activation value (2 = BF16)")
      ->group(engine)
      ->default_str(std::to_string(EngineConfig{}.activation_bytes));
  add_svg_option(sub, o->svg, "a stacked bar per TP size (1 to 16 and --tp) against the budget");
  add_format_option(sub, o->format);
  return Command{sub,
                 [o] {
                   return Outcome{run_memory(*o), {}, 0};
                 },
                 std::shared_ptr<const std::string>(o, &o->format)};
}

}  // namespace tpnet::cli
