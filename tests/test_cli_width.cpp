// Every default text output fits 100 columns (issue 29): each example script,
// each command line README.md and docs/*.md show, and each subcommand once;
// a longer line fails the test naming the command and the line. And the
// README shows exactly what `make run` prints.

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "catch.hpp"
#include "cli_runner.hpp"

using tpnet::test::CliResult;
using tpnet::test::run_program;
using tpnet::test::run_tpnet;
using tpnet::test::shell_quote;
using tpnet::test::slurp;

namespace {

namespace fs = std::filesystem;
const fs::path kSource = TPNET_SOURCE_DIR;
constexpr std::size_t kWidth = 100;

std::size_t display_width(const std::string& line) {
  std::size_t n = 0;
  for (const char c : line) n += (static_cast<unsigned char>(c) & 0xC0) != 0x80 ? 1 : 0;
  return n;
}

/// The lines of `out` longer than kWidth, each with its length.
std::vector<std::string> long_lines(const std::string& out) {
  std::vector<std::string> found;
  std::istringstream in(out);
  for (std::string line; std::getline(in, line);) {
    if (display_width(line) > kWidth) {
      found.push_back("(" + std::to_string(display_width(line)) + ") " + line);
    }
  }
  return found;
}

/// Runs a shell line in the source tree with `tpnet` on the PATH as a shim
/// that drops --format (every run shows the default text) and sends the
/// files a command writes to a scratch folder.
CliResult run_shell(const std::string& line) {
  static const fs::path shim_dir = [] {
    fs::path dir = fs::temp_directory_path() / ("tpnet_width_" + std::to_string(::getpid()));
    fs::create_directories(dir / "out");
    std::ofstream shim(dir / "tpnet");
    shim << "#!/usr/bin/env bash\n"
            "args=(); skip=0; out=0\n"
            "for a in \"$@\"; do\n"
            "  if ((skip)); then skip=0; continue; fi\n"
            "  if ((out)); then out=0; args+=(\""
         << (dir / "out").string()
         << "/$(basename \"$a\")\"); continue; fi\n"
            "  case $a in\n"
            "    --format) skip=1 ;;\n"
            "    --format=*) ;;\n"
            "    --svg|--out|--timeline) args+=(\"$a\"); out=1 ;;\n"
            "    *) args+=(\"$a\") ;;\n"
            "  esac\n"
            "done\n"
            // stderr's warnings are one line each, by design: only stdout is measured.
            "exec "
         << shell_quote(TPNET_CLI_PATH) << " \"${args[@]}\" 2>>"
         << shell_quote((dir / "stderr.log").string()) << "\n";
    shim.close();
    fs::permissions(dir / "tpnet", fs::perms::owner_all);
    return dir;
  }();
  return run_program("/bin/bash", {"-c", "cd " + shell_quote(kSource.string()) + " && PATH=" +
                                             shell_quote(shim_dir.string()) + ":$PATH && " + line});
}

/// Documented placeholders, and the files in the tree that stand for them.
std::string with_real_files(std::string line) {
  const std::vector<std::pair<std::string, std::string>> stand_ins{
      {" ar.txt", " examples/nccl-tests/all_reduce_perf_8ranks_synthetic.txt"},
      {" counters.csv", " examples/traffic/counters_synthetic.csv"},
      {" gemm.csv", " examples/calibration/gemm_glm53_tp8_synthetic.csv"},
      {"--calibration calibration.yaml",
       "--calibration examples/calibration/calibration_glm53_tp8_200g_synthetic.yaml"},
      {"--root TREE", "--root tests/data/preflight/dgx-spark-port0"},
  };
  for (const auto& [placeholder, file] : stand_ins) {
    for (auto at = line.find(placeholder); at != std::string::npos;
         at = line.find(placeholder, at + file.size())) {
      line.replace(at, placeholder.size(), file);
    }
  }
  return line;
}

/// Inline code that names flags in prose without the rest of a command.
const std::set<std::string> kFragments{
    "tpnet report --format markdown --out review.md",  // docs/hardening.md: where --out goes
};

struct DocumentedCommand {
  std::string where;  ///< "README.md:182"
  std::string line;   ///< as a shell runs it, `tpnet` first
};

/// A synopsis names flags' forms, not values to run.
bool is_synopsis(const std::string& line) {
  return line.find_first_of("[|<>*") != std::string::npos ||
         line.find("...") != std::string::npos ||
         std::regex_search(line, std::regex(R"(\s(M|N|FILE|NAME|PLAN\.yaml|KEY|P|E|K)\b)"));
}

/// The command lines of a Markdown file: lines in code blocks (fenced or
/// indented) that start with tpnet, continuations joined, comments dropped;
/// and inline code that runs tpnet with a flag or a file.
std::vector<DocumentedCommand> documented_commands(const fs::path& file) {
  std::vector<DocumentedCommand> found;
  std::vector<std::string> lines;
  {
    std::ifstream in(file);
    for (std::string line; std::getline(in, line);) lines.push_back(line);
  }
  const std::regex starts(R"(^\s*(\$ )?(\./)?(build/cli/)?tpnet ([a-z].*)$)");
  const std::regex inline_code(R"(`(\./)?(build/cli/)?tpnet ([a-z][^`]*)`)");
  bool fenced = false;
  std::string text;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const std::string& line = lines[i];
    text += line + "\n";
    const auto indent = line.find_first_not_of(' ');
    if (indent != std::string::npos && line.compare(indent, 3, "```") == 0) {
      fenced = !fenced;
      continue;
    }
    std::smatch m;
    if ((fenced || line.rfind("    ", 0) == 0) && std::regex_match(line, m, starts)) {
      std::string command = "tpnet " + m[4].str();
      const std::size_t first = i;
      while (!command.empty() && command.back() == '\\' && i + 1 < lines.size()) {
        command.pop_back();
        ++i;
        command += " " + lines[i].substr(lines[i].find_first_not_of(' '));
      }
      if (const auto hash = command.find(" #"); hash != std::string::npos) command.resize(hash);
      if (!is_synopsis(command)) {
        found.push_back({file.filename().string() + ":" + std::to_string(first + 1), command});
      }
    }
  }
  for (std::sregex_iterator it(text.begin(), text.end(), inline_code), end; it != end; ++it) {
    std::string command = "tpnet " + (*it)[3].str();
    std::replace(command.begin(), command.end(), '\n', ' ');
    // Prose names a subcommand, or one of its flags, in inline code; a command
    // line gives two flags or a file.
    std::size_t flags = 0;
    for (auto at = command.find(" --"); at != std::string::npos; at = command.find(" --", at + 1)) {
      ++flags;
    }
    if (flags < 2 && command.find('/') == std::string::npos) continue;
    if (is_synopsis(command) || kFragments.count(command) != 0) continue;
    found.push_back({file.filename().string() + " (inline)", command});
  }
  return found;
}

