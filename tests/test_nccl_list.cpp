// NCCL's list syntax (tpnet/fabric/nccl_list.hpp): the one parser behind
// NCCL_IB_HCA, NCCL_SOCKET_IFNAME, NCCL_ALGO and NCCL_PROTO, and NCCL's
// matchIfList rules for which names a list selects.

#include <string>
#include <vector>

#include "catch.hpp"
#include "tpnet/fabric/nccl_list.hpp"

using tpnet::nccl_list_selects;
using tpnet::NcclList;
using tpnet::parse_nccl_list;

namespace {

std::vector<std::string> names_of(const NcclList& list) {
  std::vector<std::string> names;
  for (const auto& e : list.entries) names.push_back(e.name);
  return names;
}

}  // namespace

TEST_CASE("an NCCL list splits into entries with an optional port", "[nccl]") {
  const NcclList list = parse_nccl_list("  mlx5_0:1, mlx5_1 ,roceP2p1s0f1:2 ");
  CHECK_FALSE(list.exclude);
  CHECK_FALSE(list.exact);
  CHECK_FALSE(list.has_empty_entry);
  CHECK(names_of(list) == std::vector<std::string>{"mlx5_0", "mlx5_1", "roceP2p1s0f1"});
  REQUIRE(list.entries.size() == 3);
  CHECK(list.entries[0].text == "mlx5_0:1");
  CHECK(list.entries[0].port == 1);
  CHECK_FALSE(list.entries[1].port);
  CHECK(list.entries[2].port == 2);
}

TEST_CASE("a leading ^ excludes, a leading = asks for whole names", "[nccl]") {
  const NcclList both = parse_nccl_list("^=mlx5_0");
  CHECK(both.exclude);
  CHECK(both.exact);
  CHECK(names_of(both) == std::vector<std::string>{"mlx5_0"});
  // `=` before `^` is a name, as in NCCL.
  const NcclList swapped = parse_nccl_list("=^mlx5_0");
  CHECK(swapped.exact);
  CHECK_FALSE(swapped.exclude);
  CHECK(names_of(swapped) == std::vector<std::string>{"^mlx5_0"});
}

TEST_CASE("empty entries are skipped and noted", "[nccl]") {
  const NcclList gaps = parse_nccl_list("a,,b,");
  CHECK(gaps.has_empty_entry);
  CHECK(names_of(gaps) == std::vector<std::string>{"a", "b"});
  CHECK(parse_nccl_list("").has_empty_entry);
  CHECK(parse_nccl_list("").entries.empty());
  CHECK(parse_nccl_list("^").exclude);
  CHECK(parse_nccl_list("^").entries.empty());
}

TEST_CASE("a list selects names as NCCL's matchIfList does", "[nccl]") {
  // Prefixes unless `=`; names are case-sensitive.
  CHECK(nccl_list_selects(parse_nccl_list("roce"), "roceP2p1s0f1", 1));
  CHECK_FALSE(nccl_list_selects(parse_nccl_list("=roce"), "roceP2p1s0f1", 1));
  CHECK_FALSE(nccl_list_selects(parse_nccl_list("rocep1"), "roceP2p1s0f1", 1));
  // A port narrows an entry to that port; none (or 0) is every port.
  CHECK(nccl_list_selects(parse_nccl_list("=mlx5_0:1"), "mlx5_0", 1));
  CHECK_FALSE(nccl_list_selects(parse_nccl_list("mlx5_0:2"), "mlx5_0", 1));
  CHECK(nccl_list_selects(parse_nccl_list("mlx5_0:0"), "mlx5_0", 2));
  // `^` inverts; an empty list matches everything, so `^` alone matches nothing.
  CHECK_FALSE(nccl_list_selects(parse_nccl_list("^mlx5_0"), "mlx5_0", 1));
  CHECK(nccl_list_selects(parse_nccl_list("^mlx5_0"), "mlx5_1", 1));
  CHECK(nccl_list_selects(parse_nccl_list(""), "anything"));
  CHECK_FALSE(nccl_list_selects(parse_nccl_list("^"), "anything"));
  // An interface has no port: 0 matches entries without one.
  CHECK(nccl_list_selects(parse_nccl_list("enp1s0f0np0,enP7s7"), "enP7s7"));
  CHECK(tpnet::nccl_list_entry_names(parse_nccl_list("enp"), parse_nccl_list("enp").entries[0],
                                     "enp1s0f0np0"));
}
