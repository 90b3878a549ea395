// Output files and standard output (docs/hardening.md, "Output files and
// standard output"): --out and --svg replace the file a path leads to
// atomically, refuse what is not a regular file, keep the old file's mode and
// the old file itself when writing fails; a failed write to stdout is exit 2.
// AtomicFile and the other helpers, called directly: test_output_file.cpp.

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "catch.hpp"
#include "cli_checks.hpp"
#include "cli_runner.hpp"

using tpnet::test::CliResult;
using tpnet::test::expect_bad_input;
using tpnet::test::fresh_dir;
using tpnet::test::run_program;
using tpnet::test::run_tpnet;
using tpnet::test::ShellSetup;
using tpnet::test::slurp;
namespace fs = std::filesystem;
using tpnet::test::mode_of;
using tpnet::test::names_in;

namespace {

const std::string kSource = TPNET_SOURCE_DIR;
const std::string kSweep = kSource + "/examples/nccl-tests/all_reduce_perf_8ranks_synthetic.txt";
const std::string kSamples = kSource + "/examples/traffic/counters_synthetic.csv";

/// Writes past 512 bytes fail with EFBIG ("File too large"), as writes to a
/// full disk fail with ENOSPC; SIGXFSZ ignored so the write returns the error.
/// Works as root too, where an unwritable folder would not stop anything.
const ShellSetup kSmallFiles{"trap '' XFSZ; ulimit -f 1", ">/dev/null"};

void write_file(const fs::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
}

CliResult calibration_to(const fs::path& out) {
  return run_tpnet({"calibration", "--nccl-tests", kSweep, "--out", out.string()});
}

}  // namespace

// ---- item 1: --out replaces the file a path leads to -----------------------------

TEST_CASE("calibration --out through a symlink writes the file it leads to and keeps the link",
          "[cli][outputs]") {
  const fs::path dir = fresh_dir("symlink");
  write_file(dir / "real.yaml", "old\n");
  fs::create_symlink("real.yaml", dir / "link.yaml");
  const CliResult r = calibration_to(dir / "link.yaml");
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(fs::is_symlink(dir / "link.yaml"));
  CHECK(fs::read_symlink(dir / "link.yaml") == "real.yaml");
  CHECK_THAT(slurp(dir / "real.yaml"), ContainsSubstring("tpnet_calibration: 1"));
  CHECK(names_in(dir) == std::vector<std::string>{"link.yaml", "real.yaml"});

  // A link that leads nowhere yet: the file is created where it points.
  fs::create_symlink("new.yaml", dir / "dangling.yaml");
  REQUIRE(calibration_to(dir / "dangling.yaml").exit_code == 0);
  CHECK(fs::is_symlink(dir / "dangling.yaml"));
  CHECK_THAT(slurp(dir / "new.yaml"), ContainsSubstring("tpnet_calibration: 1"));
}

TEST_CASE("calibration --out keeps an existing file's mode", "[cli][outputs]") {
  const fs::path dir = fresh_dir("mode");
  const fs::path out = dir / "cal.yaml";
  write_file(out, "old\n");
  REQUIRE(::chmod(out.c_str(), 0640) == 0);
  const CliResult r = calibration_to(out);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(mode_of(out) == 0640U);
  CHECK_THAT(slurp(out), ContainsSubstring("tpnet_calibration: 1"));
}

TEST_CASE("calibration --out refuses a FIFO, a directory and a device, leaving them as they were",
          "[cli][outputs]") {
  const fs::path dir = fresh_dir("special");
  const fs::path fifo = dir / "fifo";
  REQUIRE(::mkfifo(fifo.c_str(), 0644) == 0);
  expect_bad_input(calibration_to(fifo), "--out " + fifo.string() +
                                             ": is a FIFO (named pipe), not a regular file; "
                                             "give a file path");
  CHECK(fs::is_fifo(fs::symlink_status(fifo)));

  const fs::path folder = dir / "folder";
  fs::create_directory(folder);
  expect_bad_input(calibration_to(folder),
                   "--out " + folder.string() + ": is a directory, not a regular file");
  CHECK(fs::is_directory(folder));
  CHECK(fs::is_empty(folder));

  // A link to /dev/null: as root, the old writer renamed a file over the link.
  // (`--out /dev/null` itself is not run here: a writer that regressed would
  // replace the machine's /dev/null, as the old one did when run as root.)
  const fs::path null_link = dir / "null";
  fs::create_symlink("/dev/null", null_link);
  expect_bad_input(calibration_to(null_link),
                   "--out " + null_link.string() + ": is a symlink to a character device");
  CHECK(fs::is_symlink(null_link));
  CHECK(fs::is_character_file(fs::status("/dev/null")));
  CHECK(names_in(dir) == std::vector<std::string>{"fifo", "folder", "null"});
}

