// The hand-made bad inputs of issue 12 through the binary, as a careless user
// or a script would give them: each case's exit code, its one-line message,
// and that no file was harmed (docs/hardening.md, "Bad input by hand").
// The files are in tests/bad_inputs/ (SYNTHETIC); paths the repository
// cannot hold are made in a temporary folder. The output-file cases are in
// test_cli_outputs.cpp.

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "catch.hpp"
#include "cli_checks.hpp"
#include "cli_runner.hpp"

namespace {
/// Text output with its wrapped lines joined again (a line break and the
/// hanging indent become one space), for checks of a phrase.
[[maybe_unused]] std::string unwrapped(const std::string& text) {
  std::string out;
  for (std::size_t at = 0; at < text.size(); ++at) {
    if (text[at] == '\n' && at + 1 < text.size() && text[at + 1] == ' ') {
      while (at + 1 < text.size() && text[at + 1] == ' ') ++at;
      out += ' ';
    } else {
      out += text[at];
    }
  }
  return out;
}
}  // namespace

using tpnet::test::CliResult;
using tpnet::test::expect_bad_input;
using tpnet::test::fresh_dir;
using tpnet::test::run_program;
using tpnet::test::run_tpnet;
using tpnet::test::ShellSetup;
using tpnet::test::slurp;

namespace {

std::string bad(const std::string& name) {
  return std::string(TPNET_SOURCE_DIR) + "/tests/bad_inputs/" + name;
}

std::string example(const std::string& name) {
  return std::string(TPNET_SOURCE_DIR) + "/examples/" + name;
}

/// The bad-input contract, from tpnet's error path (not a crash's message).
void require_refusal(const CliResult& r, const std::string& says) {
  expect_bad_input(r, says);
  CHECK_THAT(r.err, ContainsSubstring("tpnet: error: "));
}

const std::vector<std::string> kPenalty{"penalty", "--model", "glm-5.3", "--tp", "8",
                                        "--from",  "200G",    "--to",    "100G"};

std::vector<std::string> penalty_with(std::vector<std::string> more) {
  std::vector<std::string> args = kPenalty;
  args.insert(args.end(), more.begin(), more.end());
  return args;
}

}  // namespace

TEST_CASE("bad input 2: no input is read past its size limit", "[bad-input][cli]") {
  // /dev/zero never ends: once a 2 GB allocation and bad_alloc (exit 3); now
  // no device is read at all.
  require_refusal(run_tpnet({"models", "show", "/dev/zero"}),
                  "/dev/zero: is not a regular file (a device, which may never end)");
  require_refusal(run_program(TPNET_CLI_PATH, {"models", "show", example("my-model.yaml")},
                              ShellSetup{"export TPNET_MAX_INPUT_BYTES=100", ""}),
                  "larger than the input limit of 100 bytes (TPNET_MAX_INPUT_BYTES raises it)");
  require_refusal(
      run_program(TPNET_CLI_PATH, {"models"}, ShellSetup{"export TPNET_MAX_INPUT_BYTES=0x10", ""}),
      "TPNET_MAX_INPUT_BYTES: '0x10' is not an input limit");
  // A line of nothing but commas cannot take memory by the cell.
  const auto dir = fresh_dir("bad_inputs_limits");
  const auto commas = dir / "commas.csv";
  std::ofstream(commas) << std::string(5000000, ',') << "\n";
  require_refusal(run_tpnet(penalty_with({"--baseline", commas.string()})),
                  "has more than 1024 cells; a header may have at most 1024 columns");
  // A megabyte of --prompt values once took 2 GB: one run takes 10,000 scenarios.
  // (One comma list: a single shell argument may not pass 128 KiB.)
  std::string list = "1";
  for (int i = 1; i < 10001; ++i) list += ",1";
  std::vector<std::string> many = penalty_with({"--prompt", list});
  require_refusal(run_tpnet(many),
                  "--prompt: 10001 scenarios (prompts given, or a baseline's "
                  "rows) are more than one run takes; allowed at most 10000");
}

TEST_CASE("bad input 4: a key given twice is refused, naming both lines", "[bad-input][cli]") {
  // The second budgets: once silently dropped the strict first one: check passed.
  require_refusal(run_tpnet({"check", bad("plan-two-budgets.yaml")}),
                  "plan-two-budgets.yaml:9: budgets: key 'budgets' appears twice in one YAML "
                  "mapping, at lines 7 and 9");
  require_refusal(run_tpnet({"models", "show", bad("config-hidden-size-twice.json")}),
                  "key 'hidden_size' appears twice in one JSON object, at lines 5 and 11");
}

