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

/// `auto` (default_fabric), `nominal`, a built-in profile name, or a
/// calibration.yaml path (`calibration`: the file already read); `settings`
/// are the cluster's NCCL settings a nominal profile prices with. Throws
/// InputError naming `fabric` for an unknown name, a built-in profile whose
/// path runs at another rate than the link, or a calibration without an
/// all-reduce sweep.
[[nodiscard]] FabricProfile resolve_fabric(
    std::string_view spec, const Link& link, const CollectiveSettings& settings,
    std::string_view node, const std::shared_ptr<const Calibration>& calibration = {});

/// default_fabric over the built-in catalog.
[[nodiscard]] FabricProfile default_fabric(const Link& link, const CollectiveSettings& settings,
                                           std::string_view node,
                                           FabricTopology topology = FabricTopology::switched);

/// Whether a --fabric value names a calibration.yaml to read rather than a
/// profile: it holds a '/' or ends in .yaml/.yml (auto and nominal never).
[[nodiscard]] bool names_calibration_file(std::string_view spec);

/// What a command asks of the fabric for its links, in the one order every
/// command prices on (docs/formulas.md s.28): the profiles asked for (one
/// for all links or one per link; a calibration path comes with its file
/// read), else a calibration's measured sweep (it measured this cluster),
/// else the node's built-in profile of each link for the topology the
/// layout buys, else nominal.
struct FabricAsk {
  std::vector<std::string> specs;
  /// The file each spec names when names_calibration_file(spec); null else.
  std::vector<std::shared_ptr<const Calibration>> spec_files;
  std::shared_ptr<const Calibration> calibration;  ///< a calibration given apart
  FabricTopology topology = FabricTopology::switched;
  CollectiveSettings collective = {};  ///< the cluster's NCCL settings, for nominal profiles
};

/// One profile per link. Throws InputError naming `fabric` for a spec count
/// that is neither 1 nor the links' and for what resolve_fabric refuses.
[[nodiscard]] std::vector<FabricProfile> choose_fabrics(const FabricAsk& ask,
                                                        const std::vector<Link>& links,
                                                        std::string_view node);

}  // namespace tpnet
