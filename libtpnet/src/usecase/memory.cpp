#include "tpnet/usecase/memory.hpp"

#include "tpnet/model/layout.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "tpnet/base/count_math.hpp"
#include "tpnet/base/limits.hpp"
#include "tpnet/traffic/expert_alltoall.hpp"

namespace tpnet {
namespace {

[[noreturn]] void fail(const std::string& field, const std::string& message) {
  throw InputError(message, InputLocation::for_key(field));
}

std::string gb(Bytes b) { return fmt::format("{:.2f} GB", b.count() / 1e9); }

/// The longest sequence whose state fits in `space` (state grows with length).
TokenCount longest_sequence(const ModelArch& m, int tp, int dtype_bytes, double share,
                            Bytes space) {
  auto state = [&](TokenCount tokens) {
    return sequence_state(m, tp, dtype_bytes, tokens).total() * share;
  };
  if (state(1) > space) return 0;
  TokenCount lo = 1;
  TokenCount hi = kMaxTokens;
  if (state(hi) <= space) return hi;
  while (hi - lo > 1) {
    const TokenCount mid = lo + (hi - lo) / 2;
    (state(mid) <= space ? lo : hi) = mid;
  }
  return lo;
}

/// The busiest pipeline stage's share of the layers: vLLM gives the first
/// stages one layer more when pp does not divide them.
double stage_share(const ModelArch& m, int pp) {
  if (pp <= 1 || m.num_layers() <= 0) return 1.0;
  const int most = (m.num_layers() + pp - 1) / pp;
  return static_cast<double>(most) / m.num_layers();
}

/// The model's own memory as the fit sentences name it: the weights, and
/// the Engram tables that count against the budget when there are any.
std::string model_parts(const MemoryReport& r) {
  if (r.engram.counted.count() <= 0.0) return fmt::format("weights {}", gb(r.weights_bytes));
  std::string where;
  if (r.engram.gpu.count() > 0.0) where = fmt::format("{} in GPU memory", gb(r.engram.gpu));
  if (r.engram.host_counted && r.engram.host.count() > 0.0) {
    where += fmt::format("{}{} in pinned host memory, the same unified memory",
                         where.empty() ? "" : ", ", gb(r.engram.host));
  }
  return fmt::format("weights {} + Engram tables {} ({})", gb(r.weights_bytes),
                     gb(r.engram.counted), where);
}

/// Where the tables are when they count nothing against the budget; empty otherwise.
std::string tables_outside(const MemoryReport& r) {
  std::string out;
  if (r.engram.disk.count() > 0.0) {
    out = fmt::format("; the Engram tables ({}) are on disk and count nothing against it",
                      gb(r.engram.disk));
  }
  if (!r.engram.host_counted && r.engram.host.count() > 0.0) {
    out += fmt::format(
        "; {} of Engram tables in pinned host memory count nothing against it (the node's host "
        "memory is not its GPU's)",
        gb(r.engram.host));
  }
  return out;
}

/// What pushes the report over its budget, and the sentence that says so.
void judge_fit(MemoryReport& r) {
  const Bytes runtime = r.cuda_graph_bytes + r.alltoall_buffer_bytes + r.activation_peak_bytes +
                        r.autotune_spike_bytes;
  const Bytes model = r.weights_bytes + r.engram.counted;
  const std::string layout = r.layout.name();
  const std::string parts = model_parts(r);
  const std::string graphs =
      r.alltoall_buffer_bytes.count() > 0.0 ? "CUDA graphs, DeepEP's buffers" : "CUDA graphs";
  const std::string runtime_name = r.autotune_spike_bytes.count() > 0.0
                                       ? graphs + ", activations and the autotune spike"
                                       : graphs + " and activations";
  if (model >= r.budget) {
    r.limit = MemoryLimit::weights;
    r.fit_summary = r.engram.counted.count() > 0.0
                        ? fmt::format("the {} per node at {} alone exceed the {} budget", parts,
                                      layout, gb(r.budget))
                        : fmt::format("the weights alone ({} per node at {}) exceed the {} budget",
                                      gb(r.weights_bytes), layout, gb(r.budget));
  } else if (model + r.nccl_bytes >= r.budget) {
    r.limit = MemoryLimit::nccl_buffers;
    // The overage quoted is the whole fixed part's: the report's shortfall.
    r.fit_summary = fmt::format(
        "{} + NCCL buffers {} per node at {} exceed the {} budget; with {} ({}) the fixed parts "
        "are {} over",
        parts, gb(r.nccl_bytes), layout, gb(r.budget), runtime_name, gb(runtime),
        gb(r.shortfall_bytes));
    if (r.nccl_tuned_bytes && model + *r.nccl_tuned_bytes + runtime < r.budget) {
      r.fit_summary += fmt::format("; with the node's tuned NCCL buffers ({}) it would fit",
                                   gb(*r.nccl_tuned_bytes));
    }
  } else if (!r.fixed_fits) {
    r.limit = MemoryLimit::runtime;
    r.fit_summary = fmt::format(
        "{} + NCCL buffers {} + {} {} per node at {} exceed the {} budget by {}", parts,
        gb(r.nccl_bytes), runtime_name, gb(runtime), layout, gb(r.budget), gb(r.shortfall_bytes));
  } else if (r.max_model_len_fits == false) {
    r.limit = MemoryLimit::kv_cache;
    r.fit_summary = fmt::format(
        "{}, NCCL buffers, {} take {} of the {} budget at {}, leaving {} of KV cache; one "
        "max-model-len sequence of {} tokens needs {}",
        r.engram.counted.count() > 0.0 ? "weights, Engram tables" : "weights", runtime_name,
        gb(r.fixed_bytes), gb(r.budget), layout, gb(r.kv_cache_bytes), r.max_model_len,
        gb(r.sequence_bytes.value_or(Bytes(0.0))));
  } else {
    r.limit = MemoryLimit::none;
    r.fit_summary = fmt::format(
        "{} + NCCL buffers {} + {} {} = {} of the {} budget at {}, leaving "
        "{} for the KV cache",
        parts, gb(r.nccl_bytes), runtime_name, gb(runtime), gb(r.fixed_bytes), gb(r.budget), layout,
        gb(r.kv_cache_bytes));
    if (r.sequence_bytes) {
      // check's memory verdict compares this total with the budget: say it here too.
      r.fit_summary +=
          fmt::format("; with one max-model-len sequence of {} tokens ({}) a fit needs {}",
                      r.max_model_len, gb(*r.sequence_bytes), gb(r.required_bytes));
    }
  }
  r.fit_summary += tables_outside(r);
}

/// The KV-cache tokens `cache` holds. Sliding layers stop at the window and
/// linear layers keep one state a sequence: then the tokens max-model-len
/// sequences fill it with, as the per-sequence figure counts them
/// (docs/formulas.md s.26.4). Absent when the KV size is unknown.
std::optional<long long> kv_tokens_in(const MemoryReport& r, Bytes cache,
                                      TokenCount max_model_len) {
  if (r.sequence &&
      (r.sequence->sliding_window.count() > 0.0 || r.sequence->linear_state.count() > 0.0) &&
      r.sequence_bytes->count() > 0.0) {
    return static_cast<long long>(
        std::floor(cache.count() * to_real(max_model_len) / r.sequence_bytes->count()));
  }
  if (r.kv_bytes_per_token && r.kv_bytes_per_token->count() > 0.0) {
    return static_cast<long long>(std::floor(cache / *r.kv_bytes_per_token));
  }
  return std::nullopt;
}

}  // namespace

std::string_view to_string(MemoryLimit limit) {
  switch (limit) {
    case MemoryLimit::none:
      return "none";
    case MemoryLimit::weights:
      return "weights";
    case MemoryLimit::nccl_buffers:
      return "nccl_buffers";
    case MemoryLimit::runtime:
      return "runtime";
    case MemoryLimit::kv_cache:
      return "kv_cache";
  }
  return "none";
}

NcclBuffers nccl_buffers(const MemoryRequest& request) {
  if (!request.node.nccl_memory) {
    fail("node", fmt::format("{} states no nccl_memory (NCCL's measured buffers per rank), which "
                             "the memory fit needs; add it to the node file (docs/switch.md)",
                             request.node.name.empty() ? "the node" : request.node.name));
  }
  const MemorySettings& s = request.settings;
  const NcclMemoryProfile& p = *request.node.nccl_memory;
  NcclBuffers b = s.nccl_profile == NcclProfile::tuned ? p.tuned : p.defaults;
  if (s.nccl_channels) b.channels = *s.nccl_channels;
  if (s.nccl_buffsize) b.buffsize = *s.nccl_buffsize;
  return b;
}

void validate(const MemoryRequest& request) {
  const MemorySettings& in = request.settings;
  const ParallelLayout& layout = request.layout;
  if (layout.tp < 1 || layout.tp > kMaxTp) {
    fail("layout.tp", fmt::format("{} is not allowed; use 1 to {}", layout.tp, kMaxTp));
  }
  if (layout.pp < 1 || layout.ep < 1 || layout.ep > kMaxEp) {
    fail(layout.pp < 1 ? "layout.pp" : "layout.ep", "must be at least 1");
  }
  const Bytes node_memory = in.node_memory.value_or(request.node.usable_memory);
  if (!(node_memory.count() > 0.0)) {
    fail(in.node_memory ? "memory.node_memory" : "node",
         "must be a positive byte size (the node's usable memory)");
  }
  if (!(in.gpu_memory_utilization > 0.0 && in.gpu_memory_utilization <= 1.0)) {
    fail("memory.gpu_memory_utilization",
         fmt::format("{} is outside (0, 1]; it is the share of the node's memory vLLM may use, "
                     "e.g. 0.9",
                     in.gpu_memory_utilization));
  }
  const NcclBuffers buffers = nccl_buffers(request);
  (void)nccl_buffer_bytes(*request.node.nccl_memory, buffers, 1);
  if (!(in.cuda_graphs.count() >= 0.0)) fail("memory.cuda_graph_memory", "must not be negative");
  // The engine's settings are checked where every command checks them, so
  // that memory refuses what plan and predict refuse (--spec-tokens -1); the
  // layout, checked above, is what sets the TP here.
  EngineConfig engine = request.engine;
  engine.tensor_parallel_size = layout.tp;
  validate(engine);
  if (!(in.activation_factor > 0.0 && in.activation_factor <= 1000.0)) {
    fail("memory.activation_factor",
         fmt::format("{} is not allowed; use more than 0 up to 1000", in.activation_factor));
  }
  if (in.kv_cache_dtype_bytes != 1 && in.kv_cache_dtype_bytes != 2 &&
      in.kv_cache_dtype_bytes != 4) {
    fail("memory.kv_cache_dtype",
         fmt::format("{} bytes per element is not a KV cache dtype; use 1 (fp8), 2 (bf16) or 4",
                     in.kv_cache_dtype_bytes));
  }
  if (in.max_model_len < 1 || in.max_model_len > kMaxTokens) {
    fail("memory.max_model_len",
         fmt::format("{} tokens is not allowed; use 1 to {}", in.max_model_len, kMaxTokens));
  }
  if (in.kv_bytes_per_token && !(in.kv_bytes_per_token->count() > 0.0)) {
    fail("memory.kv_bytes_per_token", "must be a positive byte size");
  }
  if (!(in.autotune_spike.count() >= 0.0) || in.autotune_spike.count() > 1e15) {
    fail("memory.autotune_spike", "must be a byte size from 0 (off) up to 1PB");
  }
}

MemoryReport analyze_memory(const ModelArch& m, const MemoryRequest& request) {
  validate(request);
  const MemorySettings& in = request.settings;
  const EngineConfig& engine = request.engine;
  const ParallelLayout& layout = request.layout;
  const NcclMemoryProfile& profile = *request.node.nccl_memory;
  const int tp = layout.tp;
  MemoryReport r;
  r.layout = layout;
  r.tp = tp;
  r.node = request.node.name;
  r.node_memory = in.node_memory.value_or(request.node.usable_memory);
  r.os_reserved = request.node.reserved_memory;
  r.gpu_memory_utilization = in.gpu_memory_utilization;
  r.budget = r.node_memory * in.gpu_memory_utilization;

  // Drafting by MTP loads the MTP layers beside the model.
  r.weights = weight_memory(m, layout, engine.num_speculative_tokens > 0);
  r.weights_bytes = r.weights.per_node();
  r.has_engram = m.engram.has_value();
  r.engram = engram_tables(m, layout, in.engram_tables, request.node.unified_memory);
  r.gpu_weights_bytes = r.weights_bytes + r.engram.gpu;
  const NcclBuffers buffers = nccl_buffers(request);
  r.nccl_tuned = in.nccl_profile == NcclProfile::tuned;
  r.nccl_channels = buffers.channels;
  r.nccl_buffsize = buffers.buffsize;
  r.nccl_ranks = std::max(tp, layout.ep);
  r.nccl_bytes = nccl_buffer_bytes(profile, buffers, r.nccl_ranks);
  if (r.nccl_ranks > 1) {
    const Bytes tuned = nccl_buffer_bytes(profile, profile.tuned, r.nccl_ranks);
    if (tuned < r.nccl_bytes) r.nccl_tuned_bytes = tuned;
  }
  r.cuda_graph_bytes = in.cuda_graphs;
  // vLLM builds no all-to-all (nor its buffers) when EP stays inside one TP group.
  if (layout.data_parallel() > 1 && engine.all2all_backend == AllToAllBackend::deepep_low_latency) {
    r.alltoall_buffer_bytes = deepep_low_latency_buffer(m, ExpertAllToAllSettings{}, layout.ep);
  }
  r.chunk_tokens = engine.max_num_batched_tokens;
  r.activation_factor = in.activation_factor;
  r.activation_peak_bytes = Bytes(to_real(engine.max_num_batched_tokens) * to_real(m.hidden_size) *
                                  engine.activation_bytes * in.activation_factor);
  r.autotune_spike_bytes = in.autotune_spike;
  r.fixed_bytes = r.weights_bytes + r.engram.counted + r.nccl_bytes + r.cuda_graph_bytes +
                  r.alltoall_buffer_bytes + r.activation_peak_bytes + r.autotune_spike_bytes;
  r.fixed_fits = r.fixed_bytes < r.budget;
  r.kv_cache_bytes = r.fixed_fits ? r.budget - r.fixed_bytes : Bytes(0.0);
  r.shortfall_bytes = r.fixed_fits ? Bytes(0.0) : r.fixed_bytes - r.budget;

  r.kv_cache_dtype_bytes = in.kv_cache_dtype_bytes;
  r.max_model_len = in.max_model_len;
  r.max_num_seqs = engine.max_num_seqs;
  r.stage_layer_share = stage_share(m, layout.pp);
  const double share = r.stage_layer_share;
  const auto missing = kv_cache_shapes_missing(m);
  if (in.kv_bytes_per_token) {
    r.kv_per_token_given = true;
    r.kv_bytes_per_token = *in.kv_bytes_per_token;
    r.sequence_bytes = *in.kv_bytes_per_token * to_real(in.max_model_len);
    r.longest_sequence_tokens = std::min<TokenCount>(
        kMaxTokens, static_cast<TokenCount>(std::floor(r.kv_cache_bytes / *in.kv_bytes_per_token)));
  } else if (missing.empty()) {
    r.kv_bytes_per_token = kv_bytes_per_token(m, tp, in.kv_cache_dtype_bytes) * share;
    r.sequence = sequence_state(m, tp, in.kv_cache_dtype_bytes, in.max_model_len).scaled(share);
    r.sequence_bytes = r.sequence->total();
    r.longest_sequence_tokens =
        longest_sequence(m, tp, in.kv_cache_dtype_bytes, share, r.kv_cache_bytes);
  } else if (m.kv_bytes_per_token) {
    // A deployment's measured size stands in for the shapes the model lacks.
    r.kv_per_token_stated = true;
    r.kv_bytes_per_token = *m.kv_bytes_per_token * share;
    r.sequence_bytes = *r.kv_bytes_per_token * to_real(in.max_model_len);
    r.longest_sequence_tokens = std::min<TokenCount>(
        kMaxTokens, static_cast<TokenCount>(std::floor(r.kv_cache_bytes / *r.kv_bytes_per_token)));
    if (in.kv_cache_dtype_bytes != 2) {
      r.warnings.push_back(fmt::format(
          "{} states its KV cache per token as its deployment measured it; "
          "`memory.kv_cache_dtype` does not rescale it (give `memory.kv_bytes_per_token`)",
          m.name));
    }
  } else {
    std::string keys;
    for (const auto& key : missing) keys += (keys.empty() ? "" : ", ") + key;
    r.warnings.push_back(fmt::format(
        "{} states no {} shapes, so the KV cache is given in bytes only; give "
        "`memory.kv_bytes_per_token` (or add the shapes to the model file) for tokens and "
        "sequences",
        m.name, keys));
  }
  r.kv_tokens = kv_tokens_in(r, r.kv_cache_bytes, in.max_model_len);
  if (r.sequence_bytes) {
    const Bytes seq = *r.sequence_bytes;
    r.max_model_len_fits = r.fixed_fits && seq <= r.kv_cache_bytes;
    if (seq.count() > 0.0) {
      r.max_sequences = static_cast<long long>(std::floor(r.kv_cache_bytes / seq));
    }
    r.max_num_seqs_bytes = seq * engine.max_num_seqs;
  }
  r.fits = r.fixed_fits && r.max_model_len_fits.value_or(true);
  r.required_bytes = r.fixed_bytes + r.sequence_bytes.value_or(Bytes(0.0));
  judge_fit(r);

  if (r.limit != MemoryLimit::none) {
    r.warnings.push_back(r.fit_summary);
    if (r.limit == MemoryLimit::kv_cache) {
      r.warnings.push_back(fmt::format(
          "vLLM would refuse to start with `memory.max_model_len` {}; the longest sequence that "
          "fits is {} tokens",
          in.max_model_len, r.longest_sequence_tokens.value_or(0)));
    }
  } else if (r.max_num_seqs_bytes && *r.max_num_seqs_bytes > r.kv_cache_bytes) {
    r.warnings.push_back(fmt::format(
        "`engine.max_num_seqs` {} sequences of {} tokens need {} of KV cache; the {} left holds "
        "{} of them at once, so vLLM queues or preempts the rest",
        engine.max_num_seqs, in.max_model_len, gb(*r.max_num_seqs_bytes), gb(r.kv_cache_bytes),
        r.max_sequences.value_or(0)));
  }
  // Only when the fixed parts fit: otherwise the freed memory first covers
  // the shortfall, which the warning below names.
  if (r.fixed_fits && r.nccl_tuned_bytes && !r.nccl_tuned && r.budget.count() > 0.0 &&
      r.nccl_bytes / r.budget >= kNcclAdviceShare) {
    const NcclBuffers& t = profile.tuned;
    const Bytes freed = r.nccl_bytes - *r.nccl_tuned_bytes;
    r.nccl_tuned_extra_kv_tokens = kv_tokens_in(r, freed, in.max_model_len);
    r.nccl_advice = fmt::format(
        "NCCL's buffers take {} per node, {:.0f}% of the {} budget: NCCL_MAX_NCHANNELS={} and "
        "NCCL_BUFFSIZE={:.0f} cut them to {} and free {} for the KV cache",
        gb(r.nccl_bytes), r.nccl_bytes / r.budget * 100.0, gb(r.budget), t.channels,
        t.buffsize.count(), gb(*r.nccl_tuned_bytes), gb(freed));
    if (r.nccl_tuned_extra_kv_tokens) {
      r.nccl_advice += fmt::format(" ({} tokens more)", *r.nccl_tuned_extra_kv_tokens);
    }
  }
  if (!r.fits && r.nccl_tuned_bytes) {
    const NcclBuffers& t = profile.tuned;
    r.warnings.push_back(
        fmt::format("NCCL_MAX_NCHANNELS={} and NCCL_BUFFSIZE={:.0f} would free {} per node "
                    "(`memory.nccl_tuned`)",
                    t.channels, t.buffsize.count(), gb(r.nccl_bytes - *r.nccl_tuned_bytes)));
  }
  if (in.engram_tables && !r.has_engram) {
    r.warnings.push_back(
        fmt::format("`memory.engram_tables` is {} but {} has no Engram tables; it changes nothing",
                    to_string(*in.engram_tables), m.name));
  }
  if (std::string refusal = tp_refusal(m, std::max(1, tp)); !refusal.empty()) {
    r.warnings.push_back(std::move(refusal));
  }
  if (r.os_reserved.count() > 0.0 && r.node_memory - r.budget < r.os_reserved) {
    r.warnings.push_back(fmt::format(
        "`memory.gpu_memory_utilization` {:g} leaves {} of the {} to the OS, less than the {} "
        "{} keeps (its reserved_memory)",
        in.gpu_memory_utilization, gb(r.node_memory - r.budget), gb(r.node_memory),
        gb(r.os_reserved), r.node.empty() ? "node" : r.node));
  }
  const auto doubts = m.doubts();
  r.warnings.insert(r.warnings.begin(), doubts.begin(), doubts.end());
  return r;
}

MinTpReport find_min_tp(const ModelArch& m, const MemoryRequest& request) {
  MinTpReport out;
  MemoryRequest in = request;
  in.layout = ParallelLayout{1, 1, 1};
  auto margin = [](const MemoryReport& r) { return (r.budget - r.required_bytes).count(); };
  for (int tp = 1; tp <= kMaxTp; tp *= 2) {
    in.layout.tp = tp;
    out.tried.push_back(analyze_memory(m, in));
    const MemoryReport& r = out.tried.back();
    if (margin(r) > margin(out.tried[out.closest])) out.closest = out.tried.size() - 1;
    // A TP vLLM refuses (heads it does not divide) is no answer, fit or not.
    if (r.fits && tp_divides_heads(m, tp)) {
      out.tp = tp;
      out.closest = out.tried.size() - 1;
      return out;
    }
    // NCCL only grows with TP (s.12.2): once it, the graphs and the
    // activations fill the budget, no larger TP can fit.
    const Bytes runtime = r.nccl_bytes + r.cuda_graph_bytes + r.alltoall_buffer_bytes +
                          r.activation_peak_bytes + r.autotune_spike_bytes;
    if (runtime >= r.budget) {
      out.why_none = fmt::format(
          "from TP{} on, NCCL's buffers, CUDA graphs and activations alone ({}) fill the {} "
          "budget, and NCCL's buffers only grow with TP",
          tp, gb(runtime), gb(r.budget));
      return out;
    }
  }
  out.why_none = fmt::format("no TP up to {} fits", kMaxTp);
  return out;
}

int min_tp(const ModelArch& m, const MemoryRequest& request) { return find_min_tp(m, request).tp; }

std::vector<MemoryReport> memory_by_tp(const ModelArch& model, const MemoryRequest& request,
                                       const std::vector<int>& tps) {
  std::vector<MemoryReport> out;
  for (const int tp : tps) {
    MemoryRequest r = request;
    r.layout.tp = tp;
    r.engine.tensor_parallel_size = tp;
    try {
      out.push_back(analyze_memory(model, r));
    } catch (const InputError&) {
      if (tp == request.layout.tp) throw;  // the one asked for must fit the model
    }
  }
  return out;
}

}  // namespace tpnet
