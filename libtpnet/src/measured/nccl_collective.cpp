#include "tpnet/measured/nccl_collective.hpp"

#include <algorithm>
#include <cctype>
#include <string>

namespace tpnet {

std::string_view to_string(NcclCollective collective) {
  switch (collective) {
    case NcclCollective::all_reduce:
      return "all_reduce";
    case NcclCollective::all_gather:
      return "all_gather";
    case NcclCollective::reduce_scatter:
      return "reduce_scatter";
    case NcclCollective::alltoall:
      return "alltoall";
    case NcclCollective::broadcast:
      return "broadcast";
    case NcclCollective::reduce:
      return "reduce";
    case NcclCollective::sendrecv:
      return "sendrecv";
  }
  return "unknown";
}

std::optional<NcclCollective> collective_from_name(std::string_view name) {
  std::string key;
  for (const char c : name) {
    if (c != '_' && c != '-') key += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  if (key.size() > 4 && key.compare(key.size() - 4, 4, "perf") == 0) key.resize(key.size() - 4);
  if (key == "allreduce") return NcclCollective::all_reduce;
  if (key == "allgather") return NcclCollective::all_gather;
  if (key == "reducescatter") return NcclCollective::reduce_scatter;
  if (key == "alltoall") return NcclCollective::alltoall;
  if (key == "broadcast") return NcclCollective::broadcast;
  if (key == "reduce") return NcclCollective::reduce;
  if (key == "sendrecv") return NcclCollective::sendrecv;
  return std::nullopt;
}

double busbw_factor(NcclCollective collective, int ranks) {
  const double n = std::max(1, ranks);
  switch (collective) {
    case NcclCollective::all_reduce:
      return 2.0 * (n - 1.0) / n;
    case NcclCollective::all_gather:
    case NcclCollective::reduce_scatter:
    case NcclCollective::alltoall:
      return (n - 1.0) / n;
    case NcclCollective::broadcast:
    case NcclCollective::reduce:
    case NcclCollective::sendrecv:
      return 1.0;
  }
  return 1.0;
}

bool count_is_per_rank(NcclCollective collective) {
  return collective == NcclCollective::all_gather || collective == NcclCollective::reduce_scatter ||
         collective == NcclCollective::alltoall;
}

int ring_steps(NcclCollective collective, int ranks) {
  const int n = std::max(2, ranks);
  if (collective == NcclCollective::all_reduce) return 2 * (n - 1);
  if (collective == NcclCollective::sendrecv) return 1;
  return n - 1;
}

}  // namespace tpnet
