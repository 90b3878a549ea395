// Issue 40, item 3: readers that cannot hang, balloon or leak
// (docs/hardening.md, "Inputs that cannot hang, balloon or leak"). Every
// file flag refuses a FIFO, a device or a socket at once, naming it; a saved
// preflight tree reads only its own files, each under a size cap, and takes
// only the numbers the kernel writes; NCCL's list syntax is judged as NCCL
// judges it. Each CLI run is bounded by the runner's timeout, so a reader
// that waits forever fails its test instead of stalling the suite.

#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "catch.hpp"
#include "cli_checks.hpp"
#include "cli_runner.hpp"
#include "preflight_trees.hpp"
#include "tpnet/base/error.hpp"
#include "tpnet/io/node_catalog.hpp"
#include "tpnet/io/node_facts.hpp"
#include "tpnet/io/text_file.hpp"
#include "tpnet/usecase/preflight.hpp"

using tpnet::test::check_of;
using tpnet::test::expect_bad_input;
using tpnet::test::fresh_dir;
using tpnet::test::run_tpnet;
namespace fs = std::filesystem;

namespace {

const std::string kSource = TPNET_SOURCE_DIR;
const fs::path kTree = fs::path(kSource) / "tests/data/preflight/dgx-spark-port0";

void write(const fs::path& path, const std::string& text) {
  tpnet::test::write_tree_file(path, text);
}

/// A copy of the healthy Spark tree with `change` applied (a SYNTHETIC variant).
fs::path variant(const std::string& name, const std::function<void(const fs::path&)>& change) {
  return tpnet::test::tree_variant("hostile_" + name, change);
}

tpnet::PreflightReport judge(const fs::path& tree) { return tpnet::test::judge_tree(tree); }

fs::path make_fifo(const fs::path& path) {
  fs::create_directories(path.parent_path());
  fs::remove(path);
  REQUIRE(::mkfifo(path.c_str(), 0600) == 0);
  return path;
}

}  // namespace

TEST_CASE("a FIFO as any input flag is refused at once, naming it", "[hardening][hostile]") {
  // Each of these once waited forever for a writer that never came.
  const fs::path fifo = make_fifo(fresh_dir("hostile_fifo") / "input.yaml");
  const std::string f = fifo.string();
  const std::vector<std::vector<std::string>> runs{
      {"models", "show", f},
      {"bytes", "--model", f, "--tp", "8", "--link", "200G"},
      {"plan", "--nodes", "16", "--model", "glm-5.3", "--prices", f},
      {"doctor", "--nccl-tests", f},
      {"check", f},
      {"capacity", "--sweep", f},
      {"penalty", "--model", "glm-5.3", "--tp", "8", "--from", "200G", "--to", "100G", "--baseline",
       f},
      {"traffic", "--samples", f},
  };
  for (const auto& args : runs) {
    CAPTURE(args);
    const auto r = run_tpnet(args);
    INFO(r.err);
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.err, ContainsSubstring(f));
    CHECK_THAT(r.err, ContainsSubstring("a FIFO"));
  }
}

TEST_CASE("read_text_file refuses devices and sockets and caps by kind", "[hardening][hostile]") {
  CHECK_THROWS_WITH(tpnet::read_text_file("/dev/zero"),
                    ContainsSubstring("/dev/zero: is not a regular file (a device"));
  CHECK_THROWS_WITH(tpnet::read_text_file("/dev/null"), ContainsSubstring("a device"));

  const fs::path dir = fresh_dir("hostile_socket");
  const fs::path socket_path = dir / "s.sock";
  const int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
  REQUIRE(fd >= 0);
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  std::strncpy(address.sun_path, socket_path.c_str(), sizeof address.sun_path - 1);
  REQUIRE(::bind(fd, reinterpret_cast<const sockaddr*>(&address), sizeof address) == 0);
  CHECK_THROWS_WITH(tpnet::read_text_file(socket_path.string()), ContainsSubstring("a socket"));
  ::close(fd);

  const fs::path big = dir / "big.txt";
  std::ofstream(big) << std::string(4096, 'x');
  CHECK(tpnet::read_text_file(big.string(), 4096).size() == 4096);
  CHECK_THROWS_WITH(tpnet::read_text_file(big.string(), 4095),
                    ContainsSubstring("is 4096 bytes, larger than the input limit"));
}

