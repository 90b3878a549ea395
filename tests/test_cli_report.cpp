// tpnet report and the --svg charts end to end: the files they write, that
// their numbers are the commands' own, and the bad-input contract. The
// browser test (tests/browser) renders the same files in Chromium.

#include <yaml-cpp/yaml.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "catch.hpp"
#include "cli_checks.hpp"
#include "cli_runner.hpp"
#include "tpnet/base/quantity_text.hpp"

using tpnet::format_quantity;
using tpnet::test::CliResult;
using tpnet::test::count_of;
using tpnet::test::expect_bad_input;
using tpnet::test::json_of;
using tpnet::test::run_tpnet;

namespace fs = std::filesystem;

namespace {

const std::string kBaseline = std::string(TPNET_SOURCE_DIR) + "/examples/data/glm53_tp8_200g.csv";

fs::path fresh(const std::string& name) {
  fs::path dir = fs::temp_directory_path() / ("tpnet_report_" + name);
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

std::string slurp(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::vector<std::string> issue_command(const fs::path& out) {
  return {"report",    "--model",    "glm-5.3", "--nodes", "16",        "--speeds",
          "100G,200G", "--baseline", kBaseline, "--out",   out.string()};
}

/// The issue command's report as Markdown, written as `dir`/review.md: its text.
std::string markdown_review(const fs::path& dir) {
  std::vector<std::string> args = issue_command(dir / "review.md");
  args.insert(args.end(), {"--format", "markdown"});
  const CliResult r = run_tpnet(args);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  return slurp(dir / "review.md");
}

}  // namespace

TEST_CASE("tpnet report writes one self-contained HTML page with the verdict and its charts",
          "[cli][report]") {
  const fs::path dir = fresh("html");
  const CliResult r = run_tpnet(issue_command(dir / "report.html"));
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.out, ContainsSubstring("report written to"));
  const std::string html = slurp(dir / "report.html");
  CHECK(html.rfind("<!DOCTYPE html>", 0) == 0);
  CHECK_THAT(html, ContainsSubstring("<style>"));
  CHECK(html.find("<script") == std::string::npos);
  CHECK(html.find("src=") == std::string::npos);
  CHECK(html.find("<link") == std::string::npos);
  // Penalty, compare, the step timeline (the built-in glm-5.3 states every
  // weight's shape), switch and memory.
  CHECK(count_of(html, "<svg ") == 6);
  CHECK(html.find("No step timeline") == std::string::npos);
  for (const char* heading :
       {"TTFT cost of 100G instead of 200G", "Layouts compared", "Predicted steps",
        "Switch port plan", "Traps and checklist", "Memory fit", "Every layout ranked", "Inputs"}) {
    CHECK_THAT(html, ContainsSubstring(std::string("<h2>") + heading + "</h2>"));
  }
  CHECK_THAT(html, ContainsSubstring("Buy 1 x crs804 and run 2 x TP8 at 100G per node."));
  CHECK_THAT(html, ContainsSubstring("What does not change: decode."));
  // The slower link never makes decode faster on the profiles, and 100G
  // (unmeasured, the node's fixed cost at the nominal rate) stays below the
  // nominal bound.
  CHECK(html.find("the fabric profiles give -") == std::string::npos);
  CHECK_THAT(html, ContainsSubstring("the fabric profiles give +"));
  CHECK(html.find("above the bound") == std::string::npos);
  // The prediction comes with the bound that holds it.
  CHECK_THAT(html, ContainsSubstring("at the rates the profiles achieve"));
  CHECK_THAT(html, ContainsSubstring("tpnet report --model glm-5.3 --nodes 16"));
  // The baseline carries no TP: the report says which it assumed.
  CHECK_THAT(r.err, ContainsSubstring("taken as measured at TP8"));
}

TEST_CASE("the report's numbers are the ones tpnet penalty and tpnet plan print", "[cli][report]") {
  const fs::path dir = fresh("numbers");
  REQUIRE(run_tpnet(issue_command(dir / "report.html")).exit_code == 0);
  const std::string html = slurp(dir / "report.html");
  const YAML::Node penalty =
      json_of(run_tpnet({"penalty", "--model", "glm-5.3", "--tp", "8", "--from", "200G", "--to",
                         "100G", "--baseline", kBaseline, "--format", "json"}));
  const YAML::Node p5 = penalty["scenarios"][4];
  REQUIRE(p5["name"].as<std::string>() == "P5");
  // As people read them: three significant digits, "8.85 s".
  const std::string bound = format_quantity(p5["extra_ttft_bound_s"].as<double>(), "s", 3);
  const std::string predicted = format_quantity(p5["predicted_extra_ttft_s"].as<double>(), "s", 3);
  CHECK(bound == "8.85 s");
  CHECK_THAT(html, ContainsSubstring("+" + bound + " on the longest test (P5"));
  CHECK_THAT(html, ContainsSubstring("predicted +" + predicted));
  CHECK_THAT(html, ContainsSubstring("P5: bound +" + bound));  // the chart's hover
  const YAML::Node plan = json_of(run_tpnet({"plan", "--model", "glm-5.3", "--nodes", "16",
                                             "--speeds", "100G,200G", "--format", "json"}));
  CHECK_THAT(html, ContainsSubstring(plan["options"][0]["reason"].as<std::string>()));
}

TEST_CASE("tpnet report --format markdown writes the text with each chart beside it",
          "[cli][report]") {
  const fs::path dir = fresh("markdown");
  const std::string md = markdown_review(dir);
  CHECK(md.rfind("# glm-5.3 on 16 x dgx-spark", 0) == 0);
  for (const char* chart : {"penalty", "compare", "switch", "memory"}) {
    // review-<chart>-<hash of its content>.svg (docs/hardening.md)
    const std::string prefix = std::string("](review-") + chart + "-";
    const auto at = md.find(prefix);
    REQUIRE(at != std::string::npos);
    const std::string file = md.substr(at + 2, md.find(')', at) - at - 2);
    CHECK(file.size() == prefix.size() - 2 + 12 + 4);
    REQUIRE(fs::exists(dir / file));
    CHECK(slurp(dir / file).rfind("<svg xmlns=\"http://www.w3.org/2000/svg\"", 0) == 0);
  }
  CHECK_THAT(md, ContainsSubstring("| rank | layout | speed |"));
  CHECK(md.find("<svg") == std::string::npos);
}

TEST_CASE("tpnet report refuses bad input with exit 2 and one line", "[cli][report]") {
  const fs::path dir = fresh("bad");
  expect_bad_input(run_tpnet({"report", "--model", "glm-5.3", "--nodes", "16"}), "--out");
  std::vector<std::string> args = issue_command(dir / "r.html");
  args.insert(args.end(), {"--format", "pdf"});
  expect_bad_input(run_tpnet(args), "--format");
  expect_bad_input(run_tpnet(issue_command(dir)), "--out " + dir.string() + ": is a directory");
  std::vector<std::string> one = issue_command(dir / "r.html");
  one[4] = "1";
  expect_bad_input(run_tpnet(one), "--nodes");
  one[4] = "3";  // tpnet plan has only 3 x TP1 layouts of glm-5.3 on 3 nodes
  expect_bad_input(run_tpnet(one), "no network to report on; give --tp");
  CHECK_FALSE(fs::exists(dir / "r.html"));
}

TEST_CASE("tpnet report says why there is no step timeline when predict cannot price the model",
          "[cli][report]") {
  const fs::path dir = fresh("no-timeline");
  std::vector<std::string> args = issue_command(dir / "report.html");
  // A model file stating totals, not its attention or expert shapes (SYNTHETIC).
  args[2] = std::string(TPNET_SOURCE_DIR) + "/tests/data/models/totals-only.yaml";
  args.insert(args.end(), {"--tp", "8"});
  const CliResult r = run_tpnet(args);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const std::string html = slurp(dir / "report.html");
  CHECK_THAT(html, ContainsSubstring("No step timeline: tpnet predict refuses these inputs"));
  CHECK_THAT(html, ContainsSubstring("mla: not stated by the model"));
  // Nor an expected speed, for the same reason.
  CHECK_THAT(html, ContainsSubstring("No expected speed:"));
}

TEST_CASE("an --svg flag on penalty and compare and capacity and memory and predict writes a chart",
          "[cli][report]") {
  const fs::path dir = fresh("svg");
  const std::vector<std::vector<std::string>> runs{
      {"penalty", "--model", "glm-5.3", "--tp", "8", "--baseline", kBaseline},
      {"compare", "--model", "glm-5.3", "--tp", "8,16"},
      {"capacity", "--sweep",
       std::string(TPNET_SOURCE_DIR) + "/examples/data/qwen36_27b_sweep.csv"},
      {"memory", "--model", "glm-5.3", "--tp", "8"},
      {"predict", "--model", "glm-5.3", "--tp", "8", "--links", "200G,emulated-100G", "--prompt",
       "8k,4x8k", "--gemm-tflops", "200", "--mixer-tflops", "100", "--step-overhead", "10ms"},
  };
  for (auto args : runs) {
    const fs::path svg = dir / (args.front() + ".svg");
    args.insert(args.end(), {"--svg", svg.string(), "--format", "json"});
    INFO(args.front());
    const CliResult r = run_tpnet(args);
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    CHECK(json_of(r)["svg"].as<std::string>() == svg.string());
    const std::string text = slurp(svg);
    CHECK(text.rfind("<svg xmlns=\"http://www.w3.org/2000/svg\"", 0) == 0);
    CHECK(count_of(text, "<title>") > 3);
    CHECK_THAT(text, ContainsSubstring("</svg>"));
  }
  // The memory chart's KV cache at TP8 is memory's own number.
  const YAML::Node memory =
      json_of(run_tpnet({"memory", "--model", "glm-5.3", "--tp", "8", "--format", "json"}));
  const std::string kv = format_quantity(memory["kv_cache_bytes"].as<double>(), "B");
  CHECK_THAT(slurp(dir / "memory.svg"), ContainsSubstring("TP8: KV cache left " + kv));
}

TEST_CASE("a --svg path that cannot be written is refused before the work", "[cli][report]") {
  const fs::path dir = fresh("unwritable");
  expect_bad_input(run_tpnet({"penalty", "--model", "glm-5.3", "--tp", "8", "--svg", dir.string()}),
                   "--svg " + dir.string() + ": is a directory");
  expect_bad_input(
      run_tpnet({"memory", "--model", "glm-5.3", "--tp", "8", "--svg", "/nonexistent/dir/m.svg"}),
      "--svg");
}

TEST_CASE("the README's chart is what its documented command draws today", "[cli][report]") {
  const fs::path dir = fresh("readme");
  const fs::path svg = dir / "penalty-chart.svg";
  REQUIRE(run_tpnet({"penalty", "--model", "glm-5.3", "--tp", "8", "--from", "200G", "--to", "100G",
                     "--baseline", kBaseline, "--svg", svg.string()})
              .exit_code == 0);
  INFO("regenerate it with the command in README.md");
  CHECK(slurp(svg) == slurp(fs::path(TPNET_SOURCE_DIR) / "docs" / "penalty-chart.svg"));
}

TEST_CASE("report on 8 Sparks states the 100G-or-200G trade in money and seconds with its sources",
          "[cli][report][prices]") {
  const fs::path dir = fresh("trade");
  const auto r = run_tpnet({"report", "--model", "glm-5.3", "--nodes", "8", "--as-of", "2026-12-04",
                            "--out", (dir / "r.html").string()});
  REQUIRE(r.exit_code == 0);
  const std::string page = slurp(dir / "r.html");
  // No budget and no sweep: the verdict says what ranked the layouts and
  // shows the trade rather than buying the faster link unasked.
  CHECK_THAT(page, ContainsSubstring("Ranked by fewest-switches"));
  CHECK_THAT(page, ContainsSubstring("Trade: 1 x TP8: 200G on 1 x crs804"));
  CHECK_THAT(page, ContainsSubstring("saves up to 4.43 s of TTFT"));
  CHECK_THAT(page, ContainsSubstring("decode is unchanged"));
  CHECK_THAT(page, ContainsSubstring("switch crs804: USD 1295"));
  fs::remove_all(dir);
}

TEST_CASE(
    "the report gives the KV cache in tokens, the NCCL settings to use, decode per request "
    "and weights per node",
    "[cli][report]") {
  const fs::path dir = fresh("review-items");
  const std::string md = markdown_review(dir);
  // The memory section's TP, then memory's own figures at that TP.
  const auto at = md.find("At TP");
  REQUIRE(at != std::string::npos);
  const std::string tp = md.substr(at + 5, md.find(':', at) - at - 5);
  const YAML::Node mem =
      json_of(run_tpnet({"memory", "--model", "glm-5.3", "--tp", tp, "--format", "json"}));
  CHECK_THAT(md, ContainsSubstring("KV cache at TP" + tp + ": "));
  CHECK_THAT(md, ContainsSubstring(" hold " + mem["kv_tokens"].as<std::string>() + " tokens"));
  CHECK_THAT(md, ContainsSubstring(mem["max_sequences"].as<std::string>() +
                                   " sequences of max-model-len"));
  // GLM-5.3's NCCL buffers at TP8 or TP16 are over a fifth of the budget:
  // the node catalog's tuned pair, and what it frees.
  CHECK(mem["nccl_bytes"].as<double>() >= 0.2 * mem["budget_bytes"].as<double>());
  CHECK_THAT(md, ContainsSubstring("NCCL_MAX_NCHANNELS=8 and NCCL_BUFFSIZE=1048576 cut them to"));
  CHECK_THAT(md, ContainsSubstring("tokens more)"));
  // Decode: the bound at both speeds and, with the baseline, the prediction.
  CHECK_THAT(md, ContainsSubstring("Decode speed of one request: at most "));
  CHECK_THAT(md, ContainsSubstring("tokens/s on the fabric profiles (P1)"));
  CHECK_THAT(md, ContainsSubstring("| fits | weights/node | KV cache/node |"));
}

TEST_CASE("at 2 nodes the report says in words what one layout costs instead of a one-bar chart",
          "[cli][report]") {
  const fs::path dir = fresh("two-nodes");
  const CliResult r = run_tpnet({"report", "--model", "llama-3.1-70b", "--nodes", "2", "--out",
                                 (dir / "review.md").string(), "--format", "markdown"});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const std::string md = slurp(dir / "review.md");
  CHECK(md.find("](review-compare-") == std::string::npos);
  CHECK_THAT(md, ContainsSubstring("## Layouts compared\n\nOnly TP2 spreads an instance over the "
                                   "network at this cluster size: it sends "));
  // The per-1,000-token figure is penalty's at TP2.
  const YAML::Node penalty =
      json_of(run_tpnet({"penalty", "--model", "llama-3.1-70b", "--tp", "2", "--from", "200G",
                         "--to", "100G", "--format", "json"}));
  const std::string per_1k = format_quantity(penalty["extra_s_per_1k_tokens"].as<double>(), "s", 3);
  CHECK_THAT(md, ContainsSubstring("100G instead of 200G adds at most " + per_1k +
                                   " per 1,000 prompt tokens."));
}
