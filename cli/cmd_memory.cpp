// tpnet memory: what each node holds (weights, NCCL buffers, CUDA graphs,
// activations) and what is left for the KV cache; --min-tp for the smallest TP that fits.

#include <algorithm>
#include <memory>
#include <string_view>

#include "charts.hpp"
#include "common.hpp"
#include "svg_output.hpp"
#include "tpnet/base/quantity.hpp"
#include "tpnet/io/model_catalog.hpp"
#include "tpnet/usecase/memory.hpp"
#include "vllm_args.hpp"

namespace tpnet::cli {
namespace {

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
  std::string chunk = std::to_string(kDefaultChunkTokens);
  int activation_bytes = EngineConfig{}.activation_bytes;
  int max_num_seqs = EngineConfig{}.max_num_seqs;
  int spec_tokens = 0;
  std::string all2all_backend{to_string(AllToAllBackend::allgather_reducescatter)};
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
  request.engine.all2all_backend = to_all2all_backend(o.all2all_backend);
  request.node = load_node(o.node);
  request.settings = to_memory_settings(o.memory);
  return request;
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
  // Its labels name the settings by the flags that set them, and quote --kv-cache-dtype as given.
  const MemoryDocumentNames names{[](std::string_view field) { return flag_for(field); },
                                  o.memory.kv_cache_dtype};
  Document doc;
  if (o.min_tp) {
    doc = memory_document(model, find_min_tp(model, request), names);
  } else {
    if (request.layout.pp > 1 || request.layout.ep > 1) validate_layout(request.layout, model);
    doc = memory_document(model, analyze_memory(model, request), names);
  }
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
      ->capture_default_str();
  sub->add_option("--activation-bytes", o->activation_bytes,
                  "Bytes per activation value (2 = BF16)")
      ->group(engine)
      ->default_str(std::to_string(EngineConfig{}.activation_bytes));
  add_all2all_backend_option(sub, o->all2all_backend, engine);
  add_svg_option(sub, o->svg, "a stacked bar per TP size (1 to 16 and --tp) against the budget");
  add_format_option(sub, o->format);
  return Command{sub,
                 [o] {
                   return Outcome{run_memory(*o), {}, 0};
                 },
                 std::shared_ptr<const std::string>(o, &o->format)};
}

}  // namespace tpnet::cli
