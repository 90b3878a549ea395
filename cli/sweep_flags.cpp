#include "sweep_flags.hpp"

#include <fmt/format.h>

#include "tpnet/quantity.hpp"

namespace tpnet::cli {

int sweep_ranks(const AllReduceSweep& sweep, int flag_ranks, const std::string& path,
                std::vector<std::string>& warnings) {
  int ranks = sweep.ranks;
  if (flag_ranks != 0) {
    if (flag_ranks < 2) {
      throw InputError(fmt::format("is {}; an all-reduce needs at least 2 ranks", flag_ranks),
                       InputLocation::for_key("--ranks"));
    }
    if (sweep.ranks != 0 && sweep.ranks != flag_ranks) {
      warnings.push_back(
          fmt::format("--ranks {} overrides the {} ranks {} lists", flag_ranks, sweep.ranks, path));
    }
    ranks = flag_ranks;
  }
  if (ranks == 0) {
    throw InputError("does not list its ranks ('#  Rank' lines); give --ranks N",
                     InputLocation::in_file(path));
  }
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
