// tpnet models: the built-in model catalog.

#include <memory>

#include "common.hpp"
#include "tpnet/model_catalog.hpp"

namespace tpnet::cli {
namespace {

struct ModelsOptions {
  std::string format = "table";
};

Document run_models() {
  std::vector<Record> rows;
  for (const auto& name : builtin_model_names()) {
    const ModelArch m = builtin_model(name);
    std::vector<std::string> assumed;
    for (const auto& [key, why] : m.assumptions) assumed.push_back(key);
    rows.push_back({
        text("name", "name", m.name),
        integer("hidden_size", "hidden", static_cast<double>(m.hidden_size)),
        integer("num_layers", "layers", m.num_layers),
        integer("vocab_size", "vocab", static_cast<double>(m.vocab_size)),
        integer("num_attention_heads", "heads", m.num_attention_heads),
        text("attention", "attention", std::string(to_string(m.attention))),
        number("total_params", "params", m.total_params, kBillions, 1),
        number("active_params", "active", m.active_params, kBillions, 1),
        number("bits_per_weight", "bits/weight", m.bits_per_weight, kCount, 1),
        json_only(text("description", "description", m.description)),
        json_only(text("source", "source", m.source)),
        integer("assumed_values", "assumed values", static_cast<double>(assumed.size())),
        json_only(texts("assumed_keys", "assumed", assumed)),
    });
  }
  Document doc;
  doc.title = "tpnet models: built-in architectures (use --model NAME, or a path to a YAML file)";
  doc.fields = {records("models", "models", std::move(rows))};
  return doc;
}

}  // namespace

Command setup_models(CLI::App& app) {
  auto options = std::make_shared<ModelsOptions>();
  CLI::App* sub = app.add_subcommand("models", "List the built-in models");
  add_format_option(sub, options->format);
  return Command{sub, [] { return run_models(); },
                 std::shared_ptr<const std::string>(options, &options->format)};
}

}  // namespace tpnet::cli
