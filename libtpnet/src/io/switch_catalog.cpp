#include "tpnet/io/switch_catalog.hpp"

#include <algorithm>
#include "builtin_models.hpp"
#include "catalog_lookup.hpp"
#include "tpnet/io/switch_yaml.hpp"

namespace tpnet {

namespace {

SwitchSpec parse_entry(const detail::EmbeddedText& entry) {
  return parse_switch_yaml(entry.text, "built-in models/switches/" + std::string(entry.file_name));
}

/// Each built-in switch parsed once per process, with its file's stem, in
/// file order: a plan looks switches up by name dozens of times.
struct ParsedSwitch {
  std::string stem;
  SwitchSpec spec;
};
const std::vector<ParsedSwitch>& parsed_switches() {
  static const std::vector<ParsedSwitch> parsed = [] {
    std::vector<ParsedSwitch> out;
    for (const auto& entry : detail::builtin_switch_texts()) {
      out.push_back({std::string(detail::yaml_stem(entry.file_name)), parse_entry(entry)});
    }
    return out;
  }();
  return parsed;
}

}  // namespace

std::vector<std::string> builtin_switch_names() {
  std::vector<std::string> names;
  for (const auto& entry : detail::builtin_switch_texts()) {
    names.emplace_back(detail::yaml_stem(entry.file_name));
  }
  std::sort(names.begin(), names.end());
  return names;
}

std::vector<SwitchSpec> builtin_switches() {
  std::vector<SwitchSpec> out;
  for (const auto& parsed : parsed_switches()) out.push_back(parsed.spec);
  std::sort(out.begin(), out.end(),
            [](const SwitchSpec& a, const SwitchSpec& b) { return a.name < b.name; });
  return out;
}

SwitchSpec builtin_switch(std::string_view name) {
  std::vector<std::string> candidates;
  for (const auto& [stem, spec] : parsed_switches()) {
    if (detail::same_name(stem, name)) return spec;
    for (const auto& alias : spec.aliases) {
      if (detail::same_name(alias, name)) return spec;
    }
    candidates.push_back(stem);
  }
  std::sort(candidates.begin(), candidates.end());
  throw InputError(
      detail::unknown_name_message("switch", name, candidates) +
          " (all, as `switches`, plans every built-in switch; a switch YAML file also works)",
      InputLocation::for_key("switches"));
}

SwitchSpec resolve_switch(std::string_view name_or_path) {
  if (name_or_path.empty()) {
    throw InputError("is empty; give a built-in switch name, all, or a switch YAML path",
                     InputLocation::for_key("switches"));
  }
  if (detail::looks_like_yaml_path(name_or_path)) {
    return load_switch_file(std::string(name_or_path));
  }
  return builtin_switch(name_or_path);
}

}  // namespace tpnet
