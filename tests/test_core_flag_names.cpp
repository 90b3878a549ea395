// The core names request fields, never tpnet's flags: its errors and notes
// say `engine.max_num_batched_tokens`, and the CLI turns that into --chunk
// (cli/field_flags.cpp). So every `--name` in a string literal of
// libtpnet/src or libtpnet/include is another tool's flag, listed below with
// why; and where a message names a field, the user still reads the flag.

#include <fmt/format.h>

#include <CLI/CLI.hpp>

#include <cctype>
#include <filesystem>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "catch.hpp"
#include "cli_runner.hpp"
#include "commands.hpp"

using tpnet::test::CliResult;
using tpnet::test::run_tpnet;
using tpnet::test::slurp;

namespace {

struct Literal {
  int line = 0;
  std::string text;  ///< as written between the quotes, escapes kept
};

/// The string literals of a C++ source, with the line each starts on.
/// Comments and character literals are skipped (a `'` after a digit or a
/// letter is a digit separator, 1'000); raw strings (R"x(...)x") are read
/// whole. Adjacent literals stay separate.
std::vector<Literal> string_literals(const std::string& src) {
  std::vector<Literal> out;
  int line = 1;
  std::size_t i = 0;
  const auto count_lines = [&](std::size_t from, std::size_t to) {
    for (std::size_t k = from; k < to && k < src.size(); ++k) line += src[k] == '\n' ? 1 : 0;
  };
  // The end of a quoted run starting at `open` (a `"` or `'`): its closing quote.
  const auto closing = [&](std::size_t open) {
    std::size_t j = open + 1;
    while (j < src.size() && src[j] != src[open])
      j += src[j] == '\\' ? std::size_t{2} : std::size_t{1};
    return j;
  };
  while (i < src.size()) {
    const char c = src[i];
    if (src.compare(i, 2, "//") == 0) {
      i = src.find('\n', i);
      if (i == std::string::npos) break;
    } else if (src.compare(i, 2, "/*") == 0) {
      const std::size_t end = src.find("*/", i + 2);
      const std::size_t stop = end == std::string::npos ? src.size() : end + 2;
      count_lines(i, stop);
      i = stop;
    } else if (c == '\'') {
      const bool separator = i > 0 && std::isalnum(static_cast<unsigned char>(src[i - 1])) != 0;
      const std::size_t stop = separator ? i + 1 : closing(i) + 1;
      count_lines(i, stop);
      i = stop;
    } else if (c == '"' && i > 0 && src[i - 1] == 'R') {
      const std::size_t paren = src.find('(', i);
      const std::string delimiter = ")" + src.substr(i + 1, paren - i - 1) + "\"";
      const std::size_t end = src.find(delimiter, paren);
      const std::size_t stop = end == std::string::npos ? src.size() : end;
      out.push_back({line, src.substr(paren + 1, stop - paren - 1)});
      count_lines(i, stop);
      i = stop + delimiter.size();
    } else if (c == '"') {
      const std::size_t end = closing(i);
      out.push_back({line, src.substr(i + 1, end - i - 1)});
      count_lines(i, end);
      i = end + 1;
    } else {
      line += c == '\n' ? 1 : 0;
      ++i;
    }
  }
  return out;
}

/// Every `--name` in `text` (`--{}` and `---` are not names).
std::vector<std::string> flags_in(const std::string& text) {
  static const std::regex kFlag(R"((^|[^A-Za-z0-9_-])(--[a-z][a-z0-9]*(-[a-z0-9]+)*))");
  std::vector<std::string> flags;
  for (std::sregex_iterator it(text.begin(), text.end(), kFlag), end; it != end; ++it) {
    flags.push_back((*it)[2]);
  }
  return flags;
}

/// Every long flag name tpnet's command line defines, from the CLI itself.
std::set<std::string> tpnet_flags() {
  CLI::App app;
  (void)tpnet::cli::setup_commands(app);
  std::set<std::string> flags;
  std::vector<const CLI::App*> apps{&app};
  while (!apps.empty()) {
    const CLI::App* at = apps.back();
    apps.pop_back();
    for (const CLI::Option* option : at->get_options()) {
      for (const auto& name : option->get_lnames()) flags.insert("--" + name);
    }
    for (const CLI::App* sub : at->get_subcommands({})) apps.push_back(sub);
  }
  return flags;
}

/// Other tools' flags the core may name: facts about those tools' files and
/// command lines, which tpnet reads. Each is allowed in one file only.
struct OtherToolsFlag {
  std::string file;  ///< under libtpnet/
  std::string flag;
};
const std::vector<OtherToolsFlag> kOtherToolsFlags = {
    // Reading a `vllm serve` command line (--vllm-args): its errors quote the
    // vLLM flag as the user wrote it. --tensor-parallel-size and --model are
    // also names of tpnet flags, but here they are vLLM's.
    {"src/io/vllm_serve.cpp", "--tensor-parallel-size"},
    // Reading nccl-tests logs: a job script's `#SBATCH --ntasks=N` states
    // the rank count.
    {"src/io/nccl_tests.cpp", "--ntasks"},
    {"src/io/vllm_serve.cpp", "--model"},
    {"src/io/vllm_serve.cpp", "--speculative-config"},
    // Reading `vllm bench serve --save-result` files: what to rerun vLLM's
    // benchmark with when a file lacks a load level, a config or a latency.
    {"src/io/vllm_bench_json.cpp", "--max-concurrency"},
    // An SLO on p90: vLLM writes that percentile only when asked.
    {"src/measured/sweep.cpp", "--metric-percentiles"},
    {"src/io/vllm_bench_json.cpp", "--request-rate"},
    {"src/io/vllm_bench_json.cpp", "--metadata"},
    {"src/io/vllm_bench_json.cpp", "--percentile-metrics"},
    // A damaged JSON-lines file: vLLM's --append-result writes one result per line.
    {"src/io/vllm_bench_json.cpp", "--append-result"},
    // capacity's notes on a vLLM benchmark run: the run's own concurrency cap
    // and how to sweep its request rate.
    {"src/usecase/capacity.cpp", "--max-concurrency"},
    {"src/usecase/capacity.cpp", "--request-rate"},
};

bool allowed(const std::string& file, const std::string& flag) {
  for (const auto& entry : kOtherToolsFlags) {
    if (entry.file == file && entry.flag == flag) return true;
  }
  return false;
}

}  // namespace

