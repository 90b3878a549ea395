#include "tpnet/fabric/profiled_link.hpp"

#include <algorithm>

namespace tpnet {

std::vector<ProfiledLink> without_profiles(const std::vector<Link>& links) {
  std::vector<ProfiledLink> out;
  out.reserve(links.size());
  for (const Link& link : links) out.push_back(ProfiledLink{link, std::nullopt});
  return out;
}

std::vector<Link> links_of(const std::vector<ProfiledLink>& links) {
  std::vector<Link> out;
  out.reserve(links.size());
  for (const ProfiledLink& profiled : links) out.push_back(profiled.link);
  return out;
}

bool all_profiled(const std::vector<ProfiledLink>& links) {
  return !links.empty() && std::all_of(links.begin(), links.end(),
                                       [](const ProfiledLink& p) { return p.fabric.has_value(); });
}

}  // namespace tpnet
