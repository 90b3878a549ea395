// tpnet preflight: a tree built from public dumps of a DGX Spark passes every
// check; each fault public reports saw, made on a copy of it (SYNTHETIC, see
// tests/data/preflight/SOURCES), fails its own check with the measured cost
// and the fix; the RoCE MTU and PCIe-share formulas; the catalog keys; the
// CLI's exit codes and JSON. The facts' reader and their text form that
// crosses MPI are tested in test_node_facts.cpp.

#include <yaml-cpp/yaml.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <string>

#include "catch.hpp"
#include "cli_checks.hpp"
#include "cli_runner.hpp"
#include "preflight_trees.hpp"
#include "tpnet/base/error.hpp"
#include "tpnet/fabric/node.hpp"
#include "tpnet/io/node_catalog.hpp"
#include "tpnet/io/node_facts.hpp"
#include "tpnet/io/node_yaml.hpp"
#include "tpnet/usecase/preflight.hpp"

using tpnet::test::check_of;
using tpnet::test::CliResult;
using tpnet::test::expect_bad_input;
using tpnet::test::fresh_dir;
using tpnet::test::json_of;
using tpnet::test::run_tpnet;
namespace fs = std::filesystem;

namespace {

const fs::path kTree = fs::path(TPNET_SOURCE_DIR) / "tests/data/preflight/dgx-spark-port0";

void write(const fs::path& path, const std::string& text) {
  tpnet::test::write_tree_file(path, text);
}

/// A copy of the healthy Spark tree with `change` applied (a SYNTHETIC variant).
fs::path variant(const std::string& name, const std::function<void(const fs::path&)>& change) {
  return tpnet::test::tree_variant("preflight_" + name, change);
}

tpnet::PreflightReport judge(const fs::path& tree) { return tpnet::test::judge_tree(tree); }

/// Only `name` fails, with the node's measured cost and its source (unless
/// `source_has` is empty: a fault nobody published a cost for) and a fix.
void expect_only_failure(const tpnet::PreflightReport& r, const std::string& name,
                         const std::string& source_has) {
  for (const auto& c : r.checks) {
    CAPTURE(c.name, c.finding);
    if (c.name == name) {
      CHECK(c.status == tpnet::CheckStatus::fails);
      CHECK(c.cost.empty() == source_has.empty());
      CHECK_THAT(c.source, ContainsSubstring(source_has));
      CHECK_FALSE(c.fix.empty());
    } else {
      CHECK(c.status != tpnet::CheckStatus::fails);
    }
  }
  CHECK(r.gate_failed());
}

void set_gid(const fs::path& tree, const std::string& device, int index, const std::string& gid,
             const std::string& type, const std::string& netdev) {
  const fs::path port = tree / "sys/class/infiniband" / device / "ports/1";
  write(port / "gids" / std::to_string(index), gid);
  write(port / "gid_attrs/types" / std::to_string(index), type);
  write(port / "gid_attrs/ndevs" / std::to_string(index), netdev);
}

/// Two IPv6 addresses ahead of the IPv4 one push its RoCE v2 GID from 3 to
/// 5, as after a netplan apply that adds them (the index a launcher pinned).
void drift_gids(const fs::path& tree) {
  for (const auto& [device, netdev, v4] :
       {std::tuple{"rocep1s0f0", "enp1s0f0np0", "c0a8:640a"},
        std::tuple{"roceP2p1s0f0", "enP2p1s0f0np0", "c0a8:c80a"}}) {
    const std::string v6 = "fd00:0000:0000:0000:0000:0000:0000:0a01";
    set_gid(tree, device, 2, v6, "IB/RoCE v1", netdev);
    set_gid(tree, device, 3, v6, "RoCE v2", netdev);
    const std::string mapped = std::string("0000:0000:0000:0000:0000:ffff:") + v4;
    set_gid(tree, device, 4, mapped, "IB/RoCE v1", netdev);
    set_gid(tree, device, 5, mapped, "RoCE v2", netdev);
  }
}

}  // namespace