TEST_CASE("bad input 6: integer flags are decimal", "[bad-input][cli]") {
  const std::vector<std::string> bytes{"bytes", "--model", "glm-5.3", "--link", "200G", "--tp"};
  auto with = [&](const std::string& tp) {
    auto args = bytes;
    args.push_back(tp);
    return run_tpnet(args);
  };
  require_refusal(with("010"), "--tp: '010' has a leading zero (some tools read it as octal)");
  require_refusal(with("0x10"), "--tp: '0x10' is not a whole number");
  CHECK(with("8").exit_code == 0);
}

TEST_CASE("bad input 7: the baseline CSV has --prompt's token limits", "[bad-input][cli]") {
  require_refusal(run_tpnet(penalty_with({"--baseline", bad("baseline-huge-prompt.csv")})),
                  "column prompt_tokens_each: 1099511627776 tokens is out of range; allowed 1 "
                  "to 128M");
}

TEST_CASE("bad input 8: a column or a GEMM given twice is refused", "[bad-input][cli]") {
  require_refusal(run_tpnet(penalty_with({"--baseline", bad("baseline-duplicate-column.csv")})),
                  "names column 'ttft_s' twice (columns 4 and 5)");
  require_refusal(run_tpnet({"calibration", "--gemm", bad("gemm-row-twice.csv")}),
                  "column gemm: 'attn.qkv_a' is timed twice, at lines 10 and 11");
}

TEST_CASE("bad input 9: a counter jump faster than any link is no rate", "[bad-input][cli]") {
  const CliResult r =
      run_tpnet({"traffic", "--samples", bad("counters-impossible-jump.csv"), "--format", "json"});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.err, ContainsSubstring("a counter reset or glitch, not traffic"));
  // Once 1.8 x 10^19 bytes and a 10^17 Gb/s peak: now the plausible steps only.
  CHECK_THAT(r.out, ContainsSubstring("\"xmit_bytes\": 4004"));
}

TEST_CASE("bad input 10: a UTF-8 byte-order mark is read past", "[bad-input][cli]") {
  const CliResult r = run_tpnet({"calibration", "--gemm", bad("gemm-bom.csv")});
  INFO(r.err);
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.out, ContainsSubstring("tpnet_calibration: 1"));
}

TEST_CASE("bad input 12: messages name the real cause", "[bad-input][cli]") {
  const auto dir = fresh_dir("bad_inputs_messages");
  const auto loop_a = dir / "a";
  const auto loop_b = dir / "b";
  std::filesystem::create_symlink(loop_b, loop_a);
  std::filesystem::create_symlink(loop_a, loop_b);
  require_refusal(run_tpnet({"models", "show", loop_a.string()}),
                  "symlink loop: too many levels of symbolic links");
  require_refusal(run_tpnet(penalty_with({"--baseline", bad("baseline-cr-only.csv")})),
                  "CR-only (classic Mac) line endings");
  require_refusal(run_tpnet(penalty_with({"--prompt", "4x"})),
                  "'4x' is not a prompt mix: tokens are missing after the 'x'");
  require_refusal(
      run_tpnet({"capacity", "--sweep", example("data/qwen36_27b_sweep.csv"), "--fleet", "0"}),
      "--fleet: '0' is out of range; allowed 1 to 100000");
  require_refusal(run_tpnet(penalty_with({"--chunk", "0"})),
                  "--chunk: '0' must be a whole number of tokens from 1 to 128M");
  const auto broken = dir / "bench.json";
  std::ofstream(broken) << R"({"config": "TP2", )";
  require_refusal(run_tpnet({"capacity", "--sweep", "TP2=" + broken.string()}),
                  "is not valid JSON");
  // Control bytes and a newline in a value are escaped: still one line.
  const CliResult ctl = run_tpnet(penalty_with({"--prompt", std::string("a\x01"
                                                                        "b\nc")}));
  require_refusal(ctl, "'a\\x01b\\nc' is not a token count");
  CHECK(ctl.err.find('\x01') == std::string::npos);
}

TEST_CASE("bad input 13: no CSV data row is a comment, no table an exponent", "[bad-input][cli]") {
  // A row starting with # is data: a test named #1 is measured, not dropped.
  const CliResult named =
      run_tpnet(penalty_with({"--baseline", bad("baseline-hash-row.csv"), "--format", "json"}));
  INFO(named.err);
  CHECK(named.exit_code == 0);
  CHECK_THAT(named.out, ContainsSubstring("\"#1\""));
  require_refusal(run_tpnet({"traffic", "--samples", bad("counters-hash-row.csv")}),
                  "counters-hash-row.csv:4: column time_s: '#0.001' is not a number");
  require_refusal(run_tpnet({"capacity", "--sweep", example("data/qwen36_27b_sweep.csv"),
                             "--tps-slo", "1e-300"}),
                  "--tps-slo: '1e-300' tokens/s is out of range; allowed 0.001 to 1000000");
  const CliResult think =
      run_tpnet({"capacity", "--sweep", example("data/qwen36_27b_sweep.csv"), "--think", "1ns"});
  CHECK(think.exit_code == 0);
  CHECK_THAT(unwrapped(think.out), ContainsSubstring("1 ns think time"));
  CHECK(think.out.find("e-0") == std::string::npos);
  CHECK(run_tpnet({"switch", "--nodes", "8", "--speed", "1b/s"}).err.find("e-0") ==
        std::string::npos);
}

