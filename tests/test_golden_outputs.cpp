// Golden outputs: compare and penalty in every format, byte for byte, so a
// change of layout, key, rounding or unit cannot slip in unseen. After an
// intended change, regenerate with
//   TPNET_UPDATE_GOLDEN=1 build/tests/tpnet_tests '[golden-output]'
// and review the diff of tests/golden_outputs/ before committing it.

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "catch.hpp"
#include "cli_runner.hpp"

using tpnet::test::CliResult;
using tpnet::test::run_tpnet;
using tpnet::test::slurp;

namespace {

const std::string kSource = TPNET_SOURCE_DIR;

/// Paths under the source tree print as given; the runs below name them
/// relative to it by changing directory first, so the goldens do not carry
/// the machine's checkout path.
CliResult run_in_source(const std::vector<std::string>& args) {
  const auto previous = std::filesystem::current_path();
  std::filesystem::current_path(kSource);
  CliResult r = run_tpnet(args);
  std::filesystem::current_path(previous);
  return r;
}

void check_golden(const std::string& name, const std::vector<std::string>& args,
                  int exit_code = 0) {
  const std::filesystem::path file = kSource + "/tests/golden_outputs/" + name;
  const CliResult r = run_in_source(args);
  INFO(name << "\n" << r.err);
  REQUIRE(r.exit_code == exit_code);
  const std::string actual = r.out + (r.err.empty() ? "" : "--- stderr\n" + r.err);
  if (std::getenv("TPNET_UPDATE_GOLDEN") != nullptr) {
    std::filesystem::create_directories(file.parent_path());
    std::ofstream(file, std::ios::binary) << actual;
    WARN("rewrote " << file.string());
    return;
  }
  REQUIRE(std::filesystem::exists(file));
  CHECK(actual == slurp(file));
}

const std::vector<std::string> kFormats{"table", "csv", "markdown", "json"};

}  // namespace

TEST_CASE("golden output: penalty for the GLM-5.3 study with its baseline and budgets",
          "[golden-output]") {
  for (const auto& format : kFormats) {
    check_golden("penalty-glm53-study." + format,
                 {"penalty", "--model", "glm-5.3", "--tp", "8", "--from", "200G", "--to", "100G",
                  "--baseline", "examples/data/glm53_tp8_200g.csv", "--max-extra-ttft", "5s",
                  "--max-ttft-increase", "25%", "--format", format},
                 1);
  }
}

TEST_CASE("golden output: penalty with a calibration's point estimates", "[golden-output]") {
  for (const auto& format : kFormats) {
    check_golden(
        "penalty-glm53-calibration." + format,
        {"penalty", "--model", "glm-5.3", "--tp", "8", "--prompt", "1k,8k,4x16k", "--calibration",
         "examples/calibration/calibration_glm53_tp8_200g_synthetic.yaml", "--format", format});
  }
}

TEST_CASE("golden output: compare TP4-TP16 projected from the TP8 baseline", "[golden-output]") {
  for (const auto& format : kFormats) {
    check_golden("compare-glm53-projection." + format,
                 {"compare", "--model", "glm-5.3", "--tp", "4,8,16", "--to", "100G,emulated-100G",
                  "--prompt", "8k,4x16k", "--baseline-tp", "8", "--baseline-ttft", "6.36s",
                  "--baseline-prompt", "8k", "--max-ttft-increase", "25%", "--format", format},
                 1);
  }
}

TEST_CASE("golden output: compare over PP and EP layouts of DeepSeek-V3 with tuned NCCL",
          "[golden-output]") {
  for (const auto& format : kFormats) {
    check_golden("compare-deepseek-v3-layouts." + format,
                 {"compare", "--model", "deepseek-v3", "--tp", "8", "--pp", "1,2", "--ep", "1,16",
                  "--prompt", "8k", "--nccl-tuned", "--format", format});
  }
}

TEST_CASE("golden output: predict the GLM-5.3 study's tests at 200G and emulated 100G",
          "[golden-output]") {
  for (const auto& format : kFormats) {
    check_golden("predict-glm53-study." + format,
                 {"predict", "--model", "glm-5.3", "--tp", "8", "--links", "200G,emulated-100G",
                  "--spec-tokens", "4", "--accepted-tokens", "2.5",
                  "--long-prefill-token-threshold", "2048", "--max-num-seqs", "8", "--baseline",
                  "examples/data/glm53_tp8_200g.csv", "--format", format});
  }
}

TEST_CASE("golden output: link prices one all-reduce on the measured profile", "[golden-output]") {
  for (const auto& format : kFormats) {
    check_golden("link-allreduce-10kib-tp2." + format,
                 {"link", "--allreduce-size", "10KiB", "--tp", "2", "--format", format});
  }
}