TEST_CASE("a capacity folder whose *.json loops or is no file is refused, exit 2",
          "[hardening][hostile]") {
  // A symlink loop once escaped as exit 3.
  const fs::path dir = fresh_dir("hostile_capacity_loop");
  fs::create_symlink("b.json", dir / "a.json");
  fs::create_symlink("a.json", dir / "b.json");
  expect_bad_input(run_tpnet({"capacity", "--sweep", dir.string()}), "a.json");
  const fs::path fifo_dir = fresh_dir("hostile_capacity_fifo");
  make_fifo(fifo_dir / "run.json");
  expect_bad_input(run_tpnet({"capacity", "--sweep", fifo_dir.string()}), "a FIFO");
}

TEST_CASE("a saved tree reads only its own regular files, each under a cap",
          "[hardening][hostile][preflight]") {
  // A hostname linked out of the tree once printed /etc/passwd's contents.
  const auto leak = variant("leak", [](const fs::path& t) {
    fs::remove(t / "hostname");
    fs::create_symlink("/etc/passwd", t / "hostname");
  });
  const auto r = run_tpnet({"preflight", "--root", leak.string()});
  expect_bad_input(r, "outside the saved tree");
  CHECK_THAT(r.err, !ContainsSubstring("root:"));
  // A link inside the tree is the tree's own file and reads as usual.
  const auto inside = variant("inside", [](const fs::path& t) {
    write(t / "names" / "host", "spark-9");
    fs::remove(t / "hostname");
    fs::create_symlink("names/host", t / "hostname");
  });
  CHECK(tpnet::read_node_facts(tpnet::NodeFactsSource{inside.string(), true}).host == "spark-9");

  // An attribute linked to /dev/zero once took gigabytes.
  const auto zero = variant("zero", [](const fs::path& t) {
    const fs::path mtu = t / "sys/class/net/enp1s0f0np0/mtu";
    fs::remove(mtu);
    fs::create_symlink("/dev/zero", mtu);
  });
  CHECK_THROWS_WITH(tpnet::read_node_facts(tpnet::NodeFactsSource{zero.string(), true}),
                    ContainsSubstring("outside the saved tree"));
  const auto huge = variant("huge", [](const fs::path& t) {
    std::ofstream(t / "ibv_devinfo.txt") << std::string((2U << 20U), ' ');
  });
  CHECK_THROWS_WITH(tpnet::read_node_facts(tpnet::NodeFactsSource{huge.string(), true}),
                    ContainsSubstring("larger than the input limit of 1 MiB"));
  const auto fifo = variant("fifo", [](const fs::path& t) { make_fifo(t / "limits"); });
  expect_bad_input(run_tpnet({"preflight", "--root", fifo.string()}), "limits: is not a regular");
  // An env file that cannot be read is not "no env file".
  const auto env_dir = variant("env_dir", [](const fs::path& t) {
    fs::remove(t / "env");
    fs::create_directory(t / "env");
  });
  expect_bad_input(run_tpnet({"preflight", "--root", env_dir.string()}), "env: is a directory");
}

