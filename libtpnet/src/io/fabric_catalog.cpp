#include "tpnet/io/fabric_catalog.hpp"

#include <fmt/format.h>

#include "builtin_models.hpp"
#include "catalog_lookup.hpp"
#include "tpnet/base/quantity.hpp"
#include "tpnet/fabric/switch_spec.hpp"
#include "tpnet/io/fabric_yaml.hpp"
#include "tpnet/io/link_presets.hpp"

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

namespace {

/// The preset a link is: by its name, else by its rate, so that `200Gb/s`
/// and `200G` (one quantity spelled two ways) get one profile.
std::string_view preset_of(const Link& link) {
  const auto& presets = link_presets();
  for (const auto& preset : presets) {
    if (link.name == preset.name) return preset.name;
  }
  for (const auto& preset : presets) {
    if (same_rate(BitRate::gigabits_per_second(preset.gigabits_per_second), link.rate)) {
      return preset.name;
    }
  }
  return link.name;
}

}  // namespace

FabricProfile default_fabric(const Link& link, std::string_view node) {
  // A user's latency override is an explicit ask for the alpha-beta model.
  if (link.latency.override) return nominal_fabric(link);
  bool node_measured = false;
  for (const auto& p : builtin_fabric_profiles()) {
    if (!detail::same_name(p.node, node)) continue;
    node_measured = true;
    if (p.is_default && p.for_link == preset_of(link)) {
      FabricProfile out = p;
      out.link = link;
      return out;
    }
  }
  FabricProfile p = nominal_fabric(link);
  if (node_measured) {
    // The node has measured paths, not this one: say so rather than let a
    // nominal rate pass for a measurement. Its fixed cost is the node's
    // measured one (a property of the NICs and NCCL, shared by every path),
    // so a slower unmeasured link never prices a collective below a measured
    // faster one the way NCCL's tuner latencies would.
    for (const auto& b : builtin_fabric_profiles()) {
      if (detail::same_name(b.node, node)) {
        p.small = b.small;
        break;
      }
    }
    p.description = fmt::format(
        "no measured profile for this path ({} on {}): bytes at the nominal {}, which real links "
        "do not reach; fixed cost from the node's measured small all-reduces",
        link.name, node, rate_label(link.rate));
    p.provenance = {p.description};
  }
  return p;
}

FabricProfile resolve_fabric(std::string_view spec, const Link& link, std::string_view node,
                             std::shared_ptr<const Calibration> calibration) {
  if (spec.empty() || spec == "auto") return default_fabric(link, node);
  if (spec == "nominal") return nominal_fabric(link);
  if (calibration) {
    if (!calibration->allreduce) {
      throw InputError(calibration->origin +
                           ": has no allreduce section; a fabric profile needs a "
                           "measured all-reduce sweep",
                       fabric_key());
    }
    return calibration_fabric(std::make_shared<const AllReduceCalibration>(*calibration->allreduce),
                              calibration->origin, link);
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

}  // namespace tpnet