TEST_CASE("a DGX Spark with one DAC in port 0, as the public dumps show it, passes every check",
          "[preflight]") {
  const tpnet::PreflightReport r = judge(kTree);
  CHECK(r.host == "spark-1");
  REQUIRE(r.checks.size() == 11);
  for (const auto& c : r.checks) {
    CAPTURE(c.name, c.finding);
    CHECK(c.status == tpnet::CheckStatus::holds);
  }
  CHECK_FALSE(r.gate_failed());
  CHECK_THAT(check_of(r, "ports_up").finding, ContainsSubstring("roceP2p1s0f0, rocep1s0f0 up"));
  CHECK_THAT(check_of(r, "gid_index").finding, ContainsSubstring("rocep1s0f0 3"));
  // The port in use is the pair of functions .0; the unused pair is neither
  // judged for its MTU nor given to NCCL.
  REQUIRE(r.devices.size() == 4);
  for (const auto& d : r.devices) {
    CAPTURE(d.device);
    CHECK(d.qsfp_port == (d.device.back() == '0' ? 0 : 1));
    CHECK(d.nccl_uses == d.active);
    CHECK(d.active == (d.qsfp_port == 0));
  }
}

TEST_CASE("NCCL_IB_HCA naming one device of the port fails with 98 against 161 Gb/s",
          "[preflight]") {
  const auto tree = variant("one_device", [](const fs::path& t) {
    write(t / "env", "NCCL_IB_HCA=rocep1s0f0\nNCCL_SOCKET_IFNAME=enP7s7\nNCCL_IB_GID_INDEX=3");
  });
  const tpnet::PreflightReport r = judge(tree);
  expect_only_failure(r, "nccl_ib_hca", "tonyd2wild");
  const auto& c = check_of(r, "nccl_ib_hca");
  CHECK_THAT(c.finding, ContainsSubstring("leaves out roceP2p1s0f0"));
  CHECK_THAT(c.fix, ContainsSubstring("export NCCL_IB_HCA=roceP2p1s0f0,rocep1s0f0"));
  // Both devices of the other, unused port: the port in use is left out whole.
  const auto other = variant("other_port", [](const fs::path& t) {
    write(t / "env", "NCCL_IB_HCA=rocep1s0f1,roceP2p1s0f1");
  });
  CHECK_THAT(check_of(judge(other), "nccl_ib_hca").finding,
             ContainsSubstring("leaves out rocep1s0f0 (port 0, the port in use)"));
  REQUIRE(c.degraded);
  REQUIRE(c.healthy);
  CHECK(c.degraded->bits_per_second() == 98e9);
  CHECK(c.healthy->bits_per_second() == 161e9);
}

TEST_CASE("an interface MTU of 1500 gives RoCE MTU 1024 and fails both MTU checks", "[preflight]") {
  const auto tree = variant("mtu", [](const fs::path& t) {
    write(t / "sys/class/net/enp1s0f0np0/mtu", "1500");
    write(t / "sys/class/net/enP2p1s0f0np0/mtu", "1500");
  });
  const tpnet::PreflightReport r = judge(tree);
  for (const char* name : {"interface_mtu", "roce_mtu"}) {
    const auto& c = check_of(r, name);
    CAPTURE(name, c.finding);
    CHECK(c.status == tpnet::CheckStatus::fails);
    CHECK_THAT(c.cost, ContainsSubstring("40%"));
    CHECK_THAT(c.source, ContainsSubstring("0xSero/local-ai-registry"));
  }
  CHECK_THAT(check_of(r, "roce_mtu").finding, ContainsSubstring("rocep1s0f0 1024 B"));
  CHECK_THAT(check_of(r, "interface_mtu").fix,
             ContainsSubstring("ip link set dev enp1s0f0np0 mtu 9000"));
  CHECK(r.gate_failed());
}

TEST_CASE("a RoCE MTU of 1024 in ibv_devinfo fails even where the interface says 9000",
          "[preflight]") {
  const auto tree = variant("devinfo", [](const fs::path& t) {
    write(t / "ibv_devinfo.txt",
          "hca_id:\trocep1s0f0\n\tphys_port_cnt:\t\t\t1\n\t\tport:\t1\n\t\t\tstate:\t\t\t"
          "PORT_ACTIVE (4)\n\t\t\tmax_mtu:\t\t4096 (5)\n\t\t\tactive_mtu:\t\t1024 (3)\n");
  });
  const tpnet::PreflightReport r = judge(tree);
  expect_only_failure(r, "roce_mtu", "0xSero/local-ai-registry");
  CHECK_THAT(check_of(r, "roce_mtu").finding, ContainsSubstring("rocep1s0f0 1024 B;"));
}

