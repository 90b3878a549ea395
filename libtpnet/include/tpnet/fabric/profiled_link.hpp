#pragma once
/// A link as a request names it: the physical link and the fabric profile its
/// collectives are priced on through the scheduler. One value, so a link and
/// its profile cannot come apart the way two lists "in the same order" can.

#include <optional>
#include <vector>

#include "tpnet/fabric/fabric_profile.hpp"
#include "tpnet/fabric/link.hpp"

namespace tpnet {

struct ProfiledLink {
  Link link;
  /// Unset: the link is priced at its nominal rate only (the bounds);
  /// nothing is predicted through the scheduler on it.
  std::optional<FabricProfile> fabric;
};

/// Each link without a profile, in order.
[[nodiscard]] std::vector<ProfiledLink> without_profiles(const std::vector<Link>& links);

/// The physical links, in order.
[[nodiscard]] std::vector<Link> links_of(const std::vector<ProfiledLink>& links);

/// True when there are links and every one has its profile: what a
/// prediction over all of them needs.
[[nodiscard]] bool all_profiled(const std::vector<ProfiledLink>& links);

}  // namespace tpnet