TEST_CASE("a saved tree's numbers are the kernel's: finite, in range, never wrapped",
          "[hardening][hostile][preflight]") {
  const auto refused = [](const std::string& name, const fs::path& file, const std::string& text,
                          const std::string& needle) {
    const auto tree = variant(name, [&](const fs::path& t) { write(t / file, text); });
    CAPTURE(name, text);
    CHECK_THROWS_WITH(tpnet::read_node_facts(tpnet::NodeFactsSource{tree.string(), true}),
                      ContainsSubstring(needle));
  };
  const fs::path pci = "sys/bus/pci/devices/0000:01:00.0";
  const fs::path net = "sys/class/net/enp1s0f0np0";
  refused("pcie_nan", pci / "current_link_speed", "nan GT/s PCIe", "is not a PCIe link speed");
  refused("pcie_inf", pci / "max_link_speed", "inf GT/s", "is not a PCIe link speed");
  refused("pcie_exp", pci / "current_link_speed", "3.2e1 GT/s PCIe", "is not a PCIe link speed");
  refused("width", pci / "current_link_width", "-4", "is not a PCIe link width");
  // INT_MIN once wrapped to a RoCE MTU of 4096, INT_MAX held.
  refused("mtu_min", net / "mtu", "-2147483648", "is not an interface MTU (0 to 262144 B)");
  refused("mtu_max", net / "mtu", "2147483647", "is not an interface MTU");
  refused("mtu_hex", net / "mtu", "0x2328", "is not an interface MTU");
  refused("rate_nan", "sys/class/infiniband/rocep1s0f0/ports/1/rate", "nan Gb/sec (2X NDR)",
          "is not a port rate");
  refused("active_mtu", "ibv_devinfo.txt",
          "hca_id: rocep1s0f0\n\tport:\t1\n\t\tactive_mtu:\t3000 (9)", "is not an InfiniBand MTU");
  // A link that has not trained is what the kernel writes, and judged, not refused.
  const auto down = variant("pcie_down", [&](const fs::path& t) {
    write(t / pci / "current_link_speed", "Unknown");
    write(t / pci / "current_link_width", "0");
  });
  CHECK(check_of(judge(down), "pcie_link").status != tpnet::CheckStatus::holds);
}

TEST_CASE("NCCL_IB_HCA and NCCL_SOCKET_IFNAME are judged as NCCL reads them",
          "[hardening][hostile][preflight]") {
  const auto env = [](const std::string& name, const std::string& text) {
    return judge(variant(name, [&](const fs::path& t) {
      write(t / "env", text + "\nNCCL_SOCKET_IFNAME=enP7s7\nNCCL_IB_GID_INDEX=3");
    }));
  };
  // An empty list matches every device (NCCL's matchIfList): `^` then excludes all.
  const auto none = env("hca_caret", "NCCL_IB_HCA=^");
  CHECK(check_of(none, "nccl_ib_hca").status == tpnet::CheckStatus::fails);
  CHECK_THAT(check_of(none, "nccl_ib_hca").finding, ContainsSubstring("uses no RDMA device"));
  const auto every = env("hca_empty", "NCCL_IB_HCA=");
  CHECK(check_of(every, "nccl_ib_hca").status == tpnet::CheckStatus::holds);
  CHECK_THAT(check_of(every, "nccl_ib_hca").finding, ContainsSubstring("every device"));
  CHECK(tpnet::nccl_ib_hca_selects("", "rocep1s0f0", 1));
  CHECK_FALSE(tpnet::nccl_ib_hca_selects("^", "rocep1s0f0", 1));
  CHECK_FALSE(tpnet::nccl_ib_hca_selects("^=", "rocep1s0f0", 1));
  // NCCL reads NCCL_SOCKET_IFNAME only when it is longer than one character.
  const auto socket = judge(variant("socket_caret", [](const fs::path& t) {
    write(t / "env", "NCCL_IB_HCA=rocep1s0f0,roceP2p1s0f0\nNCCL_SOCKET_IFNAME=^");
  }));
  CHECK(check_of(socket, "nccl_socket_ifname").status == tpnet::CheckStatus::holds);
  CHECK_THAT(check_of(socket, "nccl_socket_ifname").finding,
             ContainsSubstring("NCCL picks an interface"));
}

TEST_CASE("an RDMA device listed without ports fails rdma_devices", "[hardening][preflight]") {
  const auto tree = variant("portless", [](const fs::path& t) {
    fs::remove_all(t / "sys/class/infiniband/roceP2p1s0f1/ports");
  });
  const auto r = judge(tree);
  CHECK(check_of(r, "rdma_devices").status == tpnet::CheckStatus::fails);
  CHECK_THAT(check_of(r, "rdma_devices").finding, ContainsSubstring("roceP2p1s0f1 listed without"));
}
