#include "tpnet/measured/alltoall_fit.hpp"

#include <fmt/format.h>

#include <utility>

#include "sent_bytes_fit.hpp"
#include "tpnet/traffic/collective.hpp"

namespace tpnet {

AlltoAllFit fit_alltoall(const AllReduceSweep& sweep, int ranks, const FitRange& range) {
  // alltoall_perf's columns (redop none, count one peer's share) are
  // all_gather's too: a log that says nothing else may be either.
  const bool columns_alike =
      sweep.collective == Collective::all_gather && sweep.collective_from == "the columns";
  if (sweep.collective != Collective::alltoall && !columns_alike) {
    throw InputError(fmt::format("measured {} (told by {}), not an all-to-all; fit an "
                                 "alltoall_perf or tpnet-calibrate alltoall sweep",
                                 to_string(sweep.collective), sweep.collective_from),
                     InputLocation::in_file(sweep.origin));
  }
  if (ranks < 2) {
    throw InputError(fmt::format("ranks is {}; an all-to-all sweep needs at least 2 (one rank "
                                 "sends nothing over the fabric)",
                                 ranks),
                     InputLocation::in_file(sweep.origin, 0, "ranks"));
  }
  AlltoAllFit fit;
  fit.ranks = ranks;
  fit.sent_factor = ring_sent_factor(Collective::alltoall, ranks);
  SentBytesFit core = fit_sent_bytes(sweep, fit.sent_factor, range);
  fit.alpha = core.alpha;
  fit.rate = core.rate;
  take_fit_quality(std::move(core), fit);
  if (fit.rms_relative_error > kPoorFitRms) {
    fit.poor = true;
    fit.warnings.push_back(fmt::format(
        "the fit of the all-to-all sweep is poor: {:.1f}% RMS relative error (worst {:.1f}%) is "
        "above {:.0f}%; see the residuals per size, and narrow the range (`fit.min_size`, "
        "`fit.max_size`)",
        fit.rms_relative_error * 100, fit.max_relative_error * 100, kPoorFitRms * 100));
  }
  return fit;
}

}  // namespace tpnet
