#pragma once
// What every subcommand shares: the Command shape, the output format flag,
// and the engine/model/link flags named as vLLM names them.

#include <CLI/CLI.hpp>

#include <functional>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "field_flags.hpp"
#include "terminal.hpp"
#include "tpnet/io/sweep_io.hpp"
#include "tpnet/usecase/budgets.hpp"
#include "tpnet/usecase/bytes_report.hpp"
#include "tpnet/usecase/decode.hpp"
#include "tpnet/usecase/memory.hpp"
#include "tpnet/usecase/plan_search.hpp"
#include "tpnet/usecase/shared_fields.hpp"

namespace tpnet::cli {

/// What a subcommand answers: a document for the renderers, or a writer that
/// streams its own output (grids of millions of rows), and the exit code.
struct Outcome {
  Document doc;
  /// When set, streams the output instead of `doc` and returns the exit code.
  std::function<int(std::ostream&)> write;
  int exit_code = 0;  ///< 1 when a CI gate failed
};

/// A registered subcommand and the function that answers it.
struct Command {
  CLI::App* app = nullptr;
  std::function<Outcome()> run;
  std::shared_ptr<const std::string> format;  ///< --format, owned with the options
  /// How its errors and warnings name request fields: flags, or (check) the
  /// plan file's keys.
  FieldNames names = FieldNames::flags;
  /// Handed the command line as typed before `run`, by a command whose output
  /// says how to reproduce it (report); unset for the others.
  std::function<void(const std::vector<std::string>&)> keep_command_line = nullptr;
};

struct EngineOptions {
  std::string model;
  std::string quantization;     ///< --quantization: replaces the model's precision
  std::string bits_per_weight;  ///< --bits-per-weight
  int tp = 0;
  std::string chunk = std::to_string(kDefaultChunkTokens);
  std::string long_prefill_threshold;
  int max_num_seqs = 256;
  int spec_tokens = 0;
  int activation_bytes = 2;
  int allreduces_per_layer = -1;  ///< -1: not given, from the layer plan
  int extra_allreduces = 1;
  std::string algorithm = "ring";
  /// --all2all-backend: vLLM's, for EP layouts
  std::string all2all_backend{to_string(AllToAllBackend::allgather_reducescatter)};
  std::string base_latency;
  std::string step_latency;
  std::string nccl_algo;  ///< empty: only --algorithm
  std::string nccl_proto = "auto";
  std::string vllm_args;  ///< expanded into the flags above before parsing (vllm_args.hpp)
};

/// --all2all-backend in `group`, checked against vLLM's names.
void add_all2all_backend_option(CLI::App* app, std::string& backend, const std::string& group);
[[nodiscard]] AllToAllBackend to_all2all_backend(const std::string& backend);

/// --model, --tp (unless `with_tp` is false: compare takes a list) and the
/// engine settings.
void add_engine_options(CLI::App* app, EngineOptions& options, bool with_tp = true);

[[nodiscard]] ModelArch load_model(const EngineOptions& options);

/// --quantization and --bits-per-weight (mutually exclusive), in a "Model" group.
void add_precision_options(CLI::App* app, std::string& quantization, std::string& bits_per_weight);
/// resolve_model(name) with those options applied.
[[nodiscard]] ModelArch load_model(const std::string& name, const std::string& quantization,
                                   const std::string& bits_per_weight);
[[nodiscard]] EngineConfig to_engine(const EngineOptions& options);
/// Parses a link flag: a preset or a rate.
[[nodiscard]] Link to_link(const std::string& text, const std::string& flag);
/// Parses each value of a list of links; refuses an empty list.
[[nodiscard]] std::vector<Link> to_links(const std::vector<std::string>& texts,
                                         const std::string& flag);
/// The cluster's NCCL settings the latency-model flags give: --nccl-algo and
/// --nccl-proto, or the --base-latency/--step-latency override.
[[nodiscard]] CollectiveSettings to_collective_settings(const EngineOptions& options);

/// Budget flags shared by penalty and compare; empty = not set.
struct BudgetOptions {
  std::string max_extra_ttft;
  std::string max_extra_ttft_per_1k;
  std::string max_ttft_increase;
  std::string max_decode_slowdown;
};

/// --max-extra-ttft, --max-extra-ttft-per-1k, --max-ttft-increase and, with
/// `with_decode`, --max-decode-slowdown. Exceeding one makes the command exit 1.
void add_budget_options(CLI::App* app, BudgetOptions& options, bool with_decode);
[[nodiscard]] Budgets to_budgets(const BudgetOptions& options);

/// Verdicts as a list of records (budget, subject, value, limit, within) with
/// values in the budget's unit: seconds, percent for increases, bytes for
/// memory_fit.
[[nodiscard]] Field verdict_records(const std::vector<Verdict>& verdicts);

/// --node: a built-in node (tpnet switch lists them) or a node YAML file.
void add_node_option(CLI::App* app, std::string& node);
[[nodiscard]] NodeSpec load_node(const std::string& node);

/// The memory fit's settings, as `tpnet memory` names them.
struct MemoryOptions {
  std::string node_memory;  ///< empty: the node's usable memory
  double gpu_memory_utilization = MemorySettings{}.gpu_memory_utilization;
  bool nccl_tuned = false;
  int nccl_channels = 0;  ///< set only when nccl_channels_option was given
  CLI::Option* nccl_channels_option = nullptr;
  std::string nccl_buffsize;  ///< empty: the node's NCCL profile
  std::string cuda_graph_memory = "1GB";
  bool enforce_eager = false;
  double activation_factor = MemorySettings{}.activation_factor;
  std::string kv_cache_dtype = "auto";
  std::string kv_bytes_per_token;
  std::string max_model_len = std::to_string(kDefaultMaxModelLen);
  std::string engram_tables;         ///< empty: the model's placement
  std::string autotune_spike = "0";  ///< 0 or off: none
};

/// --node-memory, --gpu-memory-utilization, --nccl-tuned, --nccl-channels,
/// --nccl-buffsize, --cuda-graph-memory, --enforce-eager, --activation-factor,
/// --kv-cache-dtype, --kv-bytes-per-token, --max-model-len, --engram-tables and
/// --autotune-spike, in a "Memory fit" group.
void add_memory_options(CLI::App* app, MemoryOptions& options);
[[nodiscard]] MemorySettings to_memory_settings(const MemoryOptions& options);

/// --fabric's value for one link: auto (the node's built-in profile of the
/// link preset, else nominal), nominal, a built-in profile name, or a
/// calibration.yaml path (read here).
[[nodiscard]] FabricProfile to_fabric(const std::string& spec, const Link& link,
                                      const CollectiveSettings& settings, const std::string& node);

/// Each link with its profile: one value for every link, or one per link.
/// None given: the calibration's sweep when it has one (the best profile
/// there is, already read), else auto.
[[nodiscard]] std::vector<ProfiledLink> with_fabrics(
    const std::vector<std::string>& specs, const std::vector<Link>& links,
    const CollectiveSettings& settings, const std::string& node,
    const std::optional<CalibrationInput>& calibration = {});

/// The cluster `plan` and `report` search: nodes, speeds, workload, budget,
/// node, switches and the memory fit.
struct ClusterOptions {
  int nodes = 0;
  std::vector<std::string> speeds{"100G", "200G"};
  std::string workload = "rag";
  std::string ttft_budget;
  std::string node = std::string(kDefaultNodeName);
  std::vector<std::string> switches{"all"};
  std::string layouts = "tp";
  MemoryOptions memory;
};

/// --nodes, --speeds, --workload, --ttft-budget, --node, --switch and --layouts (the
/// memory flags are added apart, with add_memory_options).
void add_cluster_options(CLI::App* app, ClusterOptions& options);

/// The plan search those flags ask for, without a measured baseline.
[[nodiscard]] PlanSearchRequest to_plan_request(const EngineOptions& engine,
                                                const ClusterOptions& cluster);

/// --switch's values: switch names or files, or `all` for the built-in catalog.
[[nodiscard]] std::vector<SwitchSpec> chosen_switches(const std::vector<std::string>& names);

/// A --sweep value: `PATH` or `NAME=PATH` (a path that exists is never split).
[[nodiscard]] SweepSet load_sweep_argument(const std::string& value, const BenchNaming& naming);

/// --accepted-tokens: output tokens a decode forward yields per request.
struct AcceptedTokensFlag {
  double value = 0.0;
  CLI::Option* option = nullptr;
  /// Unset when the flag was not given.
  [[nodiscard]] std::optional<double> given() const;
};
void add_accepted_tokens_option(CLI::App* app, AcceptedTokensFlag& flag, const std::string& help);

Command setup_bytes(CLI::App& app);
Command setup_penalty(CLI::App& app);
Command setup_decode(CLI::App& app);
Command setup_expect(CLI::App& app);
Command setup_link(CLI::App& app);
Command setup_models(CLI::App& app);
Command setup_compare(CLI::App& app);
Command setup_check(CLI::App& app);
Command setup_capacity(CLI::App& app);
Command setup_plan(CLI::App& app);
Command setup_memory(CLI::App& app);
Command setup_switch(CLI::App& app);
Command setup_doctor(CLI::App& app);
Command setup_traffic(CLI::App& app);
Command setup_calibration(CLI::App& app);
Command setup_predict(CLI::App& app);
Command setup_report(CLI::App& app);

}  // namespace tpnet::cli
