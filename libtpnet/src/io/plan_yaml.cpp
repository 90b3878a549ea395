#include "tpnet/io/plan_yaml.hpp"
#include "tpnet/io/link_presets.hpp"
#include "tpnet/io/node_catalog.hpp"
#include "tpnet/workload/prefill_scenario.hpp"

#include <filesystem>

#include "tpnet/base/quantity.hpp"
#include "tpnet/fabric/node.hpp"
#include "tpnet/io/baseline_csv.hpp"
#include "tpnet/io/model_catalog.hpp"
#include "tpnet/io/text_file.hpp"
#include "tpnet/model/kv_cache.hpp"
#include "yaml_fields.hpp"

namespace tpnet {
namespace {

/// A path written in the plan, relative to the plan's own folder.
std::string beside(const std::string& origin, const std::string& path) {
  const std::filesystem::path p(path);
  if (p.is_absolute()) return path;
  return (std::filesystem::path(origin).parent_path() / p).lexically_normal().string();
}

bool has(const YAML::Node& map, std::string_view key) {
  const YAML::Node node = map[std::string(key)];
  return node.IsDefined() && !node.IsNull();
}

/// A unit-carrying value of a plan section, its errors keyed "section.key".
template <typename Parse>
auto optional_quantity(const YAML::Node& map, const std::string& origin, std::string_view key,
                       std::string_view prefix, Parse parse) {
  return yaml::with_key_prefix(prefix,
                               [&] { return yaml::optional_quantity(map, origin, key, parse); });
}

template <typename Parse>
auto required_quantity(const YAML::Node& map, const std::string& origin, std::string_view key,
                       std::string_view prefix, Parse parse) {
  return yaml::with_key_prefix(prefix,
                               [&] { return yaml::required_quantity(map, origin, key, parse); });
}

std::vector<YAML::Node> scalars_or_list(const YAML::Node& node, const std::string& origin,
                                        std::string_view key) {
  std::vector<YAML::Node> out;
  if (node.IsScalar()) {
    out.push_back(node);
  } else if (node.IsSequence() && node.size() > 0) {
    for (const auto& item : node) {
      if (!item.IsScalar())
        throw InputError("expected a list of values", yaml::where(item, origin, key));
      out.push_back(item);
    }
  } else {
    throw InputError("expected a value or a non-empty list", yaml::where(node, origin, key));
  }
  return out;
}

}  // namespace

ServingPlan parse_plan_yaml(std::string_view text, const std::string& origin) {
  const YAML::Node root = yaml::load_document(text, origin);
  yaml::require_map(root, origin, "a plan");
  yaml::reject_unknown_keys(root, origin,
                            {"model", "layout", "engine", "links", "workload", "projection", "node",
                             "memory", "budgets"});
  ServingPlan out;
  out.origin = origin;
  CompareRequest& plan = out.compare;
  ParallelLayout layout_read;

  const std::string model = yaml::required_string(root, origin, "model");
  try {
    plan.model = resolve_model(model.find('/') != std::string::npos || model.ends_with(".yaml") ||
                                       model.ends_with(".json")
                                   ? beside(origin, model)
                                   : model);
  } catch (const InputError& e) {
    if (!e.where().file.empty()) throw;
    throw InputError(e.detail(), yaml::where(root["model"], origin, "model"));
  }

  if (!has(root, "layout")) {
    throw InputError("required key is missing (e.g. layout: {tp: 8})",
                     yaml::where(root, origin, "layout"));
  }
  const YAML::Node layout = root["layout"];
  yaml::require_map(layout, origin, "layout");
  yaml::with_key_prefix("layout.", [&] {
    yaml::reject_unknown_keys(layout, origin, {"tp", "pp", "ep"});
    layout_read.tp = static_cast<int>(yaml::required_integer(layout, origin, "tp", 1, kMaxTp));
    layout_read.pp =
        static_cast<int>(yaml::optional_integer(layout, origin, "pp", 1, 100000).value_or(1));
    layout_read.ep =
        static_cast<int>(yaml::optional_integer(layout, origin, "ep", 1, kMaxEp).value_or(1));
  });
  try {
    validate_layout(layout_read, plan.model);
  } catch (const InputError& e) {
    throw InputError(e.detail(), yaml::where(layout, origin, "layout"));
  }
  plan.layouts = {layout_read};
  plan.measured_layout = layout_read;

  plan.engine.tensor_parallel_size = layout_read.tp;
  if (has(root, "engine")) {
    const YAML::Node engine = root["engine"];
    yaml::require_map(engine, origin, "engine");
    yaml::with_key_prefix("engine.", [&] {
      yaml::reject_unknown_keys(
          engine, origin,
          {"max_num_batched_tokens", "long_prefill_token_threshold", "max_num_seqs",
           "num_speculative_tokens", "activation_bytes", "allreduces_per_layer",
           "extra_allreduces_per_forward", "algorithm"});
      auto& e = plan.engine;
      e.max_num_batched_tokens =
          yaml::optional_integer(engine, origin, "max_num_batched_tokens", 1, kMaxTokens)
              .value_or(e.max_num_batched_tokens);
      e.long_prefill_token_threshold =
          yaml::optional_integer(engine, origin, "long_prefill_token_threshold", 0, kMaxTokens)
              .value_or(0);
      e.max_num_seqs = static_cast<int>(
          yaml::optional_integer(engine, origin, "max_num_seqs", 1, kMaxRunningRequests)
              .value_or(e.max_num_seqs));
      e.num_speculative_tokens = static_cast<int>(
          yaml::optional_integer(engine, origin, "num_speculative_tokens", 0, kMaxSpeculativeTokens)
              .value_or(0));
      e.activation_bytes = static_cast<int>(
          yaml::optional_integer(engine, origin, "activation_bytes", 1, kMaxActivationBytes)
              .value_or(e.activation_bytes));
      if (const auto per_layer = yaml::optional_integer(engine, origin, "allreduces_per_layer", 0,
                                                        kMaxAllreducesPerLayer)) {
        e.allreduces_per_layer = static_cast<int>(*per_layer);
      }
      e.extra_allreduces_per_forward =
          static_cast<int>(yaml::optional_integer(engine, origin, "extra_allreduces_per_forward", 0,
                                                  kMaxExtraAllreduces)
                               .value_or(e.extra_allreduces_per_forward));
      if (auto algorithm = yaml::optional_string(engine, origin, "algorithm")) {
        if (*algorithm != "ring" && *algorithm != "tree") {
          throw InputError("'" + *algorithm + "' is not an algorithm; use ring or tree",
                           yaml::where(engine["algorithm"], origin, "algorithm"));
        }
        e.algorithm = *algorithm == "tree" ? CollectiveAlgorithm::tree : CollectiveAlgorithm::ring;
      }
    });
  }

  if (!has(root, "links")) {
    throw InputError("required key is missing (e.g. links: {from: 200G, to: 100G})",
                     yaml::where(root, origin, "links"));
  }
  const YAML::Node links = root["links"];
  yaml::require_map(links, origin, "links");
  yaml::with_key_prefix("links.", [&] {
    yaml::reject_unknown_keys(links, origin, {"from", "to"});
  });
  plan.from = {
      ProfiledLink{required_quantity(links, origin, "from", "links.", parse_link), std::nullopt}};
  if (!has(links, "to"))
    throw InputError("required key is missing", yaml::where(links, origin, "links.to"));
  for (const auto& node : scalars_or_list(links["to"], origin, "links.to")) {
    plan.to.push_back(ProfiledLink{parse_link(node.Scalar(), yaml::where(node, origin, "links.to")),
                                   std::nullopt});
  }

  if (!has(root, "workload")) {
    throw InputError("required key is missing (prompts or baseline)",
                     yaml::where(root, origin, "workload"));
  }
  const YAML::Node workload = root["workload"];
  yaml::require_map(workload, origin, "workload");
  yaml::with_key_prefix("workload.", [&] {
    yaml::reject_unknown_keys(workload, origin, {"prompts", "baseline", "decode_requests"});
  });
  const bool prompts = has(workload, "prompts");
  const bool baseline = has(workload, "baseline");
  if (prompts == baseline) {
    throw InputError(
        "give exactly one of prompts (a list such as [1k, 8k, 4x8k]) or baseline (a CSV "
        "of measured TTFT)",
        yaml::where(workload, origin, "workload"));
  }
  if (prompts) {
    for (const auto& node : scalars_or_list(workload["prompts"], origin, "workload.prompts")) {
      plan.prompts.push_back(PrefillScenario{
          node.Scalar(),
          parse_prompt(node.Scalar(), yaml::where(node, origin, "workload.prompts")),
          {}});
    }
  } else {
    plan.prompts =
        load_baseline_csv(beside(origin, yaml::required_string(workload, origin, "baseline")));
  }
  plan.decode_requests = static_cast<int>(
      yaml::with_key_prefix("workload.", [&] {
        return yaml::optional_integer(workload, origin, "decode_requests", 1, kMaxRunningRequests);
      }).value_or(1));

  if (has(root, "projection")) {
    const YAML::Node p = root["projection"];
    yaml::require_map(p, origin, "projection");
    yaml::with_key_prefix("projection.", [&] {
      yaml::reject_unknown_keys(p, origin, {"tp", "ttft", "prompt", "link"});
    });
    TtftBaseline b;
    b.layout.tp = static_cast<int>(yaml::with_key_prefix(
        "projection.", [&] { return yaml::required_integer(p, origin, "tp", 1, kMaxTp); }));
    b.ttft = required_quantity(p, origin, "ttft", "projection.", parse_duration);
    b.prompt = required_quantity(p, origin, "prompt", "projection.", parse_prompt);
    b.link = optional_quantity(p, origin, "link", "projection.", parse_link)
                 .value_or(plan.from.front().link);
    plan.projection = b;
  }

  plan.node = builtin_node(kDefaultNodeName);
  if (const auto node = yaml::optional_string(root, origin, "node")) {
    try {
      plan.node = resolve_node(node->find('/') != std::string::npos || node->ends_with(".yaml")
                                   ? beside(origin, *node)
                                   : *node);
    } catch (const InputError& e) {
      if (!e.where().file.empty()) throw;
      throw InputError(e.detail(), yaml::where(root["node"], origin, "node"));
    }
  }
  if (has(root, "memory")) {
    const YAML::Node m = root["memory"];
    yaml::require_map(m, origin, "memory");
    if (has(m, "reserved")) {
      throw InputError(
          "is no longer read: NCCL's buffers come from the node's measured footprint "
          "(memory.nccl_channels and memory.nccl_buffsize, or memory.nccl_tuned: true for the "
          "node's tuned pair, nccl_memory.tuned in its file) and the OS share from the node's "
          "reserved_memory",
          yaml::where(m["reserved"], origin, "memory.reserved"));
    }
    yaml::with_key_prefix("memory.", [&] {
      yaml::reject_unknown_keys(
          m, origin,
          {"node_memory", "gpu_memory_utilization", "nccl_tuned", "nccl_channels", "nccl_buffsize",
           "cuda_graph_memory", "activation_factor", "kv_cache_dtype", "kv_bytes_per_token",
           "max_model_len", "memory_bandwidth", "engram_tables", "autotune_spike"});
    });
    MemorySettings& mem = plan.memory;
    mem.node_memory = optional_quantity(m, origin, "node_memory", "memory.", parse_bytes);
    yaml::with_key_prefix("memory.", [&] {
      mem.gpu_memory_utilization =
          yaml::optional_number(m, origin, "gpu_memory_utilization", 0.01, 1.0)
              .value_or(mem.gpu_memory_utilization);
      if (has(m, "nccl_tuned")) {
        bool tuned = false;
        if (!YAML::convert<bool>::decode(m["nccl_tuned"], tuned)) {
          throw InputError("expected true or false",
                           yaml::where(m["nccl_tuned"], origin, "nccl_tuned"));
        }
        mem.nccl_profile = tuned ? NcclProfile::tuned : NcclProfile::node_default;
      }
      if (auto channels = yaml::optional_integer(m, origin, "nccl_channels", 1, kMaxNcclChannels)) {
        mem.nccl_channels = static_cast<int>(*channels);
      }
      mem.activation_factor = yaml::optional_number(m, origin, "activation_factor", 1e-9, 1000.0)
                                  .value_or(mem.activation_factor);
      mem.max_model_len = yaml::optional_integer(m, origin, "max_model_len", 1, kMaxTokens)
                              .value_or(mem.max_model_len);
      if (auto tables = yaml::optional_string(m, origin, "engram_tables")) {
        mem.engram_tables = parse_table_placement(
            *tables, yaml::where(m["engram_tables"], origin, "engram_tables"));
      }
      if (auto dtype = yaml::optional_string(m, origin, "kv_cache_dtype")) {
        mem.kv_cache_dtype_bytes = parse_kv_cache_dtype(
            *dtype, yaml::where(m["kv_cache_dtype"], origin, "kv_cache_dtype"));
      }
    });
    mem.nccl_buffsize = optional_quantity(m, origin, "nccl_buffsize", "memory.", parse_bytes);
    if (auto graphs = optional_quantity(m, origin, "cuda_graph_memory", "memory.", parse_bytes)) {
      mem.cuda_graphs = *graphs;
    }
    mem.kv_bytes_per_token =
        optional_quantity(m, origin, "kv_bytes_per_token", "memory.", parse_bytes);
    // 0 and off turn it off, where a byte size must be positive.
    const bool spike_off =
        has(m, "autotune_spike") && m["autotune_spike"].IsScalar() &&
        (m["autotune_spike"].Scalar() == "0" || m["autotune_spike"].Scalar() == "off");
    if (!spike_off) {
      if (auto bytes = optional_quantity(m, origin, "autotune_spike", "memory.", parse_bytes)) {
        mem.autotune_spike = *bytes;
      }
    }
    plan.memory_bandwidth =
        optional_quantity(m, origin, "memory_bandwidth", "memory.", parse_bit_rate);
  }

  if (has(root, "budgets")) {
    const YAML::Node b = root["budgets"];
    yaml::require_map(b, origin, "budgets");
    yaml::with_key_prefix("budgets.", [&] {
      yaml::reject_unknown_keys(b, origin,
                                {"max_extra_ttft", "max_extra_ttft_per_1k_tokens",
                                 "max_ttft_increase", "max_decode_slowdown"});
    });
    auto& budgets = plan.budgets;
    budgets.max_extra_ttft =
        optional_quantity(b, origin, "max_extra_ttft", "budgets.", parse_duration);
    budgets.max_extra_ttft_per_1k =
        optional_quantity(b, origin, "max_extra_ttft_per_1k_tokens", "budgets.", parse_duration);
    budgets.max_ttft_increase =
        optional_quantity(b, origin, "max_ttft_increase", "budgets.", parse_percent);
    budgets.max_decode_slowdown =
        optional_quantity(b, origin, "max_decode_slowdown", "budgets.", parse_percent);
  }
  if (!plan.budgets.any()) {
    throw InputError(
        "a plan needs at least one budget to check (max_extra_ttft, "
        "max_extra_ttft_per_1k_tokens, max_ttft_increase, max_decode_slowdown)",
        yaml::where(root, origin, "budgets"));
  }
  return out;
}

ServingPlan load_serving_plan(const std::string& path) {
  return parse_plan_yaml(read_text_file(path), path);
}

}  // namespace tpnet
