// Every key a subcommand prints with --format json is documented in that
// command's section of docs/json.md, or in a shared table the section's
// Includes: line links to; and every key documented there is printed by some
// run below. CI pipelines read these keys, so neither side may drift. The
// page's layout rule is docs/json.md's "Layout of this page".

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <CLI/CLI.hpp>

#include <cctype>
#include <filesystem>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "catch.hpp"
#include "cli_runner.hpp"
#include "commands.hpp"

using tpnet::test::CliResult;
using tpnet::test::run_tpnet;
using tpnet::test::slurp;

namespace {

const std::string kSource = TPNET_SOURCE_DIR;
std::string ex(const std::string& path) { return kSource + "/examples/" + path; }

/// GitHub's anchor for a heading: lower case, punctuation but `-` and `_`
/// dropped, spaces as `-` ("The `svg` key" -> "the-svg-key").
std::string anchor_of(const std::string& heading) {
  std::string out;
  for (const char c : heading) {
    const auto u = static_cast<unsigned char>(c);
    if (std::isalnum(u) != 0 || c == '-' || c == '_') {
      out += static_cast<char>(std::tolower(u));
    } else if (c == ' ') {
      out += '-';
    }
  }
  return out;
}

/// The keys a table row documents: every backticked name in its first
/// column; a dotted or `[]` path (`fit.alpha_s`, `curve[].size_bytes`)
/// documents each of its parts.
std::set<std::string> keys_of_row(const std::string& line) {
  std::set<std::string> keys;
  const std::string first = line.substr(1, line.find('|', 1) - 1);
  static const std::regex kCode("`([^`]+)`");
  for (std::sregex_iterator it(first.begin(), first.end(), kCode), end; it != end; ++it) {
    const std::string path = (*it)[1];
    std::string part;
    for (const char c : path + ".") {
      if (c == '.' || c == '[' || c == ']') {
        if (!part.empty()) keys.insert(part);
        part.clear();
      } else {
        part += c;
      }
    }
  }
  return keys;
}

/// docs/json.md read by its layout rule: a `## `tpnet NAME`` section (with
/// its subsections) documents command NAME; the `###` sections under `##
/// Shared tables` are shared, each known by its anchor; a paragraph starting
/// "Includes:" in a command's section links the shared tables it prints.
/// Tables elsewhere (the rules' units and enums) document no keys.
struct JsonPage {
  std::map<std::string, std::set<std::string>> command_keys;
  std::map<std::string, std::set<std::string>> includes;     ///< command -> anchors
  std::map<std::string, std::set<std::string>> shared_keys;  ///< anchor -> keys
};

JsonPage read_json_page(const std::string& text) {
  JsonPage page;
  enum class In { other, command, shared } in = In::other;
  std::string name;  // the command, or the shared table's anchor
  bool in_includes = false;
  std::istringstream lines(text);
  std::string line;
  static const std::regex kHeading(R"(^(#+) (.*)$)");
  static const std::regex kCommand(R"(^`tpnet ([a-z]+)[ `])");
  static const std::regex kLink(R"(\]\(#([^)]+)\))");
  while (std::getline(lines, line)) {
    if (line.empty()) in_includes = false;
    std::smatch m;
    if (std::regex_match(line, m, kHeading)) {
      in_includes = false;
      const auto level = m[1].length();
      const std::string title = m[2];
      std::smatch c;
      if (level <= 2) {
        in = In::other;
        if (std::regex_search(title, c, kCommand)) {
          in = In::command;
          name = c[1];
          page.command_keys[name];
        } else if (title == "Shared tables") {
          in = In::shared;
          name.clear();
        }
      } else if (in == In::shared && level == 3) {
        name = anchor_of(title);
        page.shared_keys[name];
      }
      continue;
    }
    if (in == In::command && line.rfind("Includes:", 0) == 0) in_includes = true;
    if (in_includes) {
      for (std::sregex_iterator it(line.begin(), line.end(), kLink), end; it != end; ++it) {
        page.includes[name].insert((*it)[1]);
      }
    }
    if (line.rfind("| `", 0) != 0 || name.empty()) continue;
    if (in == In::command) page.command_keys[name].merge(keys_of_row(line));
    if (in == In::shared) page.shared_keys[name].merge(keys_of_row(line));
  }
  return page;
}

/// Maps whose keys are names from the input (a model's assumed keys, recorded
/// settings), not schema keys: their own keys are not collected, their
/// values' keys are.
bool names_are_data(const std::string& parent) {
  return parent == "assumptions" || parent == "env";
}

void collect(const YAML::Node& node, const std::string& parent, std::set<std::string>& keys) {
  if (node.IsMap()) {
    for (const auto& item : node) {
      const auto key = item.first.as<std::string>();
      if (!names_are_data(parent)) keys.insert(key);
      collect(item.second, key, keys);
    }
  } else if (node.IsSequence()) {
    for (const auto& item : node) collect(item, parent, keys);
  }
}

struct Run {
  std::vector<std::string> args;  ///< the subcommand first
  int exit_code = 0;
};

/// Runs that between them print every documented key: each subcommand over
/// the examples and tests/data, with the options that add keys (baselines,
/// budgets, calibration, overrides, none-fits, --svg, --fabric).
std::vector<Run> runs(const std::string& tmp) {
  const std::string cal = ex("calibration/calibration_glm53_tp8_200g_synthetic.yaml");
  const std::string sweep = ex("nccl-tests/all_reduce_perf_8ranks_synthetic.txt");
  return {
      {{"bytes", "--model", "glm-5.3", "--tp", "8"}},
      {{"bytes", "--model", "glm-5.3", "--tp", "8", "--base-latency", "10us"}},
      {{"penalty", "--model", "glm-5.3", "--tp", "8", "--baseline", ex("data/glm53_tp8_200g.csv"),
        "--calibration", cal, "--max-extra-ttft", "10s", "--max-ttft-increase", "25%", "--svg",
        tmp + "/penalty.svg"}},
      {{"penalty", "--model", "glm-5.3", "--tp", "8", "--bytes-per-token", "3.57MB"}},
      {{"decode", "--model", "glm-5.3", "--tp", "8", "--spec-tokens", "4", "--calibration", cal}},
      {{"link"}},
      {{"expect", "--model", "gpt-oss-120b", "--nodes", "4", "--prompt", "1k", "--output", "128"}},
      {{"expect", "--model", "gpt-oss-120b", "--nodes", "4", "--prompt", "1k", "--output", "128",
        "--disaggregate", "1P1D"}},
      {{"predict", "--model", "gpt-oss-120b", "--tp", "1", "--links", "200G", "--prompt", "1k",
        "--output", "64", "--disaggregate", "2P1D"}},
      // No baseline, no ITL: the node's expected rates, with their range.
      {{"predict", "--model", "gpt-oss-120b", "--tp", "2", "--links", "200G", "--prompt", "1k",
        "--output", "64"}},
      // Expert parallelism with data-parallel attention: the layout's keys.
      {{"predict", "--model", "gpt-oss-120b", "--tp", "1", "--links", "200G", "--prompt", "2x1k",
        "--output", "16", "--data-parallel-size", "2", "--enable-expert-parallel"}},
      {{"predict",
        "--model",
        "glm-5.3",
        "--tp",
        "8",
        "--links",
        "200G,emulated-100G",
        "--prompt",
        "1k,4x8k",
        "--output",
        "64",
        "--spec-tokens",
        "4",
        "--accepted-tokens",
        "2.5",
        "--long-prefill-token-threshold",
        "2048",
        "--baseline",
        ex("data/glm53_tp8_200g.csv"),
        "--timeline",
        tmp + "/timeline.csv",
        "--traffic",
        tmp + "/traffic.csv",
        "--requests",
        tmp + "/requests.csv",
        "--svg",
        tmp + "/predict.svg"}},
      {{"link", "--pcie-gen", "5", "--lanes", "4"}},
      {{"link", "--allreduce-size", "61440B", "--tp", "8"}},
      {{"models"}},
      {{"models", "show", "glm-5.3"}},
      {{"models", "show", "qwen3-next-80b-a3b"}},
      {{"compare",
        "--model",
        "glm-5.3",
        "--tp",
        "8,16",
        "--prompt",
        "8k",
        "--baseline-tp",
        "8",
        "--baseline-ttft",
        "6.36s",
        "--baseline-prompt",
        "8k",
        "--calibration",
        cal,
        "--max-ttft-increase",
        "25%",
        "--fabric",
        "auto",
        "--svg",
        tmp + "/compare.svg"},
       1},
      {{"check", ex("glm53-study-plan.yaml")}},
      {{"check", ex("glm53-tp16-plan.yaml")}, 1},
      {{"switch", "--nodes", "16", "--speed", "100G"}},
      {{"switch", "--nodes", "40", "--speed", "100G", "--switch", "crs804"}},
      {{"switch", "--nodes", "3", "--speed", "100G"}},
      {{"memory", "--model", "glm-5.3", "--tp", "8", "--svg", tmp + "/memory.svg"}},
      {{"memory", "--model", "glm-5.3", "--min-tp"}},
      {{"memory", "--model", "glm-5.3", "--min-tp", "--node-memory", "20GB"}},
      {{"memory", "--model", "deepseek-v4.1-flash", "--tp", "8", "--nccl-tuned"}},
      {{"memory", "--model", "deepseek-v4.1-flash", "--min-tp", "--nccl-tuned"}},
      {{"memory", "--model", "glm-5.3", "--tp", "4", "--pp", "2"}},
      {{"memory", "--model", "llama-3.1-70b", "--tp", "16"}},
      {{"memory", "--model", "deepseek-v4-flash", "--tp", "2"}},
      // A latent MoE: its projections are held whole by every rank.
      {{"memory", "--model",
        kSource + "/tests/data/hf/nvidia__NVIDIA-Nemotron-3-Super-120B-A12B-NVFP4", "--tp", "4"}},
      {{"capacity", "--sweep", ex("data/qwen36_27b_sweep.csv"), "--svg", tmp + "/capacity.svg"}},
      {{"capacity", "--sweep", "TP2=" + ex("vllm-bench/qwen36-tp2"), "--sweep",
        "TP4=" + ex("vllm-bench/qwen36-tp4")}},
      {{"capacity", "--sweep",
        kSource + "/tests/data/vllm-bench/l40s-4x-llama3.2-3b-llmd-rates-jsonlines.json",
        "--config-key", "deployment", "--tp", "1"}},
      {{"plan", "--model", "glm-5.3", "--nodes", "16", "--baseline-tp", "8", "--baseline-ttft",
        "6.36s", "--baseline-prompt", "8k"}},
      {{"plan", "--model", "qwen3.6-27b", "--nodes", "8", "--sweep",
        ex("data/qwen36_27b_sweep.csv"), "--prices",
        kSource + "/tests/data/prices/quote-synthetic.yaml", "--as-of", "2026-12-04"}},
      {{"plan", "--model", "minimax-m2", "--nodes", "4", "--layouts", "all", "--as-of",
        "2026-12-04"}},
      {{"compare", "--model", "minimax-m2", "--tp", "4", "--ep", "1,8", "--prompt", "8k", "--nodes",
        "8", "--disaggregate", "1P1D", "--as-of", "2026-12-04"}},
      {{"prices", "--as-of", "2026-12-04"}},
      {{"doctor", "--nccl-tests", sweep}},
      {{"preflight", "--root", kSource + "/tests/data/preflight/dgx-spark-port0"}},
      {{"calibration", "--nccl-tests", sweep, "--gemm",
        ex("calibration/gemm_glm53_tp8_synthetic.csv"), "--counters",
        ex("traffic/counters_synthetic.csv"), "--model", "glm-5.3", "--tp", "8", "--prompt-tokens",
        "8k", "--out", tmp + "/cal.yaml"}},
      // Grouped expert rows add the skewed routing's figure.
      {{"calibration", "--gemm", ex("calibration/gemm_glm53_tp8_grouped_synthetic.csv"), "--out",
        tmp + "/cal-grouped.yaml"}},
      // An all-to-all sweep adds its fit.
      {{"calibration", "--alltoall",
        kSource + "/tests/data/nccl-tests/synthetic-4rank-alltoall-bf16.txt", "--out",
        tmp + "/cal-alltoall.yaml"}},
      {{"traffic", "--samples", ex("traffic/counters_synthetic.csv"), "--requests",
        ex("traffic/requests_synthetic.csv"), "--series", "--svg", tmp + "/traffic.svg"}},
  };
}

/// The subcommands whose --format offers json, from the CLI itself.
std::set<std::string> commands_with_json() {
  CLI::App app;
  std::set<std::string> names;
  for (const auto& command : tpnet::cli::setup_commands(app)) {
    const CLI::Option* format = command.app->get_option_no_throw("--format");
    if (format == nullptr) continue;
    // The --format line of the subcommand's help lists its choices.
    std::istringstream help(command.app->help());
    std::string line;
    while (std::getline(help, line)) {
      if (line.find("--format") != std::string::npos && line.find("json") != std::string::npos) {
        names.insert(command.app->get_name());
      }
    }
  }
  return names;
}

}  // namespace

