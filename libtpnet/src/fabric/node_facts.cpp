#include "tpnet/fabric/node_facts.hpp"

#include <fmt/format.h>

namespace tpnet {

std::string to_string(const PciAddress& address) {
  return fmt::format("{:04x}:{:02x}:{:02x}.{:x}", address.domain, address.bus, address.device,
                     address.function);
}

}  // namespace tpnet
