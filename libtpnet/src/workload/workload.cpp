#include "tpnet/workload/workload.hpp"

#include <filesystem>

#include "io/yaml_fields.hpp"
#include "tpnet/base/quantity.hpp"
#include "tpnet/io/text_file.hpp"

namespace tpnet {

const std::vector<Workload>& workload_presets() {
  static const std::vector<Workload> presets{
      {"chat", "short conversational prompts", {{"1k", PromptSpec{1, 1024}, {}}}},
      {"rag",
       "retrieval-augmented prompts, one alone and four at once",
       {{"8k", PromptSpec{1, 8192}, {}}, {"4x8k", PromptSpec{4, 8192}, {}}}},
      {"long-docs",
       "long documents and agent contexts",
       {{"32k", PromptSpec{1, 32768}, {}}, {"64k", PromptSpec{1, 65536}, {}}}},
  };
  return presets;
}

Workload parse_workload_yaml(std::string_view text, const std::string& origin) {
  const YAML::Node root = yaml::load_document(text, origin);
  yaml::require_map(root, origin, "a workload");
  yaml::reject_unknown_keys(root, origin, {"name", "description", "prompts"});
  Workload w;
  w.name = yaml::required_string(root, origin, "name");
  w.description = yaml::optional_string(root, origin, "description").value_or("");
  const YAML::Node prompts = root["prompts"];
  if (!prompts.IsDefined() || !prompts.IsSequence() || prompts.size() == 0) {
    throw InputError("expected a non-empty list such as [8k, 4x8k]",
                     yaml::where(prompts.IsDefined() ? prompts : root, origin, "prompts"));
  }
  for (const auto& item : prompts) {
    const InputLocation at = yaml::where(item, origin, "prompts");
    if (!item.IsScalar()) throw InputError("expected a prompt such as 8k or 4x8k", at);
    w.prompts.push_back(PrefillScenario{item.Scalar(), parse_prompt(item.Scalar(), at), {}});
  }
  return w;
}

Workload resolve_workload(std::string_view name_or_path) {
  for (const auto& preset : workload_presets()) {
    if (preset.name == name_or_path) return preset;
  }
  std::error_code ec;
  if (name_or_path.find('/') != std::string_view::npos || name_or_path.ends_with(".yaml") ||
      std::filesystem::is_regular_file(std::string(name_or_path), ec)) {
    const std::string path(name_or_path);
    return parse_workload_yaml(read_text_file(path), path);
  }
  throw InputError("'" + std::string(name_or_path) +
                       "' is not a workload; use chat, rag, long-docs or a YAML file",
                   InputLocation::for_key("workload"));
}

}  // namespace tpnet
