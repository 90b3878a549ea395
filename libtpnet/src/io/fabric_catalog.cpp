#include "tpnet/io/fabric_catalog.hpp"

#include <fmt/format.h>

#include "builtin_models.hpp"
#include "catalog_lookup.hpp"
#include "tpnet/base/quantity.hpp"
#include "tpnet/fabric/switch_spec.hpp"
#include "tpnet/io/fabric_yaml.hpp"
#include "tpnet/io/link_presets.hpp"
#include "tpnet/measured/calibration_fabric.hpp"

namespace tpnet {
namespace {

InputLocation fabric_key() { return InputLocation::for_key("fabric"); }

}  // namespace

const std::vector<FabricProfile>& builtin_fabric_profiles() {
  static const std::vector<FabricProfile> profiles = [] {
    std::vector<FabricProfile> all;
    for (const auto& entry : detail::builtin_fabric_texts()) {
      auto some = parse_fabric_catalog(entry.text,
                                       "built-in models/fabrics/" + std::string(entry.file_name));
      all.insert(all.end(), some.begin(), some.end());
    }
    return all;
  }();
  return profiles;
}

std::vector<std::string> builtin_fabric_names() {
  std::vector<std::string> names;
  for (const auto& p : builtin_fabric_profiles()) names.push_back(p.name);
  return names;
}

FabricProfile default_fabric(const Link& link, const CollectiveSettings& settings,
                             std::string_view node, FabricTopology topology) {
  return default_fabric(builtin_fabric_profiles(), link, settings, node, topology);
}

FabricProfile resolve_fabric(std::string_view spec, const Link& link,
                             const CollectiveSettings& settings, std::string_view node,
                             const std::shared_ptr<const Calibration>& calibration) {
  if (spec.empty() || spec == "auto") return default_fabric(link, settings, node);
  if (spec == "nominal") return nominal_fabric(link, settings);
  if (calibration) {
    if (!calibration->allreduce) {
      throw InputError(calibration->origin +
                           ": has no allreduce section; a fabric profile needs a "
                           "measured all-reduce sweep",
                       fabric_key());
    }
    return calibration_fabric(*calibration, link);
  }
  for (const auto& p : builtin_fabric_profiles()) {
    if (!detail::same_name(p.name, spec)) continue;
    if (!same_rate(p.link.rate, link.rate)) {
      throw InputError(
          fmt::format("profile {} describes {} links ({}), not {} ({}); give one profile per link "
                      "or auto",
                      p.name, p.for_link, rate_label(p.link.rate), link.name,
                      rate_label(link.rate)),
          fabric_key());
    }
    FabricProfile out = p;
    out.link = link;
    return out;
  }
  auto names = builtin_fabric_names();
  names.emplace_back("nominal");
  names.emplace_back("auto");
  throw InputError(detail::unknown_name_message("fabric profile", spec, names) +
                       " (a calibration.yaml path also works)",
                   fabric_key());
}

bool names_calibration_file(std::string_view spec) {
  if (spec == "auto" || spec == "nominal") return false;
  return spec.find('/') != std::string_view::npos || spec.ends_with(".yaml") ||
         spec.ends_with(".yml");
}

std::vector<FabricProfile> choose_fabrics(const FabricAsk& ask, const std::vector<Link>& links,
                                          std::string_view node) {
  const auto& specs = ask.specs;
  if (specs.size() > 1 && specs.size() != links.size()) {
    throw InputError(fmt::format("{} profiles for {} links; give one for all, or one per link",
                                 specs.size(), links.size()),
                     fabric_key());
  }
  std::vector<FabricProfile> out;
  for (std::size_t i = 0; i < links.size(); ++i) {
    if (specs.empty()) {
      if (ask.calibration && ask.calibration->allreduce) {
        out.push_back(resolve_fabric(ask.calibration->origin, links[i], ask.collective, node,
                                     ask.calibration));
      } else {
        out.push_back(default_fabric(links[i], ask.collective, node, ask.topology));
      }
      continue;
    }
    const std::size_t k = specs.size() == 1 ? 0 : i;
    const std::string& spec = specs[k];
    if (spec.empty() || spec == "auto") {
      out.push_back(default_fabric(links[i], ask.collective, node, ask.topology));
      continue;
    }
    const auto file = k < ask.spec_files.size() ? ask.spec_files[k] : nullptr;
    out.push_back(resolve_fabric(spec, links[i], ask.collective, node, file));
  }
  return out;
}

}  // namespace tpnet