TEST_CASE("the literal scanner finds flags in strings only, not in comments or characters",
          "[core-names]") {
  const auto literals = string_literals(
      "// `tpnet capacity --fleet` in a comment\n"
      "/* --tp in a block\n comment */ int x = 1'000; char c = '\"';\n"
      "throw InputError(\"replicas are `tpnet capacity --fleet`'s subject\",\n"
      "                 R\"(raw --chunk \"quoted\")\"); auto s = \"a \\\"--node\\\" b\";\n");
  REQUIRE(literals.size() == 3);
  CHECK(literals[0].line == 4);
  CHECK(flags_in(literals[0].text) == std::vector<std::string>{"--fleet"});
  CHECK(literals[1].line == 5);
  CHECK(flags_in(literals[1].text) == std::vector<std::string>{"--chunk"});
  CHECK(flags_in(literals[2].text) == std::vector<std::string>{"--node"});
  CHECK(flags_in("--{} needs a value; x--y, ---").empty());
}

TEST_CASE("libtpnet's strings name request fields, never a tpnet flag", "[core-names]") {
  const std::set<std::string> tpnet = tpnet_flags();
  // The CLI's flags were read: the check below would pass vacuously without them.
  CHECK(tpnet.count("--tp") == 1);
  CHECK(tpnet.count("--fleet") == 1);
  CHECK(tpnet.count("--allreduce-size") == 1);

  const std::filesystem::path root = std::filesystem::path(TPNET_SOURCE_DIR) / "libtpnet";
  std::vector<std::string> named;
  std::set<std::pair<std::string, std::string>> used;
  std::size_t files = 0;
  for (const auto& dir : {root / "src", root / "include"}) {
    for (const auto& entry : std::filesystem::recursive_directory_iterator(dir)) {
      const auto ext = entry.path().extension();
      if (!entry.is_regular_file() || (ext != ".cpp" && ext != ".hpp")) continue;
      ++files;
      const std::string file = entry.path().lexically_relative(root).generic_string();
      for (const Literal& literal : string_literals(slurp(entry.path()))) {
        for (const auto& flag : flags_in(literal.text)) {
          if (allowed(file, flag)) {
            used.emplace(file, flag);
            continue;
          }
          named.push_back(fmt::format(
              "libtpnet/{}:{}: {} {}", file, literal.line, flag,
              tpnet.count(flag) != 0
                  ? "is tpnet's flag: name the request field in backticks (`fleet_nodes`) and map "
                    "it to the flag in cli/field_flags.cpp"
                  : "is no tpnet flag: if it is another tool's, list it in kOtherToolsFlags with "
                    "why"));
        }
      }
    }
  }
  CHECK(files > 50);
  CHECK(named == std::vector<std::string>{});

  // The list stays exact: an entry no longer found is removed.
  std::vector<std::string> stale;
  for (const auto& entry : kOtherToolsFlags) {
    if (used.count({entry.file, entry.flag}) == 0)
      stale.push_back(fmt::format("{} {}", entry.file, entry.flag));
  }
  CHECK(stale == std::vector<std::string>{});
}

TEST_CASE("a field the core names reaches the user as tpnet's flag", "[cli][core-names]") {
  // vllm_serve.cpp notes data parallelism as `fleet_nodes`; the CLI says --fleet.
  const CliResult dp = run_tpnet({"memory", "--model", "glm-5.3", "--tp", "8", "--vllm-args",
                                  "vllm serve -dp 2", "--format", "json"});
  CHECK(dp.exit_code == 0);
  CHECK_THAT(dp.err, ContainsSubstring("tpnet: note: --vllm-args: ignores --data-parallel-size 2 "
                                       "(tpnet sizes one instance; data-parallel replicas are "
                                       "tpnet capacity's subject (--fleet))"));
  CHECK(dp.err.find("fleet_nodes") == std::string::npos);

  // An error keyed by a field (`nodes`, switch_plan.cpp) names the flag.
  const CliResult nodes = run_tpnet({"switch", "--nodes", "0", "--speed", "100G"});
  CHECK(nodes.exit_code == 2);
  CHECK(nodes.out.empty());
  CHECK(nodes.err == "tpnet: error: --nodes: 0 is out of range; plan 1 to 100000 nodes\n");

  // A field in an error's text (`sweep.config_key`, vllm_bench_json.cpp) names the flag.
  const CliResult key =
      run_tpnet({"capacity", "--sweep",
                 std::string(TPNET_SOURCE_DIR) +
                     "/tests/data/vllm-bench/l40s-4x-llama3.2-3b-llmd-rates-jsonlines.json",
                 "--tp", "1"});
  CHECK(key.exit_code == 2);
  CHECK_THAT(key.err, ContainsSubstring("--config-key"));
  CHECK(key.err.find("sweep.config_key") == std::string::npos);
}