void require_fits(const std::string& what, const std::string& line) {
  const CliResult r = run_shell(with_real_files(line));
  INFO(what << ": " << line << "\nexit " << r.exit_code << ", stderr: " << r.err);
  CHECK((r.exit_code == 0 || r.exit_code == 1));
  for (const auto& too_long : long_lines(r.out)) {
    FAIL_CHECK(what << ": `" << line << "` prints a line wider than " << kWidth << ": "
                    << too_long);
  }
}

/// The Makefile's `run` target: the command make run prints the answer of.
std::string make_run_command() {
  const std::string makefile = slurp(kSource / "Makefile");
  const auto at = makefile.find("\nrun:");
  REQUIRE(at != std::string::npos);
  std::string command;
  std::istringstream in(makefile.substr(at + 1));
  std::string line;
  std::getline(in, line);  // "run: quiet-build"
  while (std::getline(in, line) && !line.empty() && line[0] == '\t') {
    std::string part = line.substr(line.find_first_not_of("\t @"));
    const bool more = !part.empty() && part.back() == '\\';
    if (more) part.pop_back();
    command += part;
    if (!more) break;
  }
  return command;
}

}  // namespace

TEST_CASE("every example's text output fits 100 columns", "[cli][width]") {
  std::vector<fs::path> scripts;
  for (const auto& entry : fs::directory_iterator(kSource / "examples")) {
    if (entry.path().extension() == ".sh") scripts.push_back(entry.path());
  }
  REQUIRE(scripts.size() >= 10);
  for (const auto& script : scripts) {
    require_fits("examples/" + script.filename().string(),
                 "bash " + shell_quote(script.string()) + " tpnet");
  }
}

