// tpnet memory: what each node holds (weights, NCCL buffers, CUDA graphs,
// activations) and what is left for the KV cache; --min-tp for the smallest TP that fits.

#include <fmt/format.h>

#include <memory>
#include <optional>

#include "common.hpp"
#include "tpnet/analysis/memory.hpp"
#include "tpnet/model/model_catalog.hpp"
#include "tpnet/quantity.hpp"

namespace tpnet::cli {
namespace {

constexpr DisplayUnit kMiB{"MiB", 1048576.0};

struct MemoryOptions {
  std::string model;
  int tp = 0;
  bool min_tp = false;
  std::string node_memory = "121GB";
  double utilization = 0.9;
  int nccl_channels = nccl_fit::kDefaultChannels;
  std::string nccl_buffsize = "4MiB";
  std::string cuda_graph_memory = "1GB";
  bool enforce_eager = false;
  std::string chunk = "4096";
  int activation_bytes = 2;
  double activation_factor = MemoryInputs{}.activation_factor;
  std::string kv_cache_dtype = "auto";
  std::string kv_bytes_per_token;
  std::string max_model_len = "8k";
  int max_num_seqs = 256;
  std::string format = "table";
  CLI::Option* tp_option = nullptr;  ///< to tell an absent --tp from --tp 0
};

MemoryInputs to_inputs(const MemoryOptions& o) {
  auto at = [](const char* flag) { return InputLocation::for_key(flag); };
  MemoryInputs in;
  in.tp = o.tp;
  in.node_memory = parse_bytes(o.node_memory, at("--node-memory"));
  in.gpu_memory_utilization = o.utilization;
  in.nccl_channels = o.nccl_channels;
  in.nccl_buffsize = parse_bytes(o.nccl_buffsize, at("--nccl-buffsize"));
  in.cuda_graphs =
      o.enforce_eager ? Bytes(0.0) : parse_bytes(o.cuda_graph_memory, at("--cuda-graph-memory"));
  in.max_num_batched_tokens = parse_tokens(o.chunk, at("--chunk"));
  in.activation_bytes = o.activation_bytes;
  in.activation_factor = o.activation_factor;
  in.kv_cache_dtype_bytes = parse_kv_cache_dtype(o.kv_cache_dtype, at("--kv-cache-dtype"));
  if (!o.kv_bytes_per_token.empty()) {
    in.kv_bytes_per_token = parse_bytes(o.kv_bytes_per_token, at("--kv-bytes-per-token"));
  }
  in.max_model_len = parse_tokens(o.max_model_len, at("--max-model-len"));
  in.max_num_seqs = o.max_num_seqs;
  return in;
}

Field gigabytes(std::string key, std::string label, Bytes value) {
  return number(std::move(key), std::move(label), value.count(), kBytesGB, 2);
}

Field count(std::string key, std::string label, long long value) {
  return integer(std::move(key), std::move(label), static_cast<double>(value));
}

/// The KV cache in tokens and sequences; empty when its size per token is unknown.
Record kv_fields(const MemoryReport& r) {
  Record out;
  if (r.kv_bytes_per_token) {
    out.push_back(number("kv_bytes_per_token", "KV cache per token per node",
                         r.kv_bytes_per_token->count(), kBytesKB, 1));
    out.push_back(text("kv_bytes_per_token_source", "per-token size from",
                       r.kv_per_token_given ? "--kv-bytes-per-token" : "architecture"));
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
      gigabytes("node_memory_bytes", "usable memory per node", r.node_memory),
      number("gpu_memory_utilization", "--gpu-memory-utilization", r.gpu_memory_utilization, kCount,
             2),
      gigabytes("budget_bytes", "vLLM's budget (memory x utilization)", r.budget),
      gigabytes("weights_bytes", "weights", r.weights_bytes),
      gigabytes("weights_split_bytes", "  split over TP", r.weights.split),
      gigabytes("weights_replicated_bytes", "  held whole by every rank",
                r.weights.replicated_bytes),
      table_only(texts("", "    part", std::move(lines))),
      integer("nccl_channels", "NCCL channels", r.nccl_channels),
      number("nccl_buffsize_bytes", "NCCL buffer size", r.nccl_buffsize.count(), kMiB, 2),
      gigabytes("nccl_bytes", "NCCL buffers", r.nccl_bytes),
      gigabytes("cuda_graph_bytes", "CUDA graphs", r.cuda_graph_bytes),
      count("chunk_tokens", "prefill chunk", r.chunk_tokens),
      number("activation_factor", "activation factor", r.activation_factor, kTimes, 1),
      gigabytes("activation_peak_bytes", "activation peak", r.activation_peak_bytes),
      gigabytes("fixed_bytes", "weights + NCCL + graphs + activations", r.fixed_bytes),
      flag("fixed_fits", "fixed parts fit the budget", r.fixed_fits),
      r.fixed_fits ? json_only(gigabytes("shortfall_bytes", "short of the budget by", Bytes(0.0)))
                   : gigabytes("shortfall_bytes", "short of the budget by", r.shortfall_bytes),
      gigabytes("kv_cache_bytes", "left for the KV cache", r.kv_cache_bytes),
      text("kv_cache_dtype", "--kv-cache-dtype", dtype),
      integer("kv_cache_dtype_bytes", "bytes per KV element", r.kv_cache_dtype_bytes),
      count("max_model_len", "--max-model-len", r.max_model_len),
      integer("max_num_seqs", "--max-num-seqs", r.max_num_seqs),
  };
  for (auto& f : kv_fields(r)) out.push_back(std::move(f));
  out.push_back(flag("fits", "fits", r.fits));
  out.push_back(json_only(record("replicated_parts", "replicated parts", std::move(parts))));
  return out;
}

Record tried_row(const MemoryReport& r) {
  Record row{text("name", "TP", fmt::format("TP{}", r.tp)),
             json_only(integer("tp", "tp", r.tp)),
             gigabytes("weights_bytes", "weights", r.weights_bytes),
             gigabytes("nccl_bytes", "NCCL", r.nccl_bytes),
             gigabytes("fixed_bytes", "fixed parts", r.fixed_bytes),
             gigabytes("budget_bytes", "budget", r.budget),
             gigabytes("kv_cache_bytes", "KV cache", r.kv_cache_bytes)};
  if (r.kv_tokens) row.push_back(count("kv_tokens", "KV tokens", *r.kv_tokens));
  row.push_back(flag("fits", "fits", r.fits));
  return row;
}

Document run_memory(const MemoryOptions& o) {
  if (!o.min_tp && o.tp_option->count() == 0) {
    throw InputError("give a tensor-parallel size, or --min-tp for the smallest that fits",
                     InputLocation::for_key("--tp"));
  }
  const ModelArch model = resolve_model(o.model);
  const MemoryInputs inputs = to_inputs(o);
  Document doc;
  if (!o.min_tp) {
    const MemoryReport r = analyze_memory(model, inputs);
    doc.title =
        fmt::format("tpnet memory: {} at TP{}, per node ({} usable x {:g})", model.name, r.tp,
                    fmt::format("{:g} GB", r.node_memory.count() / 1e9), r.gpu_memory_utilization);
    doc.fields = report_fields(model, r, o.kv_cache_dtype);
    doc.warnings = r.warnings;
    return doc;
  }
  const MinTpReport found = find_min_tp(model, inputs);
  std::vector<Record> tried;
  for (const auto& r : found.tried) tried.push_back(tried_row(r));
  if (found.tp == 0) {
    const int last = found.tried.back().tp;
    doc.title = fmt::format("tpnet memory: {} fits at no TP from 1 to {}", model.name, last);
    doc.fields = {text("model", "model", model.name), integer("min_tp", "smallest TP that fits", 0),
                  records("tried", "TP sizes tried", std::move(tried))};
    doc.warnings.push_back(
        fmt::format("{} fits at no TP from 1 to {}{}; TP{} comes nearest", model.name, last,
                    last < kMaxMinTp ? " (beyond that NCCL alone fills the budget)" : "",
                    found.tried[found.closest].tp));
    for (const auto& w : found.tried[found.closest].warnings) doc.warnings.push_back(w);
    return doc;
  }
  const MemoryReport& r = found.tried.back();
  doc.title = fmt::format("tpnet memory: the smallest TP that fits {} is {}", model.name, r.tp);
  // The answer's report with the same keys as --tp gives, after min_tp; the ladder last.
  doc.fields = report_fields(model, r, o.kv_cache_dtype);
  doc.fields.insert(doc.fields.begin() + 1, integer("min_tp", "smallest TP that fits", r.tp));
  doc.fields.push_back(records("tried", "TP sizes tried", std::move(tried)));
  doc.warnings = r.warnings;
  return doc;
}

}  // namespace

Command setup_memory(CLI::App& app) {
  auto o = std::make_shared<MemoryOptions>();
  CLI::App* sub = app.add_subcommand(
      "memory", "Memory per node: weights, NCCL, CUDA graphs, activations and the KV cache");
  sub->add_option("-m,--model", o->model,
                  "Built-in model name (tpnet models), a model YAML file, or a Hugging Face "
                  "config.json (or its folder)")
      ->required();
  o->tp_option = sub->add_option("--tp,--tensor-parallel-size", o->tp,
                                 "Tensor-parallel size: nodes per instance");
  sub->add_flag("--min-tp", o->min_tp,
                "Answer the smallest TP (1, 2, 4, 8, ...) that fits with room for one "
                "--max-model-len sequence")
      ->excludes(o->tp_option);
  const std::string node = "Node";
  sub->add_option("--node-memory", o->node_memory,
                  "Usable memory per node (DGX Spark: 121GB of 128GB)")
      ->group(node)
      ->default_str("121GB");
  sub->add_option("--gpu-memory-utilization", o->utilization,
                  "Share of the usable memory vLLM may take, in (0, 1]")
      ->group(node)
      ->default_str("0.9");
  const std::string nccl = "NCCL";
  sub->add_option("--nccl-channels", o->nccl_channels,
                  "NCCL_MAX_NCHANNELS (NCCL's default on GB10: 64)")
      ->group(nccl)
      ->default_str("64");
  sub->add_option("--nccl-buffsize", o->nccl_buffsize, "NCCL_BUFFSIZE (default 4MiB)")
      ->group(nccl)
      ->default_str("4MiB");
  const std::string engine = "Engine (vLLM names)";
  sub->add_option("--max-model-len", o->max_model_len,
                  "Longest sequence one request may reach (e.g. 8k, 128k, 1M)")
      ->group(engine)
      ->default_str("8k");
  sub->add_option("--max-num-seqs", o->max_num_seqs, "Most requests running at once")
      ->group(engine)
      ->default_str("256");
  sub->add_option("--kv-cache-dtype", o->kv_cache_dtype, "auto (= bf16), bf16, fp16 or fp8")
      ->group(engine)
      ->default_str("auto");
  sub->add_option("--chunk,--max-num-batched-tokens", o->chunk,
                  "Prefill tokens per forward pass; sets the activation peak")
      ->group(engine)
      ->default_str("4096");
  sub->add_option("--cuda-graph-memory", o->cuda_graph_memory,
                  "Memory CUDA graphs take (vLLM logs it after capture)")
      ->group(engine)
      ->default_str("1GB");
  sub->add_flag("--enforce-eager", o->enforce_eager, "No CUDA graphs (vLLM's --enforce-eager)")
      ->group(engine);
  sub->add_option("--activation-bytes", o->activation_bytes,
                  "Bytes per activation value (2 = BF16)")
      ->group(engine)
      ->default_str("2");
  sub->add_option("--activation-factor", o->activation_factor,
                  "Hidden-sized tensors alive at the activation peak, per chunk token")
      ->group(engine)
      ->default_str(fmt::format("{:g}", MemoryInputs{}.activation_factor));
  sub->add_option("--kv-bytes-per-token", o->kv_bytes_per_token,
                  "KV cache bytes per token per node, replacing the architecture's (e.g. 4KB)")
      ->group(engine);
  add_format_option(sub, o->format);
  return Command{sub,
                 [o] {
                   return Outcome{run_memory(*o), {}, 0};
                 },
                 std::shared_ptr<const std::string>(o, &o->format)};
}

}  // namespace tpnet::cli