TEST_CASE("a RoCE v2 GID index that moved from 3 to 5 fails against NCCL_IB_GID_INDEX=3",
          "[preflight]") {
  const tpnet::PreflightReport r = judge(variant("gid", drift_gids));
  expect_only_failure(r, "gid_index", "MiaAI-Lab");
  const auto& c = check_of(r, "gid_index");
  CHECK_THAT(c.finding,
             ContainsSubstring("NCCL_IB_GID_INDEX=3 but rocep1s0f0's RoCE v2 GID is at 5"));
  CHECK_THAT(c.fix, ContainsSubstring("export NCCL_IB_GID_INDEX=5"));
  CHECK_THAT(c.cost, ContainsSubstring("unhandled system error"));
}

TEST_CASE("the second PCIe controller trained at Gen5 x2 fails: that half carries 54.5 Gb/s",
          "[preflight][golden]") {
  const auto tree = variant("pcie", [](const fs::path& t) {
    write(t / "sys/bus/pci/devices/0002:01:00.0/current_link_width", "2");
    write(t / "sys/bus/pci/devices/0002:01:00.1/current_link_width", "2");
  });
  const tpnet::PreflightReport r = judge(tree);
  expect_only_failure(r, "pcie_link", "tonyd2wild");
  const auto& c = check_of(r, "pcie_link");
  CHECK_THAT(c.finding,
             ContainsSubstring("0002:01:00.0 (roceP2p1s0f0) 32 GT/s x2, should be 32 GT/s x4"));
  CHECK_THAT(c.fix, ContainsSubstring("fwupdmgr"));
  // Half the lanes at the same GT/s: half of the 109 Gb/s one half measured.
  REQUIRE(c.estimated);
  CHECK_THAT(c.estimated->bits_per_second(), WithinRel(109e9 * 2.0 / 4.0, 1e-12));
}

TEST_CASE("a development-branch NCCL fails with 3.04 against 23.74 GB/s", "[preflight]") {
  const auto tree =
      variant("nccl", [](const fs::path& t) { write(t / "nccl_version", "2.29.0-dev"); });
  const tpnet::PreflightReport r = judge(tree);
  expect_only_failure(r, "nccl_version", "dgx-spark-playbooks pull request #103");
  const auto& c = check_of(r, "nccl_version");
  REQUIRE(c.degraded);
  CHECK_THAT(c.degraded->bits_per_second(), WithinRel(3.04 * 8e9, 1e-12));
  CHECK_THAT(c.healthy->bits_per_second(), WithinRel(23.74 * 8e9, 1e-12));
  // A packaged release carries a revision or its CUDA; an older one only warns.
  for (const char* release : {"2.28.9-1", "2.28.9+cuda13.0", "2.28.9-1+cuda13.0", "2.30.1"}) {
    const auto ok =
        variant("nccl_ok", [&](const fs::path& t) { write(t / "nccl_version", release); });
    CAPTURE(release);
    CHECK(check_of(judge(ok), "nccl_version").status == tpnet::CheckStatus::holds);
  }
  const auto old =
      variant("nccl_old", [](const fs::path& t) { write(t / "nccl_version", "2.27.3"); });
  CHECK(check_of(judge(old), "nccl_version").status == tpnet::CheckStatus::warns);
}