TEST_CASE("docs/json.md is read by its layout rule: command sections, shared tables, Includes:",
          "[json]") {
  const JsonPage page = read_json_page(
      "## Rules\n"
      "| `ignored` | a value table |\n"
      "## Shared tables\n"
      "### Link record\n"
      "| `name`, `link_bps` | text |\n"
      "### The `svg` key\n"
      "| `svg` | text |\n"
      "## `tpnet bytes`\n"
      "\n"
      "Includes: [link record](#link-record) (`link`), [the\n"
      "`svg` key](#the-svg-key).\n"
      "\n"
      "| `model` | text |\n"
      "### `tpnet bytes` rows\n"
      "| `rows[].tp`, `allreduce.steps` | count |\n"
      "## `tpnet check PLAN.yaml`\n"
      "| `plan` | text |\n"
      "Not an Includes: line [link record](#link-record)\n");
  CHECK(page.shared_keys.at("link-record") == std::set<std::string>{"name", "link_bps"});
  CHECK(page.shared_keys.at("the-svg-key") == std::set<std::string>{"svg"});
  CHECK(page.command_keys.at("bytes") ==
        std::set<std::string>{"model", "rows", "tp", "allreduce", "steps"});
  CHECK(page.includes.at("bytes") == std::set<std::string>{"link-record", "the-svg-key"});
  CHECK(page.command_keys.at("check") == std::set<std::string>{"plan"});
  CHECK(page.includes.count("check") == 0);
  CHECK(page.shared_keys.size() == 2);
}