TEST_CASE("bad input 13: calibration.yaml's latency and curve must be physical",
          "[bad-input][cli]") {
  const std::string good = slurp(example("calibration/calibration_glm53_tp8_200g_synthetic.yaml"));
  REQUIRE_FALSE(good.empty());
  const auto dir = fresh_dir("bad_inputs_calibration");
  auto penalty_on = [&](const std::string& name, const std::string& text) {
    const auto path = dir / name;
    std::ofstream(path) << text;
    return run_tpnet(penalty_with({"--calibration", path.string()}));
  };
  REQUIRE(penalty_on("good.yaml", good).exit_code == 0);
  std::string negative = good;
  const auto alpha = negative.find("alpha_s: ");
  REQUIRE(alpha != std::string::npos);
  negative.insert(alpha + 9, "-");
  require_refusal(penalty_on("negative.yaml", negative), "alpha_s");
  // The largest size in a twentieth of the time of the one before it.
  std::string falling = good;
  const auto last = falling.rfind("time_s: ");
  REQUIRE(last != std::string::npos);
  const auto end = falling.find(',', last);
  falling.replace(last + 8, end - last - 8, "1e-06");
  require_refusal(penalty_on("falling.yaml", falling), "is under half of the");
}

TEST_CASE("predict: bad flags are refused in one line naming the flag", "[bad-input][cli]") {
  const std::vector<std::string> base{"predict",
                                      "--model",
                                      "glm-5.3",
                                      "--tp",
                                      "8",
                                      "--baseline",
                                      example("data/glm53_tp8_200g.csv"),
                                      "--prompt",
                                      "4x8k"};
  auto with = [&](std::vector<std::string> extra) {
    auto args = base;
    args.insert(args.end(), extra.begin(), extra.end());
    return run_tpnet(args);
  };
  require_refusal(with({"--decode-itl", "8:44ms"}), "--decode-itl: '8:44ms' is not TP=ITL");
  require_refusal(with({"--fabric", "dgx-spark-200g-swich"}),
                  "--fabric: unknown fabric profile 'dgx-spark-200g-swich'; did you mean");
  require_refusal(with({"--fabric", "dgx-spark-200g-switch"}),
                  "--fabric: profile dgx-spark-200g-switch describes 200G links");
  require_refusal(with({"--overlap", "1"}), "--overlap: 1 is out of range");
  require_refusal(with({"--overlap", "nan"}), "--overlap: 'nan' is not a decimal number");
  require_refusal(with({"--accepted-tokens", "9"}), "--accepted-tokens: 9 is out of range");
  require_refusal(with({"--requests", "/tmp/r.csv"}), "--requests: writes the request timings");
  require_refusal(with({"--gemm-tflops", "100"}), "--gemm-tflops: prefill compute comes from");
  require_refusal(with({"--decode-itl", "8=1ms"}), "--decode-itl: --decode-itl 8=1ms");
  // The same acceptance rule in penalty and compare.
  require_refusal(
      run_tpnet({"penalty", "--model", "glm-5.3", "--tp", "8", "--accepted-tokens", "9"}),
      "--accepted-tokens: 9 is out of range; a decode forward yields 1 to 1 tokens");
  require_refusal(run_tpnet({"compare", "--model", "glm-5.3", "--tp", "8", "--fabric", "auto",
                             "--accepted-tokens", "0.5"}),
                  "--accepted-tokens: 0.5 is out of range");
  // A run that would simulate too many steps is refused before it starts.
  require_refusal(run_tpnet({"penalty", "--model", "glm-5.3", "--tp", "8", "--chunk", "16",
                             "--prompt", "1000x128k"}),
                  "--prompt: would simulate about 8.19e+06 scheduler steps; at most 2000000");
  // 16-token steps: the baseline's own rows could not have been that fast.
  require_refusal(with({"--chunk", "16"}), "row P1: its predicted communication alone");
  const CliResult ok = with({"--format", "json"});
  CHECK(ok.exit_code == 0);
  CHECK(ok.out.find(": nan") == std::string::npos);
  CHECK(ok.out.find("inf,") == std::string::npos);
}
