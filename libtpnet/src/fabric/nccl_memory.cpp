#include "tpnet/fabric/nccl_memory.hpp"

#include <fmt/format.h>

#include "tpnet/base/error.hpp"
#include "tpnet/base/limits.hpp"

namespace tpnet {

NcclFootprint nccl_footprint(const NcclMemoryProfile& p) {
  // Two equations, fixed + slope x channels x buffsize = per_rank, in two unknowns.
  const double connections = nccl_connections(p.ranks);
  const double big = p.defaults.channels * p.defaults.buffsize.count();
  const double small = p.tuned.channels * p.tuned.buffsize.count();
  NcclFootprint f;
  f.buffers_per_connection =
      (p.defaults_per_rank - p.tuned_per_rank).count() / (connections * (big - small));
  f.fixed = p.tuned_per_rank - Bytes(small * connections * f.buffers_per_connection);
  return f;
}

Bytes nccl_buffer_bytes(const NcclMemoryProfile& profile, NcclBuffers buffers, int ranks) {
  if (buffers.channels < 1 || buffers.channels > kMaxNcclChannels) {
    throw InputError(fmt::format("{} is not allowed; use 1 to {} (NCCL_MAX_NCHANNELS)",
                                 buffers.channels, kMaxNcclChannels),
                     InputLocation::for_key("memory.nccl_channels"));
  }
  if (!(buffers.buffsize.count() > 0.0) || buffers.buffsize.count() > kMaxNcclBuffsize) {
    throw InputError(fmt::format("{} bytes is not allowed; use more than 0 up to 1GiB",
                                 buffers.buffsize.count()),
                     InputLocation::for_key("memory.nccl_buffsize"));
  }
  if (ranks < 1 || ranks > kMaxEp) {
    throw InputError(fmt::format("{} ranks is not allowed; use 1 to {}", ranks, kMaxEp),
                     InputLocation::for_key("layout.tp"));
  }
  if (ranks == 1) return Bytes(0.0);
  const NcclFootprint f = nccl_footprint(profile);
  return f.fixed + Bytes(buffers.channels * nccl_connections(ranks) * f.buffers_per_connection *
                         buffers.buffsize.count());
}

}  // namespace tpnet
