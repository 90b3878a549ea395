// Issue 27 (items 7, 8 and the medium items on outputs and inputs):
// docs/hardening.md, "Outputs that are not theirs to replace" and "Inputs
// read strictly, names printed safely". Outputs never replace another
// user's file, a file through a planted link, an input, or another output;
// a Markdown report links only to its own charts; a YAML file has one
// document and no tags; a JSON file is strict JSON; names print on one line.
//
// The tests run as root, so "another user" is uid 65534 (nobody) given to
// the file with chown/lchown: the owner check compares with geteuid(),
// root included.

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "catch.hpp"
#include "cli_checks.hpp"
#include "cli_runner.hpp"
#include "tpnet/base/error.hpp"
#include "tpnet/io/hf_config.hpp"
#include "tpnet/io/nccl_tests.hpp"
#include "tpnet/io/plan_yaml.hpp"
#include "tpnet/io/sweep_io.hpp"

using tpnet::test::CliResult;
using tpnet::test::expect_bad_input;
using tpnet::test::fresh_dir;
using tpnet::test::run_tpnet;
using tpnet::test::slurp;
namespace fs = std::filesystem;

namespace {

const std::string kSource = TPNET_SOURCE_DIR;
const std::string kBaseline = kSource + "/examples/data/glm53_tp8_200g.csv";
const std::string kSamples = kSource + "/examples/traffic/counters_synthetic.csv";
const std::string kSweep = kSource + "/examples/nccl-tests/all_reduce_perf_8ranks_synthetic.txt";
constexpr uid_t kOtherUser = 65534;  // nobody
constexpr gid_t kOtherGroup = 65534;

void write_file(const fs::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
}

/// A folder anyone may write in: the case where another user's file can be
/// renamed over by anyone.
fs::path shared_dir(const std::string& name, mode_t mode) {
  fs::path dir = fresh_dir(name);
  REQUIRE(::chmod(dir.c_str(), mode) == 0);
  return dir;
}

/// A read-only file that belongs to another user.
fs::path others_file(const fs::path& path, const std::string& text) {
  write_file(path, text);
  REQUIRE(::chown(path.c_str(), kOtherUser, kOtherGroup) == 0);
  REQUIRE(::chmod(path.c_str(), 0444) == 0);
  return path;
}

std::vector<std::string> predict_args() {
  return {"predict",    "--model", "glm-5.3",  "--tp", "8",        "--links", "200G",
          "--baseline", kBaseline, "--output", "16",   "--format", "json"};
}

std::vector<std::string> with(std::vector<std::string> args,
                              std::initializer_list<std::string> more) {
  args.insert(args.end(), more);
  return args;
}

std::vector<std::string> report_args(const fs::path& out, const std::string& speeds) {
  return {"report",     "--model", "glm-5.3", "--nodes",    "16",       "--speeds", speeds,
          "--baseline", kBaseline, "--out",   out.string(), "--format", "markdown"};
}

std::string error_of(const std::function<void()>& read) {
  try {
    read();
  } catch (const tpnet::InputError& e) {
    return e.what();
  }
  return "(accepted)";
}

}  // namespace

// ---- item 8: another user's file, a planted link ---------------------------------

TEST_CASE(
    "outputs of --out, --timeline, --svg and --traffic never replace another user's file, root "
    "included",
    "[hardening][outputs]") {
  const fs::path dir = shared_dir("others", 0777);
  const std::string old = "someone else's file\n";
  const fs::path file = others_file(dir / "theirs.txt", old);
  const std::string expected =
      "--out " + file.string() + ": is owned by uid 65534, not by this user";

  expect_bad_input(run_tpnet({"calibration", "--nccl-tests", kSweep, "--out", file.string()}),
                   expected);
  expect_bad_input(run_tpnet(report_args(file, "100G,200G")), expected);
  for (const std::string flag : {"--timeline", "--svg", "--traffic"}) {
    expect_bad_input(run_tpnet(with(predict_args(), {flag, file.string()})),
                     flag + " " + file.string() + ": is owned by uid 65534");
  }
  expect_bad_input(run_tpnet({"traffic", "--samples", kSamples, "--svg", file.string()}),
                   "--svg " + file.string() + ": is owned by uid 65534");
  CHECK(slurp(file) == old);
  struct stat info {};
  REQUIRE(::stat(file.c_str(), &info) == 0);
  CHECK(info.st_uid == kOtherUser);

  // The user's own file in the same folder is replaced as before.
  const fs::path mine = dir / "mine.svg";
  write_file(mine, "old\n");
  const CliResult r = run_tpnet({"traffic", "--samples", kSamples, "--svg", mine.string()});
  INFO(r.err);
  CHECK(r.exit_code == 0);
  CHECK(slurp(mine).rfind("<svg", 0) == 0);
}