TEST_CASE("every command line in README.md and docs/*.md prints at most 100 columns",
          "[cli][width]") {
  std::vector<fs::path> files{kSource / "README.md"};
  for (const auto& entry : fs::directory_iterator(kSource / "docs")) {
    if (entry.path().extension() == ".md") files.push_back(entry.path());
  }
  std::size_t count = 0;
  for (const auto& file : files) {
    for (const auto& command : documented_commands(file)) {
      require_fits(command.where, command.line);
      ++count;
    }
  }
  // The README's plan, the docs' predict, switch, doctor, traffic, calibration
  // and penalty examples at least: a parser that finds none tests nothing.
  CHECK(count >= 15);
}

TEST_CASE("every subcommand's default text output fits 100 columns", "[cli][width]") {
  // A long command is one string split at 100 columns, not two commands.
  // NOLINTBEGIN(bugprone-suspicious-missing-comma)
  const std::vector<std::string> commands{
      "tpnet bytes --model glm-5.3 --tp 8",
      "tpnet penalty --model glm-5.3 --tp 8",
      "tpnet penalty --model glm-5.3 --tp 8 --prompt 1k,8k,4x16k --calibration "
      "examples/calibration/calibration_glm53_tp8_200g_synthetic.yaml",
      "tpnet decode --model glm-5.3 --tp 8 --from 200G --to 100G --spec-tokens 4",
      "tpnet compare --model glm-5.3 --tp 4,8,16 --to 100G,emulated-100G --prompt 8k,4x16k "
      "--baseline-tp 8 --baseline-ttft 6.36s --baseline-prompt 8k --max-ttft-increase 25%",
      "tpnet compare --model deepseek-v3 --tp 2,4,8,16 --ep 1,8 --prompt 8k",
      "tpnet check examples/glm53-study-plan.yaml",
      "tpnet check examples/glm53-tp16-plan.yaml",
      "tpnet switch --nodes 16 --speed 100G",
      "tpnet switch --nodes 8 --speed 200G",
      "tpnet memory --model glm-5.3 --tp 8",
      "tpnet memory --model glm-5.3 --min-tp",
      "tpnet memory --model deepseek-v4-flash --tp 1",
      "tpnet capacity --sweep examples/vllm-bench/qwen36-tp2 --sweep "
      "TP4=examples/vllm-bench/qwen36-tp4",
      "tpnet plan --model glm-5.3 --nodes 16",
      "tpnet plan --model glm-5.3 --nodes 8 --speeds 100G,200G --workload chat",
      "tpnet doctor --nccl-tests examples/nccl-tests/all_reduce_perf_8ranks_synthetic.txt",
      "tpnet preflight --root tests/data/preflight/dgx-spark-port0",
      "tpnet traffic --samples examples/traffic/counters_synthetic.csv --requests "
      "examples/traffic/requests_synthetic.csv",
      // Without --out the calibration file itself (YAML, a data format like JSON).
      "tpnet calibration --nccl-tests examples/nccl-tests/all_reduce_perf_8ranks_synthetic.txt "
      "--out calibration.yaml",
      "tpnet predict --model glm-5.3 --tp 8 --links 200G,emulated-100G --baseline "
      "examples/data/glm53_tp8_200g.csv",
      "tpnet link",
      "tpnet link --pcie-gen 5 --lanes 4",
      "tpnet link --allreduce-size 61440B --tp 8",
      "tpnet models",
      "tpnet models show glm-5.3",
      "tpnet models show deepseek-v4-flash",
      "tpnet report --model glm-5.3 --nodes 16 --baseline examples/data/glm53_tp8_200g.csv "
      "--out report.html",
  };
  // NOLINTEND(bugprone-suspicious-missing-comma)
  for (const auto& command : commands) require_fits("subcommand", command);
}

