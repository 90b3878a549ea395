#include "tpnet/traffic/collective.hpp"

#include <algorithm>
#include <bit>
#include <cctype>
#include <string>
#include <utility>

#include "tpnet/base/error.hpp"

namespace tpnet {

std::string_view to_string(Collective collective) {
  switch (collective) {
    case Collective::all_reduce:
      return "all_reduce";
    case Collective::all_gather:
      return "all_gather";
    case Collective::reduce_scatter:
      return "reduce_scatter";
    case Collective::alltoall:
      return "alltoall";
    case Collective::broadcast:
      return "broadcast";
    case Collective::reduce:
      return "reduce";
    case Collective::sendrecv:
      return "sendrecv";
  }
  return "unknown";
}

std::optional<Collective> collective_from_name(std::string_view name) {
  std::string key;
  for (const char c : name) {
    if (c != '_' && c != '-') key += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  if (key.size() > 4 && key.compare(key.size() - 4, 4, "perf") == 0) key.resize(key.size() - 4);
  if (key == "allreduce") return Collective::all_reduce;
  if (key == "allgather") return Collective::all_gather;
  if (key == "reducescatter") return Collective::reduce_scatter;
  if (key == "alltoall") return Collective::alltoall;
  if (key == "broadcast") return Collective::broadcast;
  if (key == "reduce") return Collective::reduce;
  if (key == "sendrecv") return Collective::sendrecv;
  return std::nullopt;
}

double ring_sent_factor(Collective collective, int ranks) {
  const double n = std::max(1, ranks);
  switch (collective) {
    case Collective::all_reduce:
      return 2.0 * (n - 1.0) / n;
    case Collective::all_gather:
    case Collective::reduce_scatter:
    case Collective::alltoall:
      return (n - 1.0) / n;
    case Collective::broadcast:
    case Collective::reduce:
    case Collective::sendrecv:
      return 1.0;
  }
  return 1.0;
}

bool count_is_per_rank(Collective collective) {
  return collective == Collective::all_gather || collective == Collective::reduce_scatter ||
         collective == Collective::alltoall;
}

int ring_steps(Collective collective, int ranks) {
  const int n = std::max(2, ranks);
  if (collective == Collective::all_reduce) return 2 * (n - 1);
  if (collective == Collective::sendrecv) return 1;
  return n - 1;
}

double allreduce_sent_factor(int ranks, CollectiveAlgorithm algorithm) {
  if (ranks <= 1) return 0.0;
  switch (algorithm) {
    case CollectiveAlgorithm::ring:
      return ring_sent_factor(Collective::all_reduce, ranks);
    case CollectiveAlgorithm::tree:
      return ranks == 2 ? 1.0 : 2.0;
  }
  return 0.0;
}

int allreduce_steps(int ranks, CollectiveAlgorithm algorithm) {
  if (ranks <= 1) return 0;
  switch (algorithm) {
    case CollectiveAlgorithm::ring:
      return ring_steps(Collective::all_reduce, ranks);
    case CollectiveAlgorithm::tree: {
      const auto depth = std::bit_width(static_cast<unsigned>(ranks - 1));  // ceil(log2 N)
      return 2 * static_cast<int>(depth);
    }
  }
  return 0;
}

AllReduceTraffic allreduce_traffic(Bytes block, int ranks, CollectiveAlgorithm algorithm) {
  if (ranks < 1) {
    throw InputError(std::to_string(ranks) + " ranks cannot all-reduce; use 1 or more",
                     InputLocation::for_key("layout.tp"));
  }
  if (block.count() < 0.0) throw InputError("a negative all-reduce block is not allowed");
  AllReduceTraffic traffic;
  traffic.algorithm = algorithm;
  traffic.ranks = ranks;
  traffic.block = block;
  traffic.sent_per_node = block * allreduce_sent_factor(ranks, algorithm);
  traffic.steps = allreduce_steps(ranks, algorithm);
  traffic.segment = algorithm == CollectiveAlgorithm::ring ? block / ranks : block / 2.0;
  return traffic;
}

Seconds allreduce_transfer_time(const AllReduceTraffic& traffic, BitRate rate) {
  return traffic.sent_per_node / rate;
}

}  // namespace tpnet
