// A node's fabric facts (tpnet/io/node_facts.hpp reads them into the plain
// structs of tpnet/fabric/node_facts.hpp, which hold no logic of their own:
// this file covers both): read from a tree saved from a DGX Spark
// (tests/data/preflight/SOURCES), rates, link speeds and PCI addresses typed
// as they are read, and carried through the text form that crosses MPI.

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "catch.hpp"
#include "tpnet/base/error.hpp"
#include "tpnet/io/node_facts.hpp"

namespace fs = std::filesystem;

namespace {

const fs::path kTree = fs::path(TPNET_SOURCE_DIR) / "tests/data/preflight/dgx-spark-port0";

}  // namespace

TEST_CASE("node facts survive their text form, tabs and newlines too", "[preflight]") {
  tpnet::NodeFacts facts = tpnet::read_node_facts(tpnet::NodeFactsSource{kTree.string(), true});
  (*facts.nccl_environment)["NCCL_DEBUG_FILE"] = "a\tb\nc\\d";
  facts.ipc_lock = false;
  facts.unread.emplace_back("nothing");
  const std::string text = tpnet::node_facts_text(facts);
  const tpnet::NodeFacts back = tpnet::parse_node_facts_text(text, "rank 1");
  CHECK(tpnet::node_facts_text(back) == text);
  CHECK(back.nccl_environment->at("NCCL_DEBUG_FILE") == "a\tb\nc\\d");
  REQUIRE(back.devices.size() == 4);
  CHECK(back.devices[2].ports.at(0).gids.size() == 4);
  CHECK(back.memlock->unlimited);
  CHECK_THROWS_WITH(tpnet::parse_node_facts_text("host\tx\nwhat\t1\n", "rank 1"),
                    ContainsSubstring("rank 1:2: what: 'what' is not a fact"));
  CHECK_THROWS_WITH(tpnet::parse_node_facts_text("port\t1\ta\tb\tc\t-\n", "rank 1"),
                    ContainsSubstring("a port before any device"));
}

TEST_CASE("typed facts keep their values through the text form, and odd values are refused",
          "[preflight]") {
  tpnet::NodeFacts facts;
  tpnet::RdmaDeviceFacts device{
      "mlx5_0", tpnet::PciAddress{0x10000, 0xc1, 0x1f, 7}, "MT4129", "1", {}, {}};
  tpnet::RdmaPortFacts up;
  up.rate = tpnet::BitRate::gigabits_per_second(2.5);
  tpnet::RdmaPortFacts down;
  down.number = 2;  // a rate sysfs could not say
  device.ports = {up, down};
  facts.devices.push_back(device);
  facts.devices.push_back(tpnet::RdmaDeviceFacts{"mlx5_1", std::nullopt, "", "", {}, {}});
  facts.pci_links.push_back({tpnet::PciAddress{2, 1, 0, 1}, 2.5, std::nullopt, 1, 16});
  const std::string text = tpnet::node_facts_text(facts);
  CHECK_THAT(text, ContainsSubstring("device\tmlx5_0\t10000:c1:1f.7\t"));
  CHECK_THAT(text, ContainsSubstring("pci\t0002:01:00.1\t2.5\t-\t1\t16\n"));
  const tpnet::NodeFacts back = tpnet::parse_node_facts_text(text, "rank 3");
  CHECK(tpnet::node_facts_text(back) == text);
  REQUIRE(back.devices.size() == 2);
  CHECK(back.devices[0].pci_address == facts.devices[0].pci_address);
  CHECK_FALSE(back.devices[1].pci_address);
  CHECK(back.devices[0].ports[0].rate == tpnet::BitRate::gigabits_per_second(2.5));
  CHECK_FALSE(back.devices[0].ports[1].rate);
  CHECK(back.pci_links.at(0).current_gt_s == 2.5);
  CHECK_FALSE(back.pci_links.at(0).max_gt_s);

  CHECK_THROWS_WITH(tpnet::parse_node_facts_text("pci\t../../etc\t-\t-\t-\t-\n", "rank 3"),
                    ContainsSubstring("rank 3:1: pci: '../../etc' is not a PCI address"));
  CHECK_THROWS_WITH(tpnet::parse_node_facts_text(
                        "device\td\t0000:01:00.0\t\t\t\nport\t1\ta\tb\tnan\t-\n", "rank 3"),
                    ContainsSubstring("rank 3:2: port: 'nan' is not a positive number"));
}

