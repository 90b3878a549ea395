#include "sweep_flags.hpp"

#include "tpnet/base/quantity.hpp"

namespace tpnet::cli {

std::optional<int> given_ranks(int ranks, const CLI::Option* flag) {
  if (flag == nullptr || flag->count() == 0) return std::nullopt;
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

std::optional<Collective> collective_from_flag(const std::string& name) {
  if (name.empty()) return std::nullopt;
  if (auto collective = collective_from_name(name)) return collective;
  throw InputError("'" + name +
                       "' is not an nccl-tests collective; use all_reduce, all_gather, "
                       "reduce_scatter, alltoall, broadcast, reduce or sendrecv",
                   InputLocation::for_key("--collective"));
}

void add_collective_option(CLI::App* app, std::string& collective) {
  app->add_option("--collective", collective,
                  "The collective the log measured, when its header does not say (all_reduce, "
                  "all_gather, reduce_scatter, alltoall, broadcast, reduce, sendrecv)");
}

NcclTestsReadOptions SweepReadFlags::read_options() const {
  NcclTestsReadOptions read;
  read.allow_truncated = partial;
  read.collective = collective_from_flag(collective);
  return read;
}

std::optional<int> SweepReadFlags::given_ranks() const {
  return cli::given_ranks(ranks, ranks_flag);
}

FitRange SweepReadFlags::range() const { return fit_range_from_flags(min_size, max_size); }

void add_sweep_read_flags(CLI::App* app, SweepReadFlags& flags, const std::string& group) {
  flags.ranks_flag = app->add_option("--ranks", flags.ranks,
                                     "Ranks of the run (default: the file's '#  Rank' lines)")
                         ->group(group);
  app->add_option("--min-size", flags.min_size, "Smallest size to fit (default: all)")
      ->group(group);
  app->add_option("--max-size", flags.max_size, "Largest size to fit (default: all)")->group(group);
  app->add_flag("--partial", flags.partial,
                "Accept a sweep without its footer (a killed run): its rows are used")
      ->group(group);
  add_collective_option(app, flags.collective);
}

}  // namespace tpnet::cli
