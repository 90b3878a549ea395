// tpnet models: the built-in model catalog; `models show NAME` for one model.

#include <memory>

#include "common.hpp"
#include "tpnet/io/model_catalog.hpp"
#include "tpnet/usecase/model_summary.hpp"

namespace tpnet::cli {
namespace {

struct ModelsOptions {
  std::string format = "table";
  std::string show_model;  ///< `models show NAME`
  std::string quantization;
  std::string bits_per_weight;
  CLI::App* show = nullptr;
};

Document run_models() {
  const std::vector<std::string> names = builtin_model_names();
  std::vector<ModelArch> models;
  models.reserve(names.size());
  for (const auto& name : names) models.push_back(builtin_model(name));
  Document doc = model_catalog_document(models);
  doc.title =
      "tpnet models: built-in architectures (--model takes a NAME, a model YAML file, or a Hugging "
      "Face config.json or the folder holding one)";
  return doc;
}

Document run_show(const ModelsOptions& o) {
  return model_summary_document(
      summarize_model(load_model(o.show_model, o.quantization, o.bits_per_weight)));
}

}  // namespace

Command setup_models(CLI::App& app) {
  auto options = std::make_shared<ModelsOptions>();
  CLI::App* sub =
      app.add_subcommand("models", "List the built-in models; `models show NAME` for one");
  add_format_option(sub, options->format);
  sub->require_subcommand(0, 1);
  options->show = sub->add_subcommand(
      "show",
      "One model's shapes, assumptions, parameter estimate, weights per node and bytes per token");
  options->show
      ->add_option("model", options->show_model,
                   "Built-in name, model YAML file, config.json or a folder holding one")
      ->required();
  add_precision_options(options->show, options->quantization, options->bits_per_weight);
  add_format_option(options->show, options->format);
  return Command{
      sub,
      [options] {
        return Outcome{options->show->parsed() ? run_show(*options) : run_models(), {}, 0};
      },
      std::shared_ptr<const std::string>(options, &options->format)};
}

}  // namespace tpnet::cli