TEST_CASE("calibration --out that cannot be written leaves the old file whole and no temporary",
          "[cli][outputs]") {
  const fs::path dir = fresh_dir("efbig");
  const fs::path out = dir / "cal.yaml";
  write_file(out, "old calibration\n");
  const CliResult r = run_program(
      TPNET_CLI_PATH, {"calibration", "--nccl-tests", kSweep, "--out", out.string()}, kSmallFiles);
  expect_bad_input(r, "--out " + out.string() +
                          ": could not write it: File too large; the old file is unchanged");
  CHECK(slurp(out) == "old calibration\n");
  CHECK(names_in(dir) == std::vector<std::string>{"cal.yaml"});
}

// ---- item 5: traffic --svg ------------------------------------------------------

TEST_CASE("traffic --svg that cannot be written leaves the old SVG intact", "[cli][outputs]") {
  const fs::path dir = fresh_dir("svg");
  const fs::path svg = dir / "plot.svg";
  const std::string old = "<svg xmlns=\"http://www.w3.org/2000/svg\"><!-- old plot --></svg>\n";
  write_file(svg, old);
  const CliResult r = run_program(
      TPNET_CLI_PATH, {"traffic", "--samples", kSamples, "--svg", svg.string()}, kSmallFiles);
  expect_bad_input(r, "--svg " + svg.string() + ": could not write it: File too large");
  CHECK(slurp(svg) == old);
  CHECK(names_in(dir) == std::vector<std::string>{"plot.svg"});

  // Written whole where it can be, through a link to it.
  fs::create_symlink("plot.svg", dir / "link.svg");
  const CliResult ok =
      run_tpnet({"traffic", "--samples", kSamples, "--svg", (dir / "link.svg").string()});
  INFO(ok.err);
  REQUIRE(ok.exit_code == 0);
  CHECK(fs::is_symlink(dir / "link.svg"));
  CHECK_THAT(slurp(svg), ContainsSubstring("</svg>"));
  expect_bad_input(run_tpnet({"traffic", "--samples", kSamples, "--svg", dir.string()}),
                   "--svg " + dir.string() + ": is a directory");
}

TEST_CASE("report --format markdown writes all or nothing: a failed text removes its new charts",
          "[cli][outputs]") {
  const fs::path dir = fresh_dir("report_full_disk");
  const std::vector<std::string> args{"report",   "--model", "glm-5.3",
                                      "--nodes",  "8",       "--format",
                                      "markdown", "--out",   (dir / "r.md").string()};
  // Files past 18 blocks of 512 B (9,216 B) fail as on a full disk: every
  // chart (up to ~7 KB) is written, then the ~10 KB text is not.
  const CliResult full = run_program(TPNET_CLI_PATH, args, {"trap '' XFSZ; ulimit -f 18", ""});
  INFO(full.err);
  CHECK(full.exit_code == 2);
  CHECK(names_in(dir).empty());
  // An identical chart an earlier report left there is not this run's to remove.
  REQUIRE(run_tpnet(args).exit_code == 0);
  const std::vector<std::string> written = names_in(dir);
  fs::remove(dir / "r.md");
  CHECK(run_program(TPNET_CLI_PATH, args, {"trap '' XFSZ; ulimit -f 18", ""}).exit_code == 2);
  std::vector<std::string> kept = names_in(dir);
  kept.push_back("r.md");
  std::sort(kept.begin(), kept.end());
  CHECK(kept == written);
}

// ---- item 3: standard output ------------------------------------------------------

TEST_CASE("a failed write to stdout exits 2 with the reason", "[cli][outputs]") {
  const CliResult full = run_program(
      TPNET_CLI_PATH, {"compare", "--model", "glm-5.3", "--format", "csv"}, {"", ">/dev/full"});
  INFO(full.err);
  CHECK(full.exit_code == 2);
  CHECK_THAT(full.err, ContainsSubstring("tpnet: error: could not write to standard output: No "
                                         "space left on device\n"));

  const CliResult closed = run_program(TPNET_CLI_PATH, {"models"}, {"", ">&-"});
  INFO(closed.err);
  CHECK(closed.exit_code == 2);
  CHECK(closed.err == "tpnet: error: could not write to standard output: Bad file descriptor\n");

  const CliResult help = run_program(TPNET_CLI_PATH, {"--help"}, {"", ">/dev/full"});
  CHECK(help.exit_code == 2);
  CHECK_THAT(help.err, ContainsSubstring("could not write to standard output"));
}

TEST_CASE("a CI gate's exit 1 becomes 2 when its report could not be written", "[cli][outputs]") {
  const std::vector<std::string> args{"penalty", "--model",          "glm-5.3", "--tp",
                                      "8",       "--from",           "200G",    "--to",
                                      "100G",    "--max-extra-ttft", "1ns"};
  REQUIRE(run_tpnet(args).exit_code == 1);
  const CliResult r = run_program(TPNET_CLI_PATH, args, {"", ">/dev/full"});
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, ContainsSubstring("could not write to standard output: No space left"));
}

TEST_CASE("a closed stdout never becomes an output file's descriptor", "[cli][outputs]") {
  const fs::path dir = fresh_dir("closed");
  const fs::path out = dir / "cal.yaml";
  const CliResult r = run_program(
      TPNET_CLI_PATH, {"calibration", "--nccl-tests", kSweep, "--out", out.string()}, {"", ">&-"});
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, ContainsSubstring("could not write to standard output: Bad file descriptor"));
  // The YAML was written whole; the summary meant for stdout is not in it.
  CHECK_THAT(slurp(out), ContainsSubstring("tpnet_calibration: 1"));
  CHECK_THAT(slurp(out), !ContainsSubstring("wrote"));
}

