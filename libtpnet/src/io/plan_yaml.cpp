#include "tpnet/io/plan_yaml.hpp"

#include <filesystem>

#include "tpnet/io/baseline_csv.hpp"
#include "tpnet/io/text_file.hpp"
#include "tpnet/model_catalog.hpp"
#include "tpnet/quantity.hpp"
#include "yaml_fields.hpp"

namespace tpnet {
namespace {

/// A path written in the plan, relative to the plan's own folder.
std::string beside(const std::string& origin, const std::string& path) {
  const std::filesystem::path p(path);
  if (p.is_absolute()) return path;
  return (std::filesystem::path(origin).parent_path() / p).lexically_normal().string();
}

/// A scalar that must be text (a quantity such as "200G"), with its location.
std::pair<std::string, InputLocation> quantity_at(const YAML::Node& map, const std::string& origin,
                                                  std::string_view key, std::string_view prefix) {
  const YAML::Node node = map[std::string(key)];
  InputLocation at = yaml::where(node, origin, std::string(prefix) + std::string(key));
  if (!node.IsScalar()) throw InputError("expected a value such as 200G or 20%", at);
  return {node.Scalar(), at};
}

bool has(const YAML::Node& map, std::string_view key) {
  const YAML::Node node = map[std::string(key)];
  return node.IsDefined() && !node.IsNull();
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

Plan parse_plan_yaml(std::string_view text, const std::string& origin) {
  const YAML::Node root = yaml::load_document(text, origin);
  yaml::require_map(root, origin, "a plan");
  yaml::reject_unknown_keys(
      root, origin,
      {"model", "layout", "engine", "links", "workload", "projection", "memory", "budgets"});
  Plan plan;
  plan.origin = origin;

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
    plan.layout.tp = static_cast<int>(yaml::required_integer(layout, origin, "tp", 1, 1024));
    plan.layout.pp =
        static_cast<int>(yaml::optional_integer(layout, origin, "pp", 1, 100000).value_or(1));
    plan.layout.ep =
        static_cast<int>(yaml::optional_integer(layout, origin, "ep", 1, 4096).value_or(1));
  });
  try {
    validate_layout(plan.layout, plan.model);
  } catch (const InputError& e) {
    throw InputError(e.detail(), yaml::where(layout, origin, "layout"));
  }

  plan.engine.tensor_parallel_size = plan.layout.tp;
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
          yaml::optional_integer(engine, origin, "max_num_batched_tokens", 1, 16777216)
              .value_or(e.max_num_batched_tokens);
      e.long_prefill_token_threshold =
          yaml::optional_integer(engine, origin, "long_prefill_token_threshold", 0, 16777216)
              .value_or(0);
      e.max_num_seqs =
          static_cast<int>(yaml::optional_integer(engine, origin, "max_num_seqs", 1, 1048576)
                               .value_or(e.max_num_seqs));
      e.num_speculative_tokens = static_cast<int>(
          yaml::optional_integer(engine, origin, "num_speculative_tokens", 0, 64).value_or(0));
      e.activation_bytes =
          static_cast<int>(yaml::optional_integer(engine, origin, "activation_bytes", 1, 8)
                               .value_or(e.activation_bytes));
      e.allreduces_per_layer =
          static_cast<int>(yaml::optional_integer(engine, origin, "allreduces_per_layer", 0, 16)
                               .value_or(e.allreduces_per_layer));
      e.extra_allreduces_per_forward = static_cast<int>(
          yaml::optional_integer(engine, origin, "extra_allreduces_per_forward", 0, 1024)
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
  {
    const auto [value, at] = quantity_at(links, origin, "from", "links.");
    plan.from = parse_link(value, at);
  }
  if (!has(links, "to"))
    throw InputError("required key is missing", yaml::where(links, origin, "links.to"));
  for (const auto& node : scalars_or_list(links["to"], origin, "links.to")) {
    plan.to.push_back(parse_link(node.Scalar(), yaml::where(node, origin, "links.to")));
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
      plan.scenarios.push_back(PrefillScenario{
          node.Scalar(),
          parse_prompt(node.Scalar(), yaml::where(node, origin, "workload.prompts")),
          {}});
    }
  } else {
    plan.scenarios =
        load_baseline_csv(beside(origin, yaml::required_string(workload, origin, "baseline")));
  }
  plan.decode_requests = static_cast<int>(yaml::with_key_prefix("workload.", [&] {
                                            return yaml::optional_integer(
                                                workload, origin, "decode_requests", 1, 1048576);
                                          }).value_or(1));

