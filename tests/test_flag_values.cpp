// Issue 40, item 3: every flag that takes a value refuses an empty one naming
// the flag, and its numbers are plain decimal and finite. Checked over every
// option of every command, so that a flag added later is covered too.

#include <CLI/CLI.hpp>

#include <algorithm>
#include <string>
#include <vector>

#include "catch.hpp"
#include "cli_checks.hpp"
#include "cli_runner.hpp"
#include "commands.hpp"
#include "integer_flags.hpp"

using tpnet::test::expect_bad_input;
using tpnet::test::run_tpnet;

namespace {

/// What parsing `command flag value` says: the error's text, or "" when the
/// value is taken.
std::string parse_error(const std::string& command, const std::string& flag,
                        const std::string& value) {
  CLI::App app;
  // The commands own the option values CLI11 writes into: kept alive.
  const std::vector<tpnet::cli::Command> commands = tpnet::cli::setup_commands(app);
  tpnet::cli::require_decimal_integers(app);
  std::vector<std::string> args{command, flag, value};
  std::reverse(args.begin(), args.end());  // CLI11 takes a vector last word first
  try {
    app.parse(args);
  } catch (const CLI::ValidationError& e) {
    return e.what();
  } catch (const CLI::ParseError&) {
    return "";  // a required flag missing, or a flag that excludes another: not the value
  }
  return "";
}

struct ValueOption {
  std::string command;
  std::string flag;
  std::string type;
};

std::vector<ValueOption> value_options() {
  CLI::App app;
  const std::vector<tpnet::cli::Command> commands = tpnet::cli::setup_commands(app);
  std::vector<ValueOption> out;
  for (const CLI::App* command : app.get_subcommands({})) {
    for (const CLI::Option* option : command->get_options()) {
      if (option->get_items_expected_min() < 1 || option->get_lnames().empty()) continue;
      out.push_back(
          {command->get_name(), "--" + option->get_lnames().front(), option->get_type_name()});
    }
  }
  return out;
}

}  // namespace

TEST_CASE("every flag that takes a value refuses an empty one, naming the flag", "[cli][flags]") {
  const std::vector<ValueOption> options = value_options();
  REQUIRE(options.size() > 100);  // every command's flags, not one command's
  for (const ValueOption& o : options) {
    CAPTURE(o.command, o.flag);
    const std::string error = parse_error(o.command, o.flag, "");
    CHECK_THAT(error, ContainsSubstring(o.flag) && ContainsSubstring("the value is empty"));
  }
}

TEST_CASE("numeric flags take plain decimal only: no hexadecimal, octal, nan or inf",
          "[cli][flags]") {
  int integers = 0;
  int reals = 0;
  for (const ValueOption& o : value_options()) {
    CAPTURE(o.command, o.flag, o.type);
    if (o.type.rfind("INT", 0) == 0 || o.type.rfind("UINT", 0) == 0) {
      ++integers;
      CHECK_THAT(parse_error(o.command, o.flag, "0x10"), ContainsSubstring("not a whole number"));
      CHECK_THAT(parse_error(o.command, o.flag, "010"), ContainsSubstring("leading zero"));
    } else if (o.type.rfind("FLOAT", 0) == 0) {
      ++reals;
      for (const char* bad : {"0x1p-1", "nan", "inf", "-inf", "1e999", "0.5.5", "1e", ""}) {
        CAPTURE(bad);
        CHECK_FALSE(parse_error(o.command, o.flag, bad).empty());
      }
      for (const char* good : {"0.5", ".5", "1e-3", "2", "+0.25"}) {
        CAPTURE(good);
        CHECK_THAT(parse_error(o.command, o.flag, good), !ContainsSubstring("decimal number"));
      }
    }
  }
  CHECK(integers > 20);
  CHECK(reals >= 2);  // --gpu-memory-utilization, --activation-factor, --overlap
}

TEST_CASE("the command line refuses what the checks refuse, with exit 2 naming the flag",
          "[cli][flags]") {
  expect_bad_input(run_tpnet({"memory", "--model", "glm-5.3", "--tp", "8", "--node-memory", ""}),
                   "--node-memory: the value is empty");
  expect_bad_input(
      run_tpnet({"penalty", "--model", "glm-5.3", "--tp", "8", "--max-extra-ttft", ""}),
      "--max-extra-ttft: the value is empty");
  expect_bad_input(run_tpnet({"memory", "--model", "glm-5.3", "--tp", "8",
                              "--gpu-memory-utilization", "0x1p-1"}),
                   "--gpu-memory-utilization: '0x1p-1' is not a decimal number");
  // Byte sizes need their unit: --autotune-spike's help says ~10GB, and a
  // bare 10 was 10 B.
  expect_bad_input(
      run_tpnet({"memory", "--model", "glm-5.3", "--tp", "8", "--autotune-spike", "10"}),
      "--autotune-spike: '10' has no unit");
  expect_bad_input(run_tpnet({"link", "--allreduce-size", "61440", "--tp", "8"}),
                   "--allreduce-size: '61440' has no unit");
  // memory refuses what plan refuses.
  expect_bad_input(run_tpnet({"memory", "--model", "glm-5.3", "--tp", "8", "--spec-tokens", "-1"}),
                   "--spec-tokens: -1 is not allowed; use 0 to 64");
  expect_bad_input(run_tpnet({"plan", "--model", "glm-5.3", "--nodes", "8", "--spec-tokens", "-1"}),
                   "--spec-tokens");
}
