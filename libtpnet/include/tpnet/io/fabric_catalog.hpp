#pragma once
/// Fabric profiles by name: the built-in ones (models/fabrics/*.yaml), the
/// default a node's link gets, and a calibration file's curve.

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "tpnet/fabric/fabric_profile.hpp"
#include "tpnet/fabric/link.hpp"
#include "tpnet/measured/calibration.hpp"

namespace tpnet {

/// The built-in profiles, every node's, in catalog order.
[[nodiscard]] const std::vector<FabricProfile>& builtin_fabric_profiles();
[[nodiscard]] std::vector<std::string> builtin_fabric_names();

/// The profile a link gets when nothing is asked: the built-in profile of
/// `node` for the link's preset name, or nominal when there is none.
[[nodiscard]] FabricProfile default_fabric(const Link& link, std::string_view node);

/// `auto` (default_fabric), `nominal`, a built-in profile name, or a
/// calibration.yaml path (`calibration`: the file already read). Throws
/// InputError naming `fabric` for an unknown name, a built-in profile whose
/// path runs at another rate than the link, or a calibration without an
/// all-reduce sweep.
[[nodiscard]] FabricProfile resolve_fabric(std::string_view spec, const Link& link,
                                           std::string_view node,
                                           std::shared_ptr<const Calibration> calibration = {});

}  // namespace tpnet
