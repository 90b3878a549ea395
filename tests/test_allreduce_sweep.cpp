// A measured all-reduce sweep (tpnet/measured/allreduce_sweep.hpp): ranks
// per node only when the log's Rank lines spread them evenly over its hosts.

#include <string>
#include <vector>

#include "catch.hpp"
#include "tpnet/measured/allreduce_sweep.hpp"

using namespace tpnet;

TEST_CASE("ranks per node: the ranks over the hosts when they divide, else unknown",
          "[nccl-tests]") {
  AllReduceSweep s;
  s.ranks = 8;
  s.hosts = {"spark-1", "spark-2"};
  CHECK(s.ranks_per_node() == 4);
  s.hosts = {"spark-1", "spark-2", "spark-3", "spark-4",
             "spark-5", "spark-6", "spark-7", "spark-8"};
  CHECK(s.ranks_per_node() == 1);
  // 8 ranks on 3 hosts cannot be even: 0 says the log does not tell.
  s.hosts = {"a", "b", "c"};
  CHECK(s.ranks_per_node() == 0);
  // No Rank lines, or no rank count.
  s.hosts.clear();
  CHECK(s.ranks_per_node() == 0);
  s.hosts = {"a"};
  s.ranks = 0;
  CHECK(s.ranks_per_node() == 0);
}