TEST_CASE("tpnet link --allreduce-size 10KiB --tp 2 answers with what Sparks measure") {
  const auto r = tpnet::test::run_tpnet(
      {"link", "--allreduce-size", "10KiB", "--tp", "2", "--format", "json"});
  REQUIRE(r.exit_code == 0);
  const YAML::Node doc = YAML::Load(r.out);
  CHECK(doc["estimate"]["fabric"].as<std::string>() == "dgx-spark-200g-switch");
  const double us = doc["estimate"]["time_s"].as<double>() * 1e6;
  // Measured: 35.15 us at 8 KiB, 31.67 us at 16 KiB; NCCL's tuner says about 17 us.
  CHECK(us > 31.67);
  CHECK(us < 35.15);
  CHECK(doc["time_s"].as<double>() * 1e6 < 20.0);
  const auto nominal = tpnet::test::run_tpnet({"link", "--allreduce-size", "10KiB", "--tp", "2",
                                               "--fabric", "nominal", "--format", "json"});
  REQUIRE(nominal.exit_code == 0);
  const YAML::Node n = YAML::Load(nominal.out);
  CHECK(n["estimate"]["source"].as<std::string>() == "nominal");
  CHECK(n["estimate"]["time_s"].as<double>() * 1e6 < 20.0);
}

TEST_CASE("predict --traffic and --requests read back through tpnet traffic with every byte") {
  const fs::path dir = fresh_dir("predict_traffic");
  const std::string source = TPNET_SOURCE_DIR;
  const auto p = tpnet::test::run_tpnet({"predict",
                                         "--model",
                                         "glm-5.3",
                                         "--tp",
                                         "8",
                                         "--links",
                                         "200G",
                                         "--prompt",
                                         "2x8k",
                                         "--output",
                                         "32",
                                         "--spec-tokens",
                                         "4",
                                         "--accepted-tokens",
                                         "2.5",
                                         "--long-prefill-token-threshold",
                                         "2048",
                                         "--baseline",
                                         source + "/examples/data/glm53_tp8_200g.csv",
                                         "--traffic",
                                         (dir / "tx.csv").string(),
                                         "--requests",
                                         (dir / "rq.csv").string(),
                                         "--format",
                                         "json"});
  REQUIRE(p.exit_code == 0);
  const YAML::Node predicted = YAML::Load(p.out);
  const YAML::Node run = predicted["scenarios"][0]["links"][0];
  const auto t =
      tpnet::test::run_tpnet({"traffic", "--samples", (dir / "tx.csv").string(), "--requests",
                              (dir / "rq.csv").string(), "--format", "json"});
  REQUIRE(t.exit_code == 0);
  const YAML::Node traffic = YAML::Load(t.out);
  // Two devices, each rounding down to 4-byte words.
  CHECK_THAT(traffic["xmit_bytes"].as<double>(),
             WithinAbs(run["sent_bytes_per_node"].as<double>(), 8.0));
  CHECK(traffic["requests"].as<int>() == 2);
  // Most bytes are prefill's: they fall between each request's start and first token.
  double prefill = 0.0;
  for (const auto& phase : traffic["phases"]) {
    if (phase["phase"].as<std::string>() == "prefill" &&
        phase["direction"].as<std::string>() == "transmit" &&
        phase["window_s"].as<double>() == 0.001) {
      prefill = phase["bytes"].as<double>();
    }
  }
  CHECK(prefill > 0.9 * traffic["xmit_bytes"].as<double>());
  fs::remove_all(dir);
}

TEST_CASE(
    "predict answers first: the profiles' sources only with --sources or --wide, JSON always") {
  const std::vector<std::string> args{"predict", "--model", "glm-5.3",  "--tp", "8",
                                      "--links", "200G",    "--output", "4"};
  const std::string source_line = "RDMA rate 196.00 Gb/s measured";
  const auto plain = tpnet::test::run_tpnet(args);
  REQUIRE(plain.exit_code == 0);
  CHECK(plain.out.find(source_line) == std::string::npos);
  CHECK(plain.out.find("note 200G: a 200G port") != std::string::npos);  // what it is stays
  for (const char* flag : {"--sources", "--wide"}) {
    std::vector<std::string> with = args;
    with.emplace_back(flag);
    const auto shown = tpnet::test::run_tpnet(with);
    REQUIRE(shown.exit_code == 0);
    CHECK(shown.out.find(source_line) != std::string::npos);
  }
  std::vector<std::string> json = args;
  json.insert(json.end(), {"--format", "json"});
  const auto j = tpnet::test::run_tpnet(json);
  REQUIRE(j.exit_code == 0);
  const YAML::Node doc = YAML::Load(j.out);
  CHECK(doc["fabrics"][0]["provenance"].size() >= 4);
}