  if (has(root, "projection")) {
    const YAML::Node p = root["projection"];
    yaml::require_map(p, origin, "projection");
    yaml::with_key_prefix("projection.", [&] {
      yaml::reject_unknown_keys(p, origin, {"tp", "ttft", "prompt", "link"});
    });
    TtftBaseline b;
    b.layout.tp = static_cast<int>(yaml::with_key_prefix(
        "projection.", [&] { return yaml::required_integer(p, origin, "tp", 1, 1024); }));
    const auto [ttft, ttft_at] = quantity_at(p, origin, "ttft", "projection.");
    b.ttft = parse_duration(ttft, ttft_at);
    const auto [prompt, prompt_at] = quantity_at(p, origin, "prompt", "projection.");
    b.prompt = parse_prompt(prompt, prompt_at);
    b.link = plan.from;
    if (has(p, "link")) {
      const auto [link, link_at] = quantity_at(p, origin, "link", "projection.");
      b.link = parse_link(link, link_at);
    }
    plan.projection = b;
  }

  if (has(root, "memory")) {
    const YAML::Node m = root["memory"];
    yaml::require_map(m, origin, "memory");
    yaml::with_key_prefix("memory.", [&] {
      yaml::reject_unknown_keys(m, origin, {"node_memory", "gpu_memory_utilization", "reserved"});
    });
    if (has(m, "node_memory")) {
      const auto [value, at] = quantity_at(m, origin, "node_memory", "memory.");
      plan.memory.usable = parse_bytes(value, at);
    }
    if (has(m, "reserved")) {
      const auto [value, at] = quantity_at(m, origin, "reserved", "memory.");
      plan.memory.reserved = parse_bytes(value, at);
    }
    plan.memory.utilization =
        yaml::with_key_prefix("memory.", [&] {
          return yaml::optional_number(m, origin, "gpu_memory_utilization", 0.01, 1.0);
        }).value_or(plan.memory.utilization);
  }

  if (has(root, "budgets")) {
    const YAML::Node b = root["budgets"];
    yaml::require_map(b, origin, "budgets");
    yaml::with_key_prefix("budgets.", [&] {
      yaml::reject_unknown_keys(b, origin,
                                {"max_extra_ttft", "max_extra_ttft_per_1k_tokens",
                                 "max_ttft_increase", "max_decode_slowdown"});
    });
    if (has(b, "max_extra_ttft")) {
      const auto [value, at] = quantity_at(b, origin, "max_extra_ttft", "budgets.");
      plan.budgets.max_extra_ttft = parse_duration(value, at);
    }
    if (has(b, "max_extra_ttft_per_1k_tokens")) {
      const auto [value, at] = quantity_at(b, origin, "max_extra_ttft_per_1k_tokens", "budgets.");
      plan.budgets.max_extra_ttft_per_1k = parse_duration(value, at);
    }
    if (has(b, "max_ttft_increase")) {
      const auto [value, at] = quantity_at(b, origin, "max_ttft_increase", "budgets.");
      plan.budgets.max_ttft_increase = parse_percent(value, at);
    }
    if (has(b, "max_decode_slowdown")) {
      const auto [value, at] = quantity_at(b, origin, "max_decode_slowdown", "budgets.");
      plan.budgets.max_decode_slowdown = parse_percent(value, at);
    }
  }
  if (!plan.budgets.any()) {
    throw InputError(
        "a plan needs at least one budget to check (max_extra_ttft, "
        "max_extra_ttft_per_1k_tokens, max_ttft_increase, max_decode_slowdown)",
        yaml::where(root, origin, "budgets"));
  }
  return plan;
}

Plan load_plan_file(const std::string& path) { return parse_plan_yaml(read_text_file(path), path); }

}  // namespace tpnet