TEST_CASE("a finite memlock limit without CAP_IPC_LOCK fails and the capability alone passes",
          "[preflight]") {
  const auto tree = variant("memlock", [](const fs::path& t) {
    write(t / "limits", "65536");
    write(t / "proc/self/status", "Name:\tcat\nCapEff:\t00000000a80425fb");  // docker's default set
  });
  const tpnet::PreflightReport r = judge(tree);
  expect_only_failure(r, "memlock", "docs/background.md");
  CHECK_THAT(check_of(r, "memlock").finding, ContainsSubstring("65536 KiB and no CAP_IPC_LOCK"));
  CHECK_THAT(check_of(r, "memlock").cost, ContainsSubstring("Cannot allocate memory"));
  const auto capable = variant("ipc_lock", [](const fs::path& t) {
    write(t / "limits", "65536");
    write(t / "proc/self/status", "CapEff:\t00000000a80465fb");  // + IPC_LOCK (bit 14)
  });
  CHECK(check_of(judge(capable), "memlock").status == tpnet::CheckStatus::holds);
}

TEST_CASE("one PCIe half down fails ports_up and a NCCL_SOCKET_IFNAME typo fails its check",
          "[preflight]") {
  const auto down = variant("half_down", [](const fs::path& t) {
    write(t / "sys/class/infiniband/roceP2p1s0f0/ports/1/state", "1: DOWN");
    write(t / "sys/class/infiniband/roceP2p1s0f0/ports/1/phys_state", "3: Disabled");
  });
  const tpnet::PreflightReport r = judge(down);
  CHECK(check_of(r, "ports_up").status == tpnet::CheckStatus::fails);
  CHECK_THAT(check_of(r, "ports_up").finding,
             ContainsSubstring("port 0: 1 of 2 RDMA devices up (rocep1s0f0; down: roceP2p1s0f0)"));
  const auto typo = variant("ifname", [](const fs::path& t) {
    write(t / "env", "NCCL_IB_HCA=rocep1s0f0,roceP2p1s0f0\nNCCL_SOCKET_IFNAME=enp7s7");
  });
  expect_only_failure(judge(typo), "nccl_socket_ifname", "");
}

TEST_CASE("NCCL_IB_HCA selects as NCCL reads it: prefixes, = for exact names, ^ to exclude",
          "[preflight]") {
  using tpnet::nccl_ib_hca_selects;
  CHECK(nccl_ib_hca_selects("rocep1s0f1,roceP2p1s0f1", "roceP2p1s0f1", 1));
  CHECK_FALSE(nccl_ib_hca_selects("rocep1s0f1", "roceP2p1s0f1", 1));  // names are case-sensitive
  CHECK(nccl_ib_hca_selects("roce", "roceP2p1s0f1", 1));
  CHECK_FALSE(nccl_ib_hca_selects("=roce", "roceP2p1s0f1", 1));
  CHECK(nccl_ib_hca_selects("=rocep1s0f1:1", "rocep1s0f1", 1));
  CHECK_FALSE(nccl_ib_hca_selects("rocep1s0f1:2", "rocep1s0f1", 1));
  CHECK_FALSE(nccl_ib_hca_selects("^rocep1s0f0", "rocep1s0f0", 1));
  CHECK(nccl_ib_hca_selects("^rocep1s0f0", "roceP2p1s0f0", 1));
}

TEST_CASE("RoCE MTU is the largest IB MTU within the interface MTU less 96 bytes of headers",
          "[preflight][golden]") {
  CHECK(tpnet::roce_mtu_for_interface(1500) == 1024);  // the ConnectX-7 default
  CHECK(tpnet::roce_mtu_for_interface(9000) == 4096);
  CHECK(tpnet::roce_mtu_for_interface(4192) == 4096);
  CHECK(tpnet::roce_mtu_for_interface(4191) == 2048);
  CHECK(tpnet::roce_mtu_for_interface(352) == 256);
  CHECK(tpnet::roce_mtu_for_interface(351) == 0);
  // INT_MIN less the headers once wrapped to a large positive room: 4096.
  CHECK(tpnet::roce_mtu_for_interface(std::numeric_limits<int>::min()) == 0);
}

