#include "tpnet/traffic/transfer_time.hpp"

namespace tpnet {

Seconds extra_transfer_time(Bytes bytes, BitRate from, BitRate to) {
  return Seconds(bytes.bits() * (1.0 / to.bits_per_second() - 1.0 / from.bits_per_second()));
}

}  // namespace tpnet