TEST_CASE(
    "an --svg output does not follow another user's symlink in a world-writable sticky folder",
    "[hardening][outputs]") {
  const fs::path sticky = shared_dir("sticky", 01777);
  const fs::path safe = fresh_dir("sticky_victim");
  const fs::path victim = safe / "passwd";
  write_file(victim, "root:x:0:0\n");
  const fs::path planted = sticky / "plot.svg";
  fs::create_symlink(victim, planted);
  REQUIRE(::lchown(planted.c_str(), kOtherUser, kOtherGroup) == 0);

  expect_bad_input(run_tpnet({"traffic", "--samples", kSamples, "--svg", planted.string()}),
                   "--svg " + planted.string() + ": " + planted.string() +
                       " is a symlink owned by uid 65534 in the world-writable sticky folder");
  CHECK(slurp(victim) == "root:x:0:0\n");
  CHECK(fs::is_symlink(planted));

  // The caller's own link there is followed, as the kernel's rule allows.
  const fs::path own = sticky / "own.svg";
  fs::create_symlink(safe / "chart.svg", own);
  const CliResult r = run_tpnet({"traffic", "--samples", kSamples, "--svg", own.string()});
  INFO(r.err);
  CHECK(r.exit_code == 0);
  CHECK(slurp(safe / "chart.svg").rfind("<svg", 0) == 0);
  CHECK(fs::is_symlink(own));
}

// ---- medium: an output on an input, two outputs on one path ------------------

TEST_CASE("predict --timeline onto its --baseline is refused before any work, the CSV kept",
          "[hardening][outputs]") {
  const fs::path dir = fresh_dir("onto_input");
  const fs::path baseline = dir / "baseline.csv";
  fs::copy_file(kBaseline, baseline);
  const std::string old = slurp(baseline);
  std::vector<std::string> args = predict_args();
  args[8] = baseline.string();  // --baseline
  expect_bad_input(
      run_tpnet(with(args, {"--timeline", baseline.string()})),
      "--timeline " + baseline.string() + ": is the same file as --baseline " + baseline.string());
  // Another path to the same file is the same file.
  fs::create_symlink(baseline, dir / "link.csv");
  expect_bad_input(run_tpnet(with(args, {"--svg", (dir / "link.csv").string()})),
                   "is the same file as --baseline");
  CHECK(slurp(baseline) == old);
  CHECK(fs::is_symlink(dir / "link.csv"));
}

TEST_CASE("two outputs on one path are refused, nothing written", "[hardening][outputs]") {
  const fs::path dir = fresh_dir("two_outputs");
  const std::string path = (dir / "out.csv").string();
  expect_bad_input(run_tpnet(with(predict_args(), {"--timeline", path, "--traffic", path})),
                   "--traffic " + path + ": is the same file as --timeline " + path);
  expect_bad_input(run_tpnet(with(predict_args(), {"--svg", path, "--timeline", path})),
                   "is the same file as --timeline " + path);
  // Two spellings of one new file.
  expect_bad_input(run_tpnet(with(predict_args(), {"--timeline", path, "--traffic",
                                                   (dir / "." / "out.csv").string()})),
                   "is the same file as --timeline " + path);
  CHECK_FALSE(fs::exists(path));
}

// ---- medium: a Markdown report and its charts --------------------------------

TEST_CASE("a Markdown report links only to its own charts when another run writes the same --out",
          "[hardening][outputs]") {
  const fs::path dir = fresh_dir("md_race");
  const fs::path out = dir / "review.md";
  const CliResult first = run_tpnet(report_args(out, "100G,200G"));
  INFO(first.err);
  REQUIRE(first.exit_code == 0);
  const std::string md = slurp(out);
  std::map<std::string, std::string> charts;  // file name -> its text, as the first run wrote it
  const std::regex link(R"(\]\((review-[a-z-]+-[0-9a-f]{12}\.svg)\))");
  for (auto it = std::sregex_iterator(md.begin(), md.end(), link); it != std::sregex_iterator();
       ++it) {
    charts[(*it)[1]] = slurp(dir / (*it)[1].str());
  }
  REQUIRE(charts.size() >= 4);

  // A second run with other speeds: other charts, written where the first
  // run's would have been under names that ignore their content.
  const CliResult second = run_tpnet(report_args(out, "100G,400G"));
  INFO(second.err);
  REQUIRE(second.exit_code == 0);
  CHECK(slurp(out) != md);
  for (const auto& [name, text] : charts) {
    INFO(name);
    CHECK(slurp(dir / name) == text);
  }
}

