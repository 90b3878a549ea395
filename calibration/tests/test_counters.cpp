// tpnet-calibrate counters on a fake /sys/class/infiniband tree written by
// the test: sampling while a helper thread moves the counters, the command's
// exit code, no shell between us and the command, a device that vanishes,
// signals, and bad input.

#include <fcntl.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <yaml-cpp/yaml.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "catch.hpp"
#include "cli_checks.hpp"
#include "run_process.hpp"

extern char** environ;

using tpnet::test::CliResult;
using tpnet::test::expect_bad_input;
using tpnet::test::fresh_dir;
using tpnet::test::run_calibrate;
using tpnet::test::run_program;
using tpnet::test::slurp;
namespace fs = std::filesystem;

namespace {

const std::vector<std::string> kDevices{"rocep1s0f0", "roceP2p1s0f0"};

/// Writes a counter in place, as the kernel's attribute reads: digits and a
/// newline. Values only grow, so an in-place write never leaves old digits.
void write_counter(const fs::path& path, std::uint64_t value) {
  const std::string text = std::to_string(value) + "\n";
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
  REQUIRE(fd >= 0);
  CHECK(::pwrite(fd, text.data(), text.size(), 0) == static_cast<ssize_t>(text.size()));
  ::close(fd);
}

/// `root`/<device>/ports/1/counters/port_{xmit,rcv}_data for both devices.
fs::path fake_sysfs(const std::string& name) {
  fs::path root = fresh_dir(name) / "infiniband";
  for (const auto& device : kDevices) {
    const fs::path counters = root / device / "ports" / "1" / "counters";
    fs::create_directories(counters);
    write_counter(counters / "port_xmit_data", 1000);
    write_counter(counters / "port_rcv_data", 2000);
  }
  return root;
}

fs::path counter_file(const fs::path& root, const std::string& device, const char* name) {
  return root / device / "ports" / "1" / "counters" / name;
}

std::size_t data_rows(const std::string& csv) {
  std::size_t rows = 0;
  std::size_t start = 0;
  while (start < csv.size()) {
    const std::size_t end = csv.find('\n', start);
    const std::string line = csv.substr(start, end - start);
    if (!line.empty() && line[0] >= '0' && line[0] <= '9') ++rows;
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return rows;
}

/// Starts tpnet-calibrate without a shell, so the test can signal it.
pid_t spawn_calibrate(const std::vector<std::string>& args, const fs::path& err) {
  std::vector<std::string> argv{tpnet::test::calibrate_program()};
  argv.insert(argv.end(), args.begin(), args.end());
  std::vector<char*> pointers;
  pointers.reserve(argv.size() + 1);
  for (auto& arg : argv) pointers.push_back(arg.data());
  pointers.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, err.c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0644);
  pid_t pid = -1;
  const int rc = posix_spawn(&pid, pointers[0], &actions, nullptr, pointers.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  REQUIRE(rc == 0);
  return pid;
}

/// The temporary files of `out` in its folder: `<name>.<pid>-<n>-<random>.partial`.
std::vector<fs::path> partial_files(const fs::path& out) {
  std::vector<fs::path> found;
  const std::string prefix = out.filename().string() + ".";
  for (const auto& entry : fs::directory_iterator(out.parent_path())) {
    const std::string name = entry.path().filename().string();
    if (name.rfind(prefix, 0) == 0 && name.size() > prefix.size() + 8 &&
        name.compare(name.size() - 8, 8, ".partial") == 0) {
      found.push_back(entry.path());
    }
  }
  return found;
}

/// Waits until the sampler has created its temporary file for `out`: its
/// devices are open and its signal handlers installed.
void wait_for_start(const fs::path& out, std::size_t runs = 1) {
  for (int i = 0; i < 1000 && partial_files(out).size() < runs; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  REQUIRE(partial_files(out).size() == runs);
  std::this_thread::sleep_for(std::chrono::milliseconds(100));  // a few reads
}

int wait_exit_code(pid_t pid) {
  int status = 0;
  REQUIRE(::waitpid(pid, &status, 0) == pid);
  REQUIRE(WIFEXITED(status));
  return WEXITSTATUS(status);
}

}  // namespace

TEST_CASE("counters samples two devices while they move and tpnet traffic reads the CSV",
          "[calibrate][counters]") {
  const fs::path root = fake_sysfs("moving");
  const fs::path out = root.parent_path() / "counters.csv";
  std::atomic<bool> done{false};
  CliResult sampler;
  std::thread run([&] {
    sampler = run_calibrate(
        {"counters", "--sysfs-root", root.string(), "--duration", "200ms", "--out", out.string()});
    done = true;
  });
  // 1 MB per device per step: sent on the first device, received on the second.
  std::uint64_t words = 1000;
  while (!done) {
    words += 250000;
    write_counter(counter_file(root, kDevices[0], "port_xmit_data"), words);
    write_counter(counter_file(root, kDevices[1], "port_rcv_data"), words + 1000);
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  run.join();
  INFO(sampler.err);
  REQUIRE(sampler.exit_code == 0);
  CHECK(sampler.out.empty());
  CHECK_THAT(sampler.err, ContainsSubstring("reads of 2 ports"));
  CHECK_THAT(sampler.err, ContainsSubstring("missed deadline"));
  CHECK(partial_files(out).empty());
  const std::string csv = slurp(out);
  CHECK_THAT(csv, ContainsSubstring("time_s,device,port,port_xmit_data,port_rcv_data\n"));
  CHECK_THAT(csv, ContainsSubstring(",rocep1s0f0,1,"));
  CHECK_THAT(csv, ContainsSubstring(",roceP2p1s0f0,1,"));
  CHECK(data_rows(csv) >= 4);

  const CliResult traffic = run_program({tpnet::test::tpnet_program(), "traffic", "--samples",
                                         out.string(), "--windows", "10ms", "--format", "json"});
  INFO(traffic.err);
  REQUIRE(traffic.exit_code == 0);
  const YAML::Node j = YAML::Load(traffic.out);
  CHECK(j["devices"].size() == 2);
  CHECK(j["reads"].as<int>() >= 4);
  CHECK(j["xmit_bytes"].as<double>() > 0.0);
}

TEST_CASE("counters passes the command's exit code through", "[calibrate][counters]") {
  const fs::path root = fake_sysfs("exit3");
  const fs::path out = root.parent_path() / "c.csv";
  const CliResult r = run_calibrate({"counters", "--sysfs-root", root.string(), "--out",
                                     out.string(), "--", "sh", "-c", "exit 3"});
  INFO(r.err);
  CHECK(r.exit_code == 3);
  CHECK(data_rows(slurp(out)) >= 2);  // at least the last read, one row per device
  const CliResult ok = run_calibrate(
      {"counters", "--sysfs-root", root.string(), "--out", out.string(), "--", "true"});
  CHECK(ok.exit_code == 0);
}

TEST_CASE("counters runs the command without a shell", "[calibrate][counters]") {
  const fs::path root = fake_sysfs("noshell");
  const fs::path dir = root.parent_path();
  const fs::path marker = dir / "X";
  // Through a shell, $(touch X) would create X; execvp passes it to `true` as text.
  const std::string argument = "$(touch " + marker.string() + ")";
  const CliResult r =
      run_calibrate({"counters", "--sysfs-root", root.string(), "--out", (dir / "c.csv").string(),
                     "--", "true", argument, ";", "touch", marker.string()});
  INFO(r.err);
  CHECK(r.exit_code == 0);
  CHECK_FALSE(fs::exists(marker));
}

TEST_CASE("counters stops cleanly with exit 4 when a device vanishes mid-run",
          "[calibrate][counters]") {
  const fs::path root = fake_sysfs("vanish");
  const fs::path out = root.parent_path() / "c.csv";
  CliResult sampler;
  std::thread run([&] {
    sampler = run_calibrate(
        {"counters", "--sysfs-root", root.string(), "--duration", "20s", "--out", out.string()});
  });
  wait_for_start(out);
  fs::remove_all(root / kDevices[1]);
  run.join();
  INFO(sampler.err);
  CHECK(sampler.exit_code == 4);
  CHECK_THAT(sampler.err, ContainsSubstring("roceP2p1s0f0"));
  CHECK_THAT(sampler.err, ContainsSubstring("vanished"));
  CHECK_THAT(sampler.err, ContainsSubstring("keeps them"));
  // What was read before stays, under the name asked for.
  CHECK(partial_files(out).empty());
  CHECK(data_rows(slurp(out)) >= 2);
}

TEST_CASE("counters forwards SIGTERM to the command and returns its status",
          "[calibrate][counters]") {
  const fs::path root = fake_sysfs("sigterm");
  const fs::path out = root.parent_path() / "c.csv";
  const fs::path err = root.parent_path() / "err.txt";
  const pid_t pid = spawn_calibrate(
      {"counters", "--sysfs-root", root.string(), "--out", out.string(), "--", "sleep", "30"}, err);
  wait_for_start(out);
  REQUIRE(::kill(pid, SIGTERM) == 0);
  // sleep dies of the forwarded SIGTERM: 128 + 15, as a shell reports it.
  CHECK(wait_exit_code(pid) == 128 + SIGTERM);
  CHECK(data_rows(slurp(out)) >= 2);
}

TEST_CASE("counters without a command stops on SIGINT and keeps the file",
          "[calibrate][counters]") {
  const fs::path root = fake_sysfs("sigint");
  const fs::path out = root.parent_path() / "c.csv";
  const fs::path err = root.parent_path() / "err.txt";
  const pid_t pid =
      spawn_calibrate({"counters", "--sysfs-root", root.string(), "--out", out.string()}, err);
  wait_for_start(out);
  REQUIRE(::kill(pid, SIGINT) == 0);
  CHECK(wait_exit_code(pid) == 0);
  CHECK(partial_files(out).empty());
  CHECK(data_rows(slurp(out)) >= 2);
}

TEST_CASE("counters bad input exits 2 naming the directory, device or flag",
          "[calibrate][counters]") {
  const fs::path root = fake_sysfs("bad");
  const fs::path missing = root.parent_path() / "no-such-dir";
  expect_bad_input(
      run_calibrate({"counters", "--sysfs-root", missing.string(), "--duration", "1s"}),
      missing.string());
  const fs::path empty = fresh_dir("empty-sysfs");
  expect_bad_input(run_calibrate({"counters", "--sysfs-root", empty.string(), "--duration", "1s"}),
                   "no RDMA device with port counters in " + empty.string());
  expect_bad_input(run_calibrate({"counters", "--sysfs-root", root.string(), "--device", "mlx5_9",
                                  "--duration", "1s"}),
                   "'mlx5_9' is not a device");
  expect_bad_input(run_calibrate({"counters", "--sysfs-root", root.string(), "--interval", "0s",
                                  "--duration", "1s"}),
                   "--interval");
  expect_bad_input(run_calibrate({"counters", "--sysfs-root", root.string(), "--", "true"}),
                   "--out");
  expect_bad_input(
      run_calibrate({"counters", "--sysfs-root", root.string(), "--out",
                     (root.parent_path() / "c.csv").string(), "--duration", "1s", "--", "true"}),
      "--duration");
  const fs::path out = root.parent_path() / "never.csv";
  expect_bad_input(run_calibrate({"counters", "--sysfs-root", root.string(), "--out", out.string(),
                                  "--", "no-such-command-tpnet"}),
                   "cannot run 'no-such-command-tpnet'");
  CHECK(partial_files(out).empty());
}

// ---- output (docs/hardening.md, "Output files and standard output") ----------

TEST_CASE("counters refuses a --out that is not a file before the command runs",
          "[calibrate][counters][outputs]") {
  const fs::path root = fake_sysfs("out-dir");
  const fs::path dir = root.parent_path();
  const fs::path marker = dir / "ran";
  expect_bad_input(run_calibrate({"counters", "--sysfs-root", root.string(), "--out", dir.string(),
                                  "--", "touch", marker.string()}),
                   "--out " + dir.string() + ": is a directory, not a regular file");
  CHECK_FALSE(fs::exists(marker));
  const fs::path fifo = dir / "fifo";
  REQUIRE(::mkfifo(fifo.c_str(), 0644) == 0);
  expect_bad_input(run_calibrate({"counters", "--sysfs-root", root.string(), "--out", fifo.string(),
                                  "--", "touch", marker.string()}),
                   "is a FIFO (named pipe), not a regular file");
  CHECK_FALSE(fs::exists(marker));
  CHECK(fs::is_fifo(fs::symlink_status(fifo)));
}

TEST_CASE("counters: a failed command's exit code wins over a CSV that could not be written",
          "[calibrate][counters][outputs]") {
  const fs::path root = fake_sysfs("efbig");
  const fs::path out = root.parent_path() / "c.csv";
  {
    std::ofstream old(out);
    old << "old\n";
  }
  // Writes past 512 bytes fail with EFBIG, as on a full disk.
  const tpnet::test::ShellSetup small_files{"trap '' XFSZ; ulimit -f 1", ""};
  const CliResult failed = run_program(tpnet::test::calibrate_program(),
                                       {"counters", "--sysfs-root", root.string(), "--out",
                                        out.string(), "--", "sh", "-c", "sleep 0.3; exit 3"},
                                       small_files);
  INFO(failed.err);
  CHECK(failed.exit_code == 3);
  CHECK_THAT(failed.err, ContainsSubstring("wrote nothing"));
  CHECK_THAT(failed.err, ContainsSubstring("tpnet-calibrate: error: --out " + out.string() +
                                           ": could not write it: File too large; the old file "
                                           "is unchanged"));
  CHECK(slurp(out) == "old\n");
  CHECK(partial_files(out).empty());
  // The command succeeded: the lost CSV is exit 2.
  const CliResult ok = run_program(tpnet::test::calibrate_program(),
                                   {"counters", "--sysfs-root", root.string(), "--out",
                                    out.string(), "--", "sh", "-c", "sleep 0.3"},
                                   small_files);
  INFO(ok.err);
  CHECK(ok.exit_code == 2);
  CHECK_THAT(ok.err, ContainsSubstring("File too large"));
  CHECK(slurp(out) == "old\n");
}

TEST_CASE("two counters runs writing one --out at once both finish",
          "[calibrate][counters][outputs]") {
  // Two nodes sampling into one NFS home: each has its own temporary file.
  const fs::path root = fake_sysfs("two-runs");
  const fs::path out = root.parent_path() / "c.csv";
  const fs::path err = root.parent_path() / "err.txt";
  const pid_t first = spawn_calibrate(
      {"counters", "--sysfs-root", root.string(), "--out", out.string(), "--", "sleep", "1"}, err);
  wait_for_start(out);
  const CliResult second = run_calibrate(
      {"counters", "--sysfs-root", root.string(), "--out", out.string(), "--", "true"});
  INFO(second.err);
  CHECK(second.exit_code == 0);
  CHECK(wait_exit_code(first) == 0);
  INFO(slurp(err));
  CHECK(partial_files(out).empty());
  const std::string csv = slurp(out);
  CHECK_THAT(csv, ContainsSubstring("time_s,device,port,port_xmit_data,port_rcv_data\n"));
  CHECK(data_rows(csv) >= 4);  // the first run's, which lasted longer, renamed last
}

TEST_CASE("counters with -- and no command after it is a usage error",
          "[calibrate][counters][outputs]") {
  const fs::path root = fake_sysfs("empty-command");
  const fs::path out = root.parent_path() / "c.csv";
  // timeout: the old sampler took an empty -- as "sample until Ctrl-C".
  expect_bad_input(
      run_program({"timeout", "-s", "INT", "5", tpnet::test::calibrate_program(), "counters",
                   "--sysfs-root", root.string(), "--out", out.string(), "--"}),
      "--: needs a command after it");
  CHECK_FALSE(fs::exists(out));
  CHECK(partial_files(out).empty());
}

TEST_CASE("tpnet-calibrate exits 2 when its standard output cannot be written",
          "[calibrate][counters][outputs]") {
  const fs::path root = fake_sysfs("full-stdout");
  const CliResult csv = run_program(
      tpnet::test::calibrate_program(),
      {"counters", "--sysfs-root", root.string(), "--duration", "50ms"}, {"", ">/dev/full"});
  INFO(csv.err);
  CHECK(csv.exit_code == 2);
  CHECK_THAT(csv.err, ContainsSubstring("tpnet-calibrate: error: could not write to standard "
                                        "output: No space left on device\n"));
  const CliResult help =
      run_program(tpnet::test::calibrate_program(), {"--help"}, {"", ">/dev/full"});
  CHECK(help.exit_code == 2);
  CHECK(help.err ==
        "tpnet-calibrate: error: could not write to standard output: No space left on device\n");
  const CliResult closed =
      run_program(tpnet::test::calibrate_program(), {"counters", "--help"}, {"", ">&-"});
  CHECK(closed.exit_code == 2);
  CHECK_THAT(closed.err, ContainsSubstring("Bad file descriptor"));
}
