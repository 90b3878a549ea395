#include "tpnet/fabric/node.hpp"

#include <algorithm>

#include "tpnet/fabric/switch_spec.hpp"

namespace tpnet {

bool NodePorts::supports(BitRate speed) const {
  return std::any_of(speeds.begin(), speeds.end(), [&](BitRate s) { return same_rate(s, speed); });
}

const PreflightFinding* NodePreflight::finding(std::string_view key) const {
  for (const auto& [name, finding] : findings) {
    if (name == key) return &finding;
  }
  return nullptr;
}

BitRate NodeSpec::network_rate() const {
  BitRate total = ports.rate * static_cast<double>(ports.count);
  if (host_links.count > 0 && host_links.usable > BitRate(0.0)) {
    total = std::min(total, host_links.usable * static_cast<double>(host_links.count));
  }
  if (network_limit > BitRate(0.0)) total = std::min(total, network_limit);
  return total;
}

}  // namespace tpnet