TEST_CASE("prose wraps at COLUMNS with a hanging indent and tables drop columns, not wrap",
          "[cli][width]") {
  const std::vector<std::string> args{"predict",
                                      "--model",
                                      "glm-5.3",
                                      "--tp",
                                      "8",
                                      "--links",
                                      "200G,emulated-100G",
                                      "--baseline",
                                      kSource.string() + "/examples/data/glm53_tp8_200g.csv"};
  std::vector<std::string> narrow{"COLUMNS=72", TPNET_CLI_PATH};
  narrow.insert(narrow.end(), args.begin(), args.end());
  const CliResult at72 = run_program("/usr/bin/env", narrow);
  REQUIRE(at72.exit_code == 0);
  std::istringstream in(at72.out);
  std::size_t widest = 0;
  bool hanging = false;
  for (std::string line; std::getline(in, line);) {
    widest = std::max(widest, display_width(line));
    hanging = hanging || line.rfind("      ", 0) == 0;
  }
  CHECK(widest <= 72);
  CHECK(widest > 60);
  CHECK(hanging);
  CHECK(at72.out.find("--wide adds") != std::string::npos);

  std::vector<std::string> wide = args;
  wide.emplace_back("--wide");
  const CliResult all = run_tpnet(wide);
  REQUIRE(all.exit_code == 0);
  CHECK(long_lines(all.out).size() > 0);  // --wide shows every column, however wide
  CHECK(all.out.find("--wide adds") == std::string::npos);
}

TEST_CASE("--help and error lines wrap at COLUMNS as stdout does", "[cli][width][help]") {
  auto widest_at_60 = [](const std::vector<std::string>& args, int expected_exit, bool on_stderr) {
    std::vector<std::string> line{"COLUMNS=60", TPNET_CLI_PATH};
    line.insert(line.end(), args.begin(), args.end());
    const CliResult r = run_program("/usr/bin/env", line);
    CHECK(r.exit_code == expected_exit);
    const std::string& shown = on_stderr ? r.err : r.out;
    std::istringstream in(shown);
    std::size_t widest = 0;
    std::size_t lines = 0;
    for (std::string l; std::getline(in, l); ++lines) widest = std::max(widest, display_width(l));
    INFO(shown);
    CHECK(lines > 1);
    return widest;
  };
  CHECK(widest_at_60({"--help"}, 0, false) <= 60);
  CHECK(widest_at_60({"plan", "--help"}, 0, false) <= 60);
  // 78 characters on one line before: the unknown flag, the command and where to look.
  CHECK(widest_at_60({"plan", "--model", "glm-5.3", "--nodes", "8", "--no-such-flag"}, 2, true) <=
        60);
  // At the default 100 columns the same error is one line.
  const CliResult wide =
      run_tpnet({"plan", "--model", "glm-5.3", "--nodes", "8", "--no-such-flag"});
  CHECK(std::count(wide.err.begin(), wide.err.end(), '\n') == 1);
}

TEST_CASE("README shows exactly what make run prints, and it opens with the answer",
          "[cli][width]") {
  const std::string command = make_run_command();
  REQUIRE(command.rfind("./build/cli/tpnet penalty", 0) == 0);
  const CliResult r = run_shell("tpnet " + command.substr(command.find("penalty")));
  REQUIRE(r.exit_code == 0);
  const std::string readme = slurp(kSource / "README.md");
  // The block right after the README's `make run` line shows its output.
  const auto shown_at = readme.find("```text\n", readme.find("make run    #"));
  REQUIRE(shown_at != std::string::npos);
  const auto begin = shown_at + 8;
  const std::string shown = readme.substr(begin, readme.find("```", begin) - begin);
  CHECK(shown == r.out);
  // The first three lines answer: the longest prompt's cost, per 1,000 tokens, decode.
  std::istringstream in(r.out);
  std::vector<std::string> first(3);
  for (auto& line : first) std::getline(in, line);
  CHECK(first[0].find("longest prompt") != std::string::npos);
  CHECK(first[0].find("predicted") != std::string::npos);
  CHECK(first[1].find("Per 1,000 prompt tokens") != std::string::npos);
  CHECK(first[2].find("Decode does not change") != std::string::npos);
  CHECK(long_lines(r.out).empty());
}