TEST_CASE("a PCI address reads as sysfs writes it and nothing else", "[preflight]") {
  CHECK(tpnet::parse_pci_address("0000:01:00.1") == tpnet::PciAddress{0, 1, 0, 1});
  CHECK(tpnet::parse_pci_address("0002:c1:1f.7") == tpnet::PciAddress{2, 0xc1, 0x1f, 7});
  CHECK(tpnet::to_string(tpnet::PciAddress{2, 0xc1, 0x1f, 7}) == "0002:c1:1f.7");
  CHECK(tpnet::to_string(*tpnet::parse_pci_address("10000:00:02.0")) == "10000:00:02.0");
  for (const char* odd : {"", "01:00.1", "0000:01:00", "0000:01:00.8", "0000:01:20.0",
                          "0000:1:00.0", "0000:01:00.1 ", "../0000:01:00.1", "0000:0g:00.0"}) {
    INFO(odd);
    CHECK_FALSE(tpnet::parse_pci_address(odd));
  }
}

TEST_CASE("a saved tree's facts read as its files say them", "[preflight]") {
  const tpnet::NodeFacts f = tpnet::read_node_facts(tpnet::NodeFactsSource{kTree.string(), true});
  CHECK(f.host == "spark-1");
  // Both PCIe halves' two functions: rocep1s0f0/f1 and roceP2p1s0f0/f1.
  REQUIRE(f.devices.size() == 4);
  const auto port0 = std::find_if(f.devices.begin(), f.devices.end(),
                                  [](const auto& d) { return d.name == "rocep1s0f0"; });
  REQUIRE(port0 != f.devices.end());
  CHECK(port0->hca_type == "MT4129");
  CHECK(port0->firmware == "28.45.4028");
  CHECK(port0->netdevs == std::vector<std::string>{"enp1s0f0np0"});
  REQUIRE(port0->ports.size() == 1);
  CHECK(port0->ports[0].number == 1);
  CHECK(port0->ports[0].state == "4: ACTIVE");
  CHECK(port0->ports[0].rate == tpnet::BitRate::gigabits_per_second(200.0));
  REQUIRE(port0->pci_address);
  CHECK(*port0->pci_address == tpnet::PciAddress{0, 1, 0, 0});
  const auto iface = std::find_if(f.interfaces.begin(), f.interfaces.end(),
                                  [](const auto& i) { return i.name == "enp1s0f0np0"; });
  REQUIRE(iface != f.interfaces.end());
  CHECK(iface->mtu == 9000);
  CHECK(iface->operstate == "up");
  REQUIRE(f.pci_links.size() == 4);
  for (const auto& link : f.pci_links) {
    INFO(tpnet::to_string(link.address));
    CHECK(link.current_gt_s == 32.0);
    CHECK(link.current_width == 4);
  }
  REQUIRE(f.nccl_environment);
  CHECK(f.nccl_environment->at("NCCL_IB_GID_INDEX") == "3");
  CHECK(f.nccl_environment->at("NCCL_IB_HCA") == "rocep1s0f0,roceP2p1s0f0");
  REQUIRE(f.memlock);
  CHECK(f.memlock->unlimited);
  REQUIRE_FALSE(f.nccl.empty());
  CHECK(f.nccl[0].version == "2.28.9");
}

TEST_CASE("a root that is no saved tree is refused naming it", "[preflight][bad-input]") {
  CHECK_THROWS_WITH(tpnet::read_node_facts(tpnet::NodeFactsSource{(kTree / "env").string(), true}),
                    ContainsSubstring("env: is not a directory"));
  CHECK_THROWS_WITH(tpnet::read_node_facts(tpnet::NodeFactsSource{(kTree / "sys").string(), true}),
                    ContainsSubstring("has no sys/class/net"));
}

TEST_CASE("ulimit -l reads as unlimited or a count of KiB", "[preflight]") {
  CHECK(tpnet::parse_memlock("unlimited\n", "limits").unlimited);
  // 65,536 KiB = 64 MiB = 67,108,864 bytes.
  const tpnet::MemlockFacts finite = tpnet::parse_memlock("65536", "limits");
  CHECK_FALSE(finite.unlimited);
  CHECK(finite.limit.count() == 67108864.0);
  CHECK(tpnet::parse_memlock(" 0 ", "limits").limit.count() == 0.0);
  CHECK_THROWS_WITH(tpnet::parse_memlock("-1", "limits"),
                    ContainsSubstring("limits: '-1' is not what `ulimit -l` prints"));
  CHECK_THROWS_AS(tpnet::parse_memlock("64M", "limits"), tpnet::InputError);
  CHECK_THROWS_AS(tpnet::parse_memlock("", "limits"), tpnet::InputError);
}
