// The whole command line, from argv to the exit code. It lives in tpnet_cli,
// not in main.cpp, so that main.cpp is the only file of the tpnet target and
// costs nothing to compile: CLI11 is compiled with the library's batches
// instead of once more for main (docs/hardening.md, "Build and start-up costs").

#include <unistd.h>
#include <CLI/CLI.hpp>

#include <algorithm>
#include <iostream>
#include <string>
#include <vector>

#include "command_line.hpp"
#include "commands.hpp"
#include "common.hpp"
#include "exit_codes.hpp"
#include "input_limit.hpp"
#include "integer_flags.hpp"
#include "terminal.hpp"
#include "tpnet/base/error.hpp"
#include "tpnet/io/output_file.hpp"
#include "tpnet/io/printable.hpp"
#include "vllm_args.hpp"

namespace {

/// Writes "tpnet: KIND: MESSAGE" to standard error, MESSAGE clipped to
/// kLongestMessage and printable, wrapped at the terminal's width as stdout is.
void report(std::string_view kind, std::string_view message) {
  std::cerr << tpnet::cli::stderr_line(
      "tpnet", kind, tpnet::printable(tpnet::clipped(message, tpnet::kLongestMessage)));
}

/// Every file a flag of `command` names, noted before it runs: which flags
/// read and which write is the command's business, but no output may be a
/// file another flag names (docs/hardening.md, "Outputs that are not theirs
/// to replace").
void note_flag_files(const CLI::App& command) {
  for (const CLI::Option* option : command.get_options()) {
    const auto& long_names = option->get_lnames();
    const std::string flag = long_names.empty() ? option->get_name() : "--" + long_names.front();
    for (const auto& value : option->results()) tpnet::note_named_file(flag, value);
  }
}

int parse_and_run(int argc, char** argv) {
  using namespace tpnet::cli;
  try {
    apply_input_limit_from_environment();
  } catch (const tpnet::InputError& e) {
    report("error", e.what());
    return 2;
  }
  CLI::App app{
      "tpnet sizes the network for tensor-parallel LLM inference across Ethernet-linked nodes.\n"
      "Exit codes: 0 ok, 1 a CI gate failed, 2 bad input or usage, 3 internal error.",
      "tpnet"};
  wrap_help_at_terminal(app);
  app.require_subcommand(1);
  app.set_version_flag("--version", "tpnet " TPNET_VERSION);
  const std::vector<Command> commands = setup_commands(app);
  document_exit_codes(app);
  require_decimal_integers(app);
  if (argc > 1 && argv[1][0] != '-') {
    const std::string name = argv[1];
    std::string known;
    bool found = false;
    for (const auto& command : commands) {
      found = found || command.app->get_name() == name;
      known += (known.empty() ? "" : ", ") + command.app->get_name();
    }
    if (!found) {
      report("error", "unknown subcommand '" + name + "'; use one of " + known);
      return 2;
    }
  }
  // CLI11 takes a vector last word first.
  const std::vector<std::string> typed(argv + 1, argv + argc);
  std::vector<std::string> args = typed;
  if (!args.empty()) {
    for (const auto& command : commands) {
      if (command.app->get_name() != args.front() ||
          command.app->get_option_no_throw("--vllm-args") == nullptr) {
        continue;
      }
      try {
        for (const auto& note : expand_vllm_args(*command.app, args)) {
          report("note", name_fields(note, command.names));
        }
      } catch (const tpnet::InputError& e) {
        report("error", error_line(e, command.names));
        return 2;
      }
    }
  }
  std::reverse(args.begin(), args.end());
  try {
    app.parse(args);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);
    // An unknown flag is named even when CLI11 first found a required one
    // missing: `--node 16` is a typo of --nodes, not a missing --nodes.
    const std::vector<std::string> unknown = app.remaining(true);
    if (!unknown.empty() && !unknown.front().empty() && unknown.front()[0] == '-') {
      std::string command = "tpnet";
      for (CLI::App* at = &app; !at->get_subcommands().empty();) {
        at = at->get_subcommands().front();
        command += " " + at->get_name();
      }
      report("error",
             unknown.front() + " is not an option of " + command + " (see " + command + " --help)");
      return 2;
    }
    report("error", std::string(e.what()) + " (see tpnet --help)");
    return 2;
  }
  for (const auto& command : commands) {
    if (!command.app->parsed()) continue;
    try {
      note_flag_files(*command.app);
      if (command.keep_command_line) command.keep_command_line(typed);
      Outcome outcome = command.run();
      // A report joined from others (penalty with decode) may carry a warning twice.
      std::vector<std::string> unique;
      for (auto& w : outcome.doc.warnings) {
        if (std::find(unique.begin(), unique.end(), w) == unique.end()) unique.push_back(w);
      }
      outcome.doc.warnings = std::move(unique);
      for (auto& warning : outcome.doc.warnings) {
        warning = name_fields(warning, command.names);
        report("warning", warning);
      }
      int exit_code = outcome.exit_code;
      if (outcome.write) {
        exit_code = outcome.write(std::cout);
      } else {
        std::cout << tpnet::render(outcome.doc, tpnet::parse_format(*command.format),
                                   terminal_layout(wide_requested(*command.app)));
      }
      std::cout.flush();
      return exit_code;
    } catch (const tpnet::InputError& e) {
      report("error", error_line(e, command.names));
      return 2;
    } catch (const std::exception& e) {
      report("internal error", e.what());
      return 3;
    }
  }
  return 2;
}

}  // namespace

namespace tpnet::cli {

int run_command_line(int argc, char** argv) {
  // A closed stdout fails every write with EBADF instead of handing fd 1 to
  // the first file opened; every write to std::cout is checked.
  tpnet::reserve_standard_descriptors();
  tpnet::CheckedOutput out(std::cout, STDOUT_FILENO);
  int exit_code = 3;
  try {
    exit_code = parse_and_run(argc, argv);
  } catch (const std::exception& e) {
    report("internal error", e.what());
  } catch (...) {
    report("internal error", "an exception of unknown type");
  }
  // Output that never arrived (a full disk, a closed stdout) is bad input or
  // usage, exit 2: exit 0 or 1 would claim a result no one got.
  if (const auto why = out.finish()) {
    report("error", "could not write to standard output: " + *why);
    if (exit_code < 2) exit_code = 2;
  }
  return exit_code;
}

}  // namespace tpnet::cli