// ---- item 7: YAML with a second document or a tag ---------------------------------

TEST_CASE("check refuses a plan whose budget sits in a second YAML document",
          "[hardening][check]") {
  const fs::path dir = fresh_dir("plan_docs");
  const std::string head =
      "model: glm-5.3\nlayout: {tp: 8}\nlinks:\n  from: 200G\n  to: 100G\n"
      "workload:\n  baseline: " +
      kBaseline + "\n";
  // A loose budget in the first document, a broken one in the second: read
  // as one plan the gate fails; the old reader dropped the second and passed.
  const std::string loose = "budgets:\n  max_ttft_increase: 1000%\n";
  const std::string broken = "  max_extra_ttft: 1ms\n";
  write_file(dir / "one.yaml", head + loose + broken);
  write_file(dir / "two.yaml", head + loose + "---\nbudgets:\n" + broken);

  const CliResult one = run_tpnet({"check", (dir / "one.yaml").string()});
  INFO(one.err);
  CHECK(one.exit_code == 1);  // the budget is broken
  expect_bad_input(run_tpnet({"check", (dir / "two.yaml").string()}),
                   (dir / "two.yaml").string() +
                       ":10: holds a second YAML document (after `---`); only one is read");
  // A leading `---` and a closing `...` are one document.
  write_file(dir / "marked.yaml", "---\n" + head + loose + broken + "...\n");
  CHECK(run_tpnet({"check", (dir / "marked.yaml").string()}).exit_code == 1);
}

TEST_CASE("YAML tags are refused: no reader gives one a meaning", "[hardening][check]") {
  const std::string plan = "model: glm-5.3\nlayout: {tp: 8}\nlinks: {from: 200G, to: 100G}\n";
  CHECK_THAT(error_of([&] {
               (void)tpnet::parse_plan_yaml(plan + "budgets: !include budgets.yaml\n", "p.yaml");
             }),
             ContainsSubstring("p.yaml:4: has the tag '!include' at line 4"));
  CHECK_THAT(error_of([&] {
               (void)tpnet::parse_plan_yaml(plan + "budgets:\n  max_extra_ttft: !!str 1s\n",
                                            "p.yaml");
             }),
             ContainsSubstring("has the tag '!!str' at line 5"));
  // Quoted scalars carry the parser's own non-specific tag: not refused.
  CHECK_THAT(error_of([&] {
               (void)tpnet::parse_plan_yaml(plan + "budgets:\n  max_extra_ttft: \"1s\"\n",
                                            "p.yaml");
             }),
             !ContainsSubstring("tag"));
}

// ---- medium: strict JSON in every JSON reader ------------------------------------

