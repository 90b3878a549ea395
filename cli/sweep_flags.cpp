#include "sweep_flags.hpp"

#include "tpnet/quantity.hpp"

namespace tpnet::cli {

std::optional<int> ranks_from_flag(int ranks) {
  if (ranks == 0) return std::nullopt;
  return ranks;
}

FitRange fit_range_from_flags(const std::string& min_size, const std::string& max_size) {
  FitRange range;
  if (!min_size.empty())
    range.min_size = parse_bytes(min_size, InputLocation::for_key("--min-size"));
  if (!max_size.empty())
    range.max_size = parse_bytes(max_size, InputLocation::for_key("--max-size"));
  return range;
}

}  // namespace tpnet::cli