TEST_CASE(
    "every JSON key a command prints is documented in its section of docs/json.md, and every "
    "documented key is printed",
    "[cli][json]") {
  const JsonPage page = read_json_page(slurp(kSource + "/docs/json.md"));
  const auto tmp = std::filesystem::temp_directory_path() / "tpnet_json_keys";
  std::filesystem::create_directories(tmp);
  std::map<std::string, std::set<std::string>> printed;  // command -> keys
  for (Run run : runs(tmp.string())) {
    run.args.insert(run.args.end(), {"--format", "json"});
    std::string command;
    for (const auto& a : run.args) command += a + " ";
    INFO(command);
    const CliResult r = run_tpnet(run.args);
    INFO(r.err);
    REQUIRE(r.exit_code == run.exit_code);
    collect(YAML::Load(r.out), "", printed[run.args.front()]);
  }
  std::filesystem::remove_all(tmp);

  // Every command with JSON output is run and has a section.
  std::vector<std::string> unrun;
  for (const auto& name : commands_with_json()) {
    if (printed.count(name) == 0) unrun.push_back(name + ": no run above");
    if (page.command_keys.count(name) == 0) unrun.push_back(name + ": no section in docs/json.md");
  }
  CHECK(unrun == std::vector<std::string>{});

  // Every Includes: link names a shared table.
  std::vector<std::string> bad_links;
  for (const auto& [command, anchors] : page.includes) {
    for (const auto& anchor : anchors) {
      if (page.shared_keys.count(anchor) == 0)
        bad_links.push_back(fmt::format("{}: #{}", command, anchor));
    }
  }
  CHECK(bad_links == std::vector<std::string>{});

  // Printed -> documented where that command's reader looks.
  std::vector<std::string> undocumented;
  for (const auto& [command, keys] : printed) {
    std::set<std::string> documented;
    if (const auto own = page.command_keys.find(command); own != page.command_keys.end()) {
      documented = own->second;
    }
    if (const auto inc = page.includes.find(command); inc != page.includes.end()) {
      for (const auto& anchor : inc->second) {
        if (const auto shared = page.shared_keys.find(anchor); shared != page.shared_keys.end()) {
          documented.insert(shared->second.begin(), shared->second.end());
        }
      }
    }
    for (const auto& key : keys) {
      if (documented.count(key) == 0) undocumented.push_back(fmt::format("{}: {}", command, key));
    }
  }
  {
    INFO(
        "printed by `tpnet COMMAND --format json` but not in its section of docs/json.md nor in "
        "a shared table its Includes: line links");
    CHECK(undocumented == std::vector<std::string>{});
  }

  // Documented -> printed: a command's own keys by one of its runs, a shared
  // table's keys by a run of a command that includes it.
  std::vector<std::string> never_printed;
  for (const auto& [command, keys] : page.command_keys) {
    const auto runs_of = printed.find(command);
    for (const auto& key : keys) {
      if (runs_of == printed.end() || runs_of->second.count(key) == 0) {
        never_printed.push_back(fmt::format("{}: {}", command, key));
      }
    }
  }
  for (const auto& [anchor, keys] : page.shared_keys) {
    std::set<std::string> by_includers;
    for (const auto& [command, anchors] : page.includes) {
      if (anchors.count(anchor) == 0 || printed.count(command) == 0) continue;
      by_includers.insert(printed.at(command).begin(), printed.at(command).end());
    }
    for (const auto& key : keys) {
      if (by_includers.count(key) == 0)
        never_printed.push_back(fmt::format("#{}: {}", anchor, key));
    }
  }
  {
    INFO(
        "documented in docs/json.md but printed by no run of that command (or, for a shared "
        "table, of a command including it)");
    CHECK(never_printed == std::vector<std::string>{});
  }
}