TEST_CASE("the DGX Spark catalog entry carries the preflight thresholds and bad keys are refused",
          "[preflight][catalog]") {
  const tpnet::NodeSpec spark = tpnet::builtin_node("dgx-spark");
  REQUIRE(spark.preflight);
  CHECK(spark.preflight->interface_mtu == 9000);
  CHECK(spark.preflight->roce_mtu == 4096);
  CHECK(spark.preflight->nccl_release == "2.28.9");
  for (const char* key : {"one_device", "mtu", "gid_index", "pcie_link", "nccl_build", "memlock"}) {
    CAPTURE(key);
    REQUIRE(spark.preflight->finding(key) != nullptr);
    CHECK_FALSE(spark.preflight->finding(key)->source.empty());
  }
  const std::string head =
      "name: n\nmemory: 1GB\nmemory_bandwidth: 1GB/s\nports: {count: 1, cage: QSFP112, rate: "
      "200G}\n";
  CHECK_THROWS_WITH(
      tpnet::parse_node_yaml(head + "preflight: {interface_mtu: 9000, roce_mtu: 3000}", "n.yaml"),
      ContainsSubstring("roce_mtu: must be an InfiniBand MTU"));
  CHECK_THROWS_WITH(
      tpnet::parse_node_yaml(head + "preflight:\n  interface_mtu: 9000\n  roce_mtu: 4096\n  "
                                    "findings:\n    typo: {cost: c, source: s}\n",
                             "n.yaml"),
      ContainsSubstring("findings.typo: is not a finding preflight names"));
  CHECK_THROWS_WITH(
      tpnet::parse_node_yaml(head + "preflight:\n  interface_mtu: 9000\n  roce_mtu: 4096\n  "
                                    "findings:\n    mtu: {cost: c, source: s, degraded: 9G}\n",
                             "n.yaml"),
      ContainsSubstring("degraded and healthy come together"));
  // A node that states no preflight section is judged only where no threshold is needed.
  tpnet::PreflightRequest request;
  request.facts = tpnet::read_node_facts(tpnet::NodeFactsSource{kTree.string(), true});
  request.node = tpnet::parse_node_yaml(head, "n.yaml");
  const tpnet::PreflightReport r = tpnet::run_preflight(request);
  CHECK(check_of(r, "interface_mtu").status == tpnet::CheckStatus::not_judged);
  CHECK(check_of(r, "nccl_ib_hca").status == tpnet::CheckStatus::holds);
}

TEST_CASE("tpnet preflight --root: exit 0 on the healthy tree, 1 on a fault, 2 on a bad root",
          "[preflight][cli]") {
  const CliResult ok = run_tpnet({"preflight", "--root", kTree.string(), "--format", "json"});
  const YAML::Node json = json_of(ok);
  CHECK(json["passed"].as<bool>());
  CHECK(json["host"].as<std::string>() == "spark-1");
  CHECK(json["checks"].size() == 11);
  CHECK(json["devices"][0]["rate_bps"][0].as<double>() == 200e9);
  CHECK(json["devices"][0]["roce_v2_gid_index"][0].as<int>() == 3);

  const auto tree =
      variant("cli_hca", [](const fs::path& t) { write(t / "env", "NCCL_IB_HCA=rocep1s0f0"); });
  const CliResult bad = run_tpnet({"preflight", "--root", tree.string(), "--format", "json"});
  CHECK(bad.exit_code == 1);
  const YAML::Node failed = YAML::Load(bad.out);
  CHECK_FALSE(failed["passed"].as<bool>());
  bool named = false;
  for (const auto& c : failed["checks"]) {
    if (c["check"].as<std::string>() != "nccl_ib_hca") continue;
    named = true;
    CHECK(c["status"].as<std::string>() == "fails");
    CHECK(c["measured_bps"][0].as<double>() == 98e9);
    CHECK(c["measured_bps"][1].as<double>() == 161e9);
  }
  CHECK(named);
  for (const char* format : {"table", "csv", "markdown"}) {
    CAPTURE(format);
    CHECK(run_tpnet({"preflight", "--root", tree.string(), "--format", format}).exit_code == 1);
  }

  expect_bad_input(run_tpnet({"preflight", "--root", "/no/such/tree"}), "--root");
  const fs::path empty = fresh_dir("preflight_empty");
  expect_bad_input(run_tpnet({"preflight", "--root", empty.string()}), "sys/class/net");
  const auto bad_limits = variant("limits", [](const fs::path& t) { write(t / "limits", "lots"); });
  expect_bad_input(run_tpnet({"preflight", "--root", bad_limits.string()}), "ulimit -l");
}
