#pragma once
/// What moving bytes over one link instead of another adds (docs/formulas.md s.4).

#include "tpnet/base/units.hpp"

namespace tpnet {

/// Extra time to send `bytes` at `to` instead of `from`:
/// bytes x 8 x (1/to - 1/from). Zero for equal links, negative when `to` is faster.
[[nodiscard]] Seconds extra_transfer_time(Bytes bytes, BitRate from, BitRate to);

}  // namespace tpnet