TEST_CASE("every JSON reader refuses what is not strict JSON", "[hardening][json]") {
  const std::string config = slurp(kSource + "/tests/data/hf/Qwen__Qwen3-0.6B/config.json");
  REQUIRE_NOTHROW(tpnet::parse_hf_config(config, "config.json"));
  const auto hf = [&](const std::string& text) {
    return error_of([&] { (void)tpnet::parse_hf_config(text, "config.json"); });
  };
  const std::string body = config.substr(0, config.rfind('}'));
  CHECK_THAT(hf(config + "garbage\n"),
             ContainsSubstring("config.json:30: is not valid JSON: has text after the JSON value"));
  CHECK_THAT(hf(config + "\n{}\n"), ContainsSubstring("has text after the JSON value ('{')"));
  CHECK_THAT(hf(body + ",\n}"), ContainsSubstring("a trailing comma before '}'"));
  CHECK_THAT(hf(body + ",\n  'rope_theta': 5\n}"),
             ContainsSubstring("a single-quoted key; JSON keys use double quotes"));
  CHECK_THAT(hf(body + ",\n  \"x\": 'y'\n}"), ContainsSubstring("a single-quoted string"));
  CHECK_THAT(hf(body + ",\n  \"x\": [1, 2,]\n}"), ContainsSubstring("a trailing comma before ']'"));
  CHECK_THAT(hf(body + ",\n  // note\n  \"x\": 1\n}"),
             ContainsSubstring("where a key in double quotes belongs"));
  CHECK_THAT(hf(body + ",\n  \"x\": \"a\xff\"\n}"), ContainsSubstring("are not UTF-8"));
  CHECK_THAT(hf(body + ",\n  \"x\": 01\n}"), ContainsSubstring("a leading zero"));
  CHECK_THAT(hf(body + ",\n  \"x\": \"a\tb\"\n}"), ContainsSubstring("a control character"));
  // What Python's json writes stays readable: Infinity and NaN (real configs hold them).
  CHECK_THAT(hf(body + ",\n  \"x\": [Infinity, -Infinity, NaN, -0.5e-3, \"\\u00e9\\n\"]\n}"),
             Catch::Matchers::Equals("(accepted)"));

  const std::string bench = slurp(
      kSource +
      "/examples/vllm-bench/qwen36-tp2/openai-chat-infqps-concurrency1-Qwen3.6-27B-NVFP4.json");
  REQUIRE_NOTHROW(tpnet::parse_vllm_bench_json(bench, "r.json"));
  const std::string bench_body = bench.substr(0, bench.rfind('}'));
  CHECK_THAT(error_of([&] { (void)tpnet::parse_vllm_bench_json(bench_body + ",}", "r.json"); }),
             ContainsSubstring("r.json:1: is not valid JSON: a trailing comma before '}'"));
  // Text after the object: the results reader names the line that is no whole object.
  CHECK_THAT(error_of([&] { (void)tpnet::parse_vllm_bench_json(bench + "]", "r.json"); }),
             ContainsSubstring("r.json:2: is not a JSON object"));

  const std::string nccl = R"({"config": {"devices": [{"rank": 0}, {"rank": 1}]}, "results": [)"
                           R"({"size": 1024, "count": 256, "type": "float", "redop": "sum",)"
                           R"( "out_of_place": {"time": 20, "alg_bw": 0.05, "bus_bw": 0.05}}]})";
  REQUIRE_NOTHROW(tpnet::parse_nccl_tests(nccl, "ar.json"));
  CHECK_THAT(error_of([&] { (void)tpnet::parse_nccl_tests(nccl + " {}", "ar.json"); }),
             ContainsSubstring("ar.json:1: is not valid JSON: has text after the JSON value"));
  CHECK_THAT(error_of([&] { (void)tpnet::parse_nccl_tests("{'results': []}", "ar.json"); }),
             ContainsSubstring("a single-quoted key"));
}

// ---- medium: names printed in tables, long values in errors --------------------

TEST_CASE("a model name with a newline, NUL or bytes that are not UTF-8 prints escaped in tables",
          "[hardening][printable]") {
  const fs::path dir = fresh_dir("names");
  std::string config = slurp(kSource + "/tests/data/hf/Qwen__Qwen3-0.6B/config.json");
  // A folder whose name is not UTF-8 names the model (config.json has no _name_or_path).
  const fs::path folder = dir / "qwen\xff\x1b[2J";
  fs::create_directories(folder);
  write_file(folder / "config.json", config);
  const CliResult raw = run_tpnet({"bytes", "--model", folder.string(), "--tp", "2"});
  INFO(raw.err);
  REQUIRE(raw.exit_code == 0);
  CHECK_THAT(raw.out, ContainsSubstring("qwen\\xff\\x1b[2J"));
  CHECK(raw.out.find('\x1b') == std::string::npos);
  CHECK(raw.out.find('\xff') == std::string::npos);
  const CliResult json =
      run_tpnet({"bytes", "--model", folder.string(), "--tp", "2", "--format", "json"});
  REQUIRE(json.exit_code == 0);
  CHECK_THAT(json.out, ContainsSubstring("qwen\\ufffd\\u001b[2J"));

  // A name with a newline and a NUL, from _name_or_path.
  config.insert(config.find('{') + 1, "\n  \"_name_or_path\": \"evil\\nname\\u0000x\",");
  write_file(dir / "config.json", config);
  const CliResult named = run_tpnet(
      {"bytes", "--model", (dir / "config.json").string(), "--tp", "2", "--format", "markdown"});
  INFO(named.err);
  REQUIRE(named.exit_code == 0);
  CHECK_THAT(named.out, ContainsSubstring("evil\\nname\\0x"));
  CHECK(named.out.find("evil\n") == std::string::npos);
  CHECK(named.out.find('\0') == std::string::npos);
}

TEST_CASE("a 10 MB model name is not echoed whole in an error", "[hardening][printable]") {
  const fs::path dir = fresh_dir("long_name");
  const std::string name(std::size_t{10} << 20, 'm');
  write_file(dir / "plan.yaml",
             "model: " + name + "\nlayout: {tp: 8}\nlinks: {from: 200G, to: 100G}\n");
  const CliResult r = run_tpnet({"check", (dir / "plan.yaml").string()});
  CHECK(r.exit_code == 2);
  CHECK(r.err.size() < 5000);
  CHECK_THAT(r.err, ContainsSubstring("bytes cut ...]"));
  CHECK_THAT(r.err, ContainsSubstring("unknown model"));
}
