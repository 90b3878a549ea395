#include "tpnet/fabric/expected_rates.hpp"

namespace tpnet {

double value_at(const Spread& spread, RateEnd end) {
  switch (end) {
    case RateEnd::slow:
      return spread.slow;
    case RateEnd::typical:
      return spread.typical;
    case RateEnd::fast:
      return spread.fast;
  }
  return spread.typical;
}

}  // namespace tpnet
