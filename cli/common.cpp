#include "common.hpp"

#include "tpnet/io/calibration_yaml.hpp"
#include "tpnet/io/fabric_catalog.hpp"
#include "tpnet/io/link_presets.hpp"
#include "tpnet/io/node_catalog.hpp"
#include "tpnet/io/switch_catalog.hpp"
#include "tpnet/io/workload_yaml.hpp"

#include <fmt/format.h>

#include <cmath>

#include "integer_flags.hpp"
#include "tpnet/base/limits.hpp"
#include "tpnet/base/quantity.hpp"
#include "tpnet/io/model_catalog.hpp"
#include "tpnet/usecase/model_precision.hpp"
#include "vllm_args.hpp"

namespace tpnet::cli {

void add_all2all_backend_option(CLI::App* app, std::string& backend, const std::string& group) {
  app->add_option("--all2all-backend", backend,
                  "vLLM's all-to-all backend for EP layouts: allgather_reducescatter (vLLM's "
                  "default) or deepep_low_latency; deepep_high_throughput needs eight GPUs a node")
      ->check(CLI::IsMember(
          {"allgather_reducescatter", "deepep_low_latency", "deepep_high_throughput"}))
      ->group(group)
      ->capture_default_str();
}

AllToAllBackend to_all2all_backend(const std::string& backend) {
  return parse_all2all_backend(backend, InputLocation::for_key("--all2all-backend"));
}

void add_engine_options(CLI::App* app, EngineOptions& o, bool with_tp) {
  app->add_option("-m,--model", o.model,
                  "Built-in model name (tpnet models), a model YAML file, or a Hugging Face "
                  "config.json (or its folder)")
      ->required();
  add_precision_options(app, o.quantization, o.bits_per_weight);
  add_vllm_args_option(app, o.vllm_args);
  if (with_tp) {
    app->add_option("--tp,--tensor-parallel-size", o.tp, "Tensor-parallel size: nodes per instance")
        ->required();
  }
  const std::string engine = "Engine (vLLM names)";
  app->add_option("--chunk,--max-num-batched-tokens", o.chunk,
                  "Prefill tokens per forward pass (e.g. 4096, 4k)")
      ->group(engine)
      ->capture_default_str();
  app->add_option("--long-prefill-token-threshold", o.long_prefill_threshold,
                  "Cap on one request's prefill tokens per step (unset by default)")
      ->group(engine);
  app->add_option("--max-num-seqs", o.max_num_seqs, "Most requests running at once")
      ->group(engine)
      ->default_val(256);
  app->add_option("--spec-tokens,--num-speculative-tokens", o.spec_tokens,
                  "Draft tokens per request per decode forward (MTP)")
      ->group(engine)
      ->default_val(0);
  app->add_option("--activation-bytes", o.activation_bytes, "Bytes per activation value (2 = BF16)")
      ->group(engine)
      ->default_val(2);
  app->add_option("--allreduces-per-layer", o.allreduces_per_layer,
                  "All-reduces per layer (default: one per block of the layer plan, 2 for "
                  "attention + FFN)")
      ->check(whole_number_in(0, kMaxAllreducesPerLayer))
      ->group(engine);
  app->add_option("--extra-allreduces", o.extra_allreduces,
                  "All-reduces per forward outside the layers (input embedding)")
      ->group(engine)
      ->default_val(1);
  app->add_option("--algorithm", o.algorithm, "All-reduce algorithm whose bytes are assumed")
      ->check(CLI::IsMember({"ring", "tree"}))
      ->group(engine)
      ->default_str("ring");
  add_all2all_backend_option(app, o.all2all_backend, engine);
  const std::string latency = "Latency model (default: NCCL 2.28.3's tuning model)";
  auto* algo = app->add_option("--nccl-algo", o.nccl_algo,
                               "All-reduce algorithms NCCL's tuner may pick: auto, ring or tree, "
                               "like NCCL_ALGO (default: --algorithm's)")
                   ->group(latency);
  auto* proto = app->add_option("--nccl-proto", o.nccl_proto,
                                "Protocols NCCL's tuner may pick: auto, LL, LL128 or Simple, like "
                                "NCCL_PROTO")
                    ->group(latency)
                    ->default_str("auto");
  auto* base = app->add_option("--base-latency", o.base_latency,
                               "Alpha-beta override of NCCL's model: fixed latency per "
                               "all-reduce (6.6us when only --step-latency is given)")
                   ->group(latency);
  auto* step = app->add_option("--step-latency", o.step_latency,
                               "Alpha-beta override of NCCL's model: latency per sequential step "
                               "(2.7us when only --base-latency is given)")
                   ->group(latency);
  for (auto* override_flag : {base, step}) {
    for (auto* nccl_flag : {algo, proto}) override_flag->excludes(nccl_flag);
  }
}

void add_precision_options(CLI::App* app, std::string& quantization, std::string& bits_per_weight) {
  auto* q = app->add_option("--quantization", quantization,
                            "Serve the model as nvfp4, fp8, mxfp4, int4 or bf16, whatever its "
                            "file says (embedding, output head and router stay 16-bit)")
                ->group("Model");
  auto* b = app->add_option("--bits-per-weight", bits_per_weight,
                            "Every weight at this many bits (e.g. 4.5), whatever its file says")
                ->group("Model");
  q->excludes(b);
}

void add_cluster_options(CLI::App* app, ClusterOptions& o) {
  app->add_option("--nodes", o.nodes, "Nodes in the cluster, e.g. 8 or 16")->required();
  app->add_option("--speeds", o.speeds, "Per-node link speeds to consider")
      ->delimiter(',')
      ->default_str("100G,200G");
  app->add_option("--workload", o.workload, "chat, rag, long-docs, or a workload YAML file")
      ->default_str("rag");
  app->add_option("--ttft-budget", o.ttft_budget, "Most extra TTFT a request may gain, e.g. 2s");
  add_node_option(app, o.node);
  app->add_option("--switch", o.switches, "Switches to consider (names, or all)")
      ->delimiter(',')
      ->default_str("all");
  app->add_option("--layouts", o.layouts,
                  "Kinds of layout side by side: tp (instances x TP), pp (x pipeline stages), ep "
                  "(expert parallel with data-parallel attention, MoE), pd (xPyD prefill/decode "
                  "disaggregation), a comma list or all; beyond tp, ranked by expected tokens/s "
                  "(per dollar with prices)")
      ->capture_default_str();
}

PlanSearchRequest to_plan_request(const EngineOptions& engine, const ClusterOptions& o) {
  PlanSearchRequest in;
  in.model = load_model(engine);
  in.nodes = o.nodes;
  for (const auto& s : o.speeds) in.speeds.push_back(to_link(s, "--speeds"));
  in.collective = to_collective_settings(engine);
  in.workload = resolve_workload(o.workload);
  if (!o.ttft_budget.empty()) {
    in.ttft_budget = parse_duration(o.ttft_budget, InputLocation::for_key("--ttft-budget"));
  }
  EngineOptions per_layout = engine;
  per_layout.tp = 2;  // set per layout
  in.engine = to_engine(per_layout);
  in.node = load_node(o.node);
  in.switches = chosen_switches(o.switches);
  in.fabric_catalog = builtin_fabric_profiles();
  in.memory = to_memory_settings(o.memory);
  in.families = parse_layout_families(o.layouts, InputLocation::for_key("--layouts"));
  return in;
}

std::vector<SwitchSpec> chosen_switches(const std::vector<std::string>& names) {
  std::vector<SwitchSpec> out;
  if (names.size() == 1 && names.front() == "all") {
    for (const auto& name : builtin_switch_names()) out.push_back(builtin_switch(name));
    return out;
  }
  for (const auto& name : names) out.push_back(resolve_switch(name));
  return out;
}

ModelArch load_model(const std::string& name, const std::string& quantization,
                     const std::string& bits_per_weight) {
  ModelArch model = resolve_model(name);
  PrecisionAsk precision;
  precision.quantization = quantization;
  if (!bits_per_weight.empty()) {
    precision.bits_per_weight = parse_positive_number(
        bits_per_weight, InputLocation::for_key("--bits-per-weight"), "bits per weight, e.g. 4.5");
  }
  // A precision given on the command line settles what the files left in
  // doubt about it; the model's other doubts travel in every report.
  return at_precision(std::move(model), precision);
}

ModelArch load_model(const EngineOptions& options) {
  return load_model(options.model, options.quantization, options.bits_per_weight);
}

EngineConfig to_engine(const EngineOptions& o) {
  EngineConfig e;
  e.tensor_parallel_size = o.tp;
  e.max_num_batched_tokens = parse_tokens(o.chunk, InputLocation::for_key("--chunk"));
  if (!o.long_prefill_threshold.empty()) {
    e.long_prefill_token_threshold = parse_tokens(
        o.long_prefill_threshold, InputLocation::for_key("--long-prefill-token-threshold"));
  }
  e.max_num_seqs = o.max_num_seqs;
  e.num_speculative_tokens = o.spec_tokens;
  e.activation_bytes = o.activation_bytes;
  if (o.allreduces_per_layer >= 0) e.allreduces_per_layer = o.allreduces_per_layer;
  e.extra_allreduces_per_forward = o.extra_allreduces;
  e.algorithm = o.algorithm == "tree" ? CollectiveAlgorithm::tree : CollectiveAlgorithm::ring;
  e.all2all_backend = to_all2all_backend(o.all2all_backend);
  return e;
}

Link to_link(const std::string& text, const std::string& flag) {
  return parse_link(text, InputLocation::for_key(flag));
}

std::vector<Link> to_links(const std::vector<std::string>& texts, const std::string& flag) {
  if (texts.empty()) throw InputError("give at least one link", InputLocation::for_key(flag));
  std::vector<Link> links;
  links.reserve(texts.size());
  for (const auto& text : texts) links.push_back(to_link(text, flag));
  return links;
}

CollectiveSettings to_collective_settings(const EngineOptions& options) {
  CollectiveSettings settings;
  if (!options.base_latency.empty() || !options.step_latency.empty()) {
    StepLatency alpha;
    if (!options.base_latency.empty()) {
      alpha.base = parse_duration(options.base_latency, InputLocation::for_key("--base-latency"));
    }
    if (!options.step_latency.empty()) {
      alpha.per_step =
          parse_duration(options.step_latency, InputLocation::for_key("--step-latency"));
    }
    settings.latency_override = alpha;
  }
  NcclSetup& nccl = settings.nccl;
  if (!options.nccl_algo.empty()) {
    nccl.algorithms =
        parse_nccl_algorithms(options.nccl_algo, InputLocation::for_key("--nccl-algo"));
    settings.nccl_algorithm_from_engine = false;
  }
  nccl.protocols = parse_nccl_protocols(options.nccl_proto, InputLocation::for_key("--nccl-proto"));
  validate(nccl);
  return settings;
}

void add_budget_options(CLI::App* app, BudgetOptions& o, bool with_decode) {
  const std::string gate = "CI gate (exit 1 when exceeded)";
  app->add_option("--max-extra-ttft", o.max_extra_ttft,
                  "Most extra TTFT any scenario may gain, e.g. 1s")
      ->group(gate);
  app->add_option("--max-extra-ttft-per-1k", o.max_extra_ttft_per_1k,
                  "Most extra TTFT per 1,000 prompt tokens, e.g. 0.2s")
      ->group(gate);
  app->add_option("--max-ttft-increase", o.max_ttft_increase,
                  "Most TTFT increase over the measured/projected TTFT, e.g. 20%")
      ->group(gate);
  if (with_decode) {
    app->add_option("--max-decode-slowdown", o.max_decode_slowdown,
                    "Most a link may add per decode forward, as a share of its floor, e.g. 10%")
        ->group(gate);
  }
}

Budgets to_budgets(const BudgetOptions& o) {
  Budgets b;
  if (!o.max_extra_ttft.empty()) {
    b.max_extra_ttft = parse_duration(o.max_extra_ttft, InputLocation::for_key("--max-extra-ttft"));
  }
  if (!o.max_extra_ttft_per_1k.empty()) {
    b.max_extra_ttft_per_1k =
        parse_duration(o.max_extra_ttft_per_1k, InputLocation::for_key("--max-extra-ttft-per-1k"));
  }
  if (!o.max_ttft_increase.empty()) {
    b.max_ttft_increase =
        parse_percent(o.max_ttft_increase, InputLocation::for_key("--max-ttft-increase"));
  }
  if (!o.max_decode_slowdown.empty()) {
    b.max_decode_slowdown =
        parse_percent(o.max_decode_slowdown, InputLocation::for_key("--max-decode-slowdown"));
  }
  return b;
}

Field verdict_records(const std::vector<Verdict>& verdicts) {
  std::vector<Record> rows;
  for (const auto& v : verdicts) {
    const bool share = v.unit == VerdictUnit::fraction;
    const bool bytes = v.unit == VerdictUnit::bytes;
    const std::string suffix = share ? "_pct" : bytes ? "_bytes" : "_s";
    const double scale = share ? 100.0 : 1.0;
    const DisplayUnit unit = share ? kPercent : bytes ? kBytesGB : kSeconds;
    const int decimals = share ? 1 : bytes ? 2 : 3;
    auto shown = [&](double x) {
      return fmt::format("{:.{}f} {}", x * scale / unit.scale, decimals, unit.suffix);
    };
    rows.push_back({text("budget", "budget", v.budget), text("subject", "checked", v.subject),
                    json_only(number("value" + suffix, "value", v.value * scale, unit, decimals)),
                    json_only(number("limit" + suffix, "limit", v.limit * scale, unit, decimals)),
                    table_only(text("", "value", shown(v.value))),
                    table_only(text("", "limit", shown(v.limit))),
                    flag("within", "within", v.within),
                    table_only(text("", "verdict", v.within ? "ok" : "EXCEEDED"))});
  }
  return records("verdicts", "budget verdicts", std::move(rows));
}

void add_node_option(CLI::App* app, std::string& node) {
  app->add_option("--node", node,
                  "Node from the catalog (models/nodes) or a node YAML file: memory, memory "
                  "bandwidth, NCCL's measured buffers")
      ->default_str(std::string(kDefaultNodeName));
}

NodeSpec load_node(const std::string& node) { return resolve_node(node); }

void add_memory_options(CLI::App* app, MemoryOptions& o) {
  const std::string group = "Memory fit (defaults: the node's, vLLM's and NCCL's own)";
  app->add_option("--node-memory", o.node_memory,
                  "Usable memory per node (default: the node's usable_memory)")
      ->group(group);
  app->add_option("--gpu-memory-utilization", o.gpu_memory_utilization,
                  "Share of the usable memory vLLM may take, in (0, 1]")
      ->group(group)
      ->default_str(fmt::format("{:g}", MemorySettings{}.gpu_memory_utilization));
  app->add_flag("--nccl-tuned", o.nccl_tuned,
                "NCCL buffers as the node's tuned pair (DGX Spark: NCCL_MAX_NCHANNELS=8, "
                "NCCL_BUFFSIZE=1MiB) instead of NCCL's own")
      ->group(group);
  o.nccl_channels_option =
      app->add_option("--nccl-channels", o.nccl_channels,
                      "NCCL_MAX_NCHANNELS: the channels NCCL allocates buffers for (default: the "
                      "node's profile)")
          ->group(group);
  app->add_option("--nccl-buffsize", o.nccl_buffsize, "NCCL_BUFFSIZE (default: the node's profile)")
      ->group(group);
  app->add_option("--cuda-graph-memory", o.cuda_graph_memory,
                  "Memory CUDA graphs take (vLLM logs it after capture)")
      ->group(group)
      ->default_str("1GB");
  app->add_flag("--enforce-eager", o.enforce_eager, "No CUDA graphs (vLLM's --enforce-eager)")
      ->group(group);
  app->add_option("--activation-factor", o.activation_factor,
                  "Hidden-sized tensors alive at the activation peak, per chunk token")
      ->group(group)
      ->default_str(fmt::format("{:g}", MemorySettings{}.activation_factor));
  app->add_option("--kv-cache-dtype", o.kv_cache_dtype, "auto (= bf16), bf16, fp16 or fp8")
      ->group(group)
      ->default_str("auto");
  app->add_option("--kv-bytes-per-token", o.kv_bytes_per_token,
                  "KV cache bytes per token per node, replacing the architecture's (e.g. 4KB)")
      ->group(group);
  app->add_option("--max-model-len", o.max_model_len,
                  "Longest sequence one request may reach (e.g. 8k, 128k, 1M)")
      ->group(group)
      ->capture_default_str();
  app->add_option("--engram-tables", o.engram_tables,
                  "Where the model's Engram tables live: gpu, host (pinned host memory; on a "
                  "unified-memory node the same memory) or disk (default: where the model file "
                  "says its deployment kept them)")
      ->group(group);
  app->add_option("--autotune-spike", o.autotune_spike,
                  "Memory GEMM autotuning takes during vLLM's profiling run (DeepGEMM/CUTLASS "
                  "mxfp8: ~10GB); VLLM_FLASHINFER_AUTOTUNE=0 does not turn it off. 0 or off: none")
      ->group(group)
      ->default_str("0");
}

MemorySettings to_memory_settings(const MemoryOptions& o) {
  auto at = [](const char* flag) { return InputLocation::for_key(flag); };
  MemorySettings m;
  if (!o.node_memory.empty()) m.node_memory = parse_bytes(o.node_memory, at("--node-memory"));
  m.gpu_memory_utilization = o.gpu_memory_utilization;
  m.nccl_profile = o.nccl_tuned ? NcclProfile::tuned : NcclProfile::node_default;
  if (o.nccl_channels_option != nullptr && o.nccl_channels_option->count() > 0) {
    m.nccl_channels = o.nccl_channels;
  }
  if (!o.nccl_buffsize.empty())
    m.nccl_buffsize = parse_bytes(o.nccl_buffsize, at("--nccl-buffsize"));
  m.cuda_graphs =
      o.enforce_eager ? Bytes(0.0) : parse_bytes(o.cuda_graph_memory, at("--cuda-graph-memory"));
  m.activation_factor = o.activation_factor;
  m.kv_cache_dtype_bytes = parse_kv_cache_dtype(o.kv_cache_dtype, at("--kv-cache-dtype"));
  if (!o.kv_bytes_per_token.empty()) {
    m.kv_bytes_per_token = parse_bytes(o.kv_bytes_per_token, at("--kv-bytes-per-token"));
  }
  m.max_model_len = parse_tokens(o.max_model_len, at("--max-model-len"));
  if (!o.engram_tables.empty()) {
    m.engram_tables = parse_table_placement(o.engram_tables, at("--engram-tables"));
  }
  // 0 and off turn it off, where a byte size must be positive.
  if (o.autotune_spike != "0" && o.autotune_spike != "off") {
    m.autotune_spike = parse_bytes(o.autotune_spike, at("--autotune-spike"));
  }
  return m;
}

namespace {

/// The calibration file a --fabric value names, read; null for a profile name.
std::shared_ptr<const Calibration> fabric_file(const std::string& spec) {
  if (!names_calibration_file(spec)) return nullptr;
  return std::make_shared<const Calibration>(load_calibration_yaml(spec));
}

}  // namespace

FabricProfile to_fabric(const std::string& spec, const Link& link,
                        const CollectiveSettings& settings, const std::string& node) {
  return resolve_fabric(spec, link, settings, node, fabric_file(spec));
}

std::vector<ProfiledLink> with_fabrics(const std::vector<std::string>& specs,
                                       const std::vector<Link>& links,
                                       const CollectiveSettings& settings, const std::string& node,
                                       const std::optional<CalibrationInput>& calibration) {
  FabricAsk ask;
  ask.specs = specs;
  ask.collective = settings;
  for (const auto& spec : specs) ask.spec_files.push_back(fabric_file(spec));
  if (calibration) ask.calibration = calibration->file;
  std::vector<FabricProfile> fabrics = choose_fabrics(ask, links, node);
  std::vector<ProfiledLink> out;
  out.reserve(links.size());
  for (std::size_t i = 0; i < links.size(); ++i) {
    out.push_back(ProfiledLink{links[i], std::move(fabrics.at(i))});
  }
  return out;
}

std::optional<double> AcceptedTokensFlag::given() const {
  if (option == nullptr || option->count() == 0) return std::nullopt;
  return value;
}

void add_accepted_tokens_option(CLI::App* app, AcceptedTokensFlag& flag, const std::string& help) {
  flag.option = app->add_option("--accepted-tokens", flag.value, help);
}

}  // namespace tpnet::cli
