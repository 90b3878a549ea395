// Output files and standard output (tpnet/io/output_file.hpp,
// docs/hardening.md "Output files and standard output"), called directly:
// AtomicFile's temporary names and modes, the paths check_output_path and
// note_named_file refuse, and CheckedOutput remembering a failed write.
// tests/test_cli_outputs.cpp checks the same through tpnet's flags.

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "catch.hpp"
#include "cli_checks.hpp"
#include "cli_runner.hpp"
#include "tpnet/io/output_file.hpp"

using tpnet::test::fresh_dir;
using tpnet::test::slurp;
namespace fs = std::filesystem;
using tpnet::test::mode_of;
using tpnet::test::names_in;

namespace {

std::string refusal_of(const std::string& path, const std::string& flag) {
  try {
    tpnet::check_output_path(path, flag);
  } catch (const tpnet::InputError& e) {
    return e.what();
  }
  return "(accepted)";
}

}  // namespace

TEST_CASE("AtomicFile writes beside its target under a name unique to each file", "[outputs]") {
  const fs::path dir = fresh_dir("unique");
  const std::string target = (dir / "c.csv").string();
  tpnet::AtomicFile first(target, "--out");
  tpnet::AtomicFile second(target, "--out");
  CHECK(first.temp_path() != second.temp_path());
  CHECK(fs::path(first.temp_path()).parent_path() == dir);
  CHECK_THAT(first.temp_path(),
             Catch::Matchers::StartsWith(target + "." + std::to_string(::getpid()) + "-"));
  CHECK_THAT(first.temp_path(), Catch::Matchers::EndsWith(".partial"));
  first.write("first\n");
  second.write("second\n");
  first.commit();
  CHECK(slurp(target) == "first\n");
  second.commit();
  CHECK(slurp(target) == "second\n");
  CHECK(names_in(dir) == std::vector<std::string>{"c.csv"});
  {
    tpnet::AtomicFile dropped(target, "--out");
    dropped.write("never\n");
  }
  CHECK(slurp(target) == "second\n");
  CHECK(names_in(dir) == std::vector<std::string>{"c.csv"});
}

TEST_CASE("AtomicFile gives a new file 0666 less the umask", "[outputs]") {
  const fs::path dir = fresh_dir("umask");
  const mode_t old = ::umask(027);
  tpnet::write_file_atomically((dir / "new.txt").string(), "x", "--out");
  ::umask(old);
  CHECK(mode_of(dir / "new.txt") == 0640U);
}

TEST_CASE("a discarded AtomicFile leaves the target as it was and no temporary", "[outputs]") {
  const fs::path dir = fresh_dir("discard");
  const std::string target = (dir / "keep.txt").string();
  std::ofstream(target) << "old\n";
  tpnet::AtomicFile file(target, "--out");
  file.write("new\n");
  CHECK(names_in(dir).size() == 2);  // the target and the temporary
  file.discard();
  CHECK(file.temp_path().empty());
  CHECK(slurp(target) == "old\n");
  CHECK(names_in(dir) == std::vector<std::string>{"keep.txt"});
}

TEST_CASE("check_output_path refuses what is no file and one path for two outputs",
          "[outputs][bad-input]") {
  const fs::path dir = fresh_dir("claims");
  CHECK_THAT(refusal_of(dir.string(), "--svg"),
             ContainsSubstring("--svg " + dir.string() + ": is a directory, not a regular file"));
  CHECK_THAT(refusal_of((dir / "no" / "such.svg").string(), "--svg"),
             ContainsSubstring("folder " + (dir / "no").string() + " does not exist"));
  CHECK_THAT(refusal_of("", "--svg"), ContainsSubstring("--svg: needs a file path"));
  // The same flag and path again is the same output; another flag on it is refused.
  const std::string chart = (dir / "chart.svg").string();
  CHECK(refusal_of(chart, "--svg") == "(accepted)");
  CHECK(refusal_of(chart, "--svg") == "(accepted)");
  CHECK_THAT(refusal_of(chart, "--timeline"),
             ContainsSubstring("is the same file as --svg " + chart));
  // Nothing was created: the check only claims the path.
  CHECK(names_in(dir).empty());
}

TEST_CASE("a file another flag names is no output of this run", "[outputs][bad-input]") {
  const fs::path dir = fresh_dir("named");
  const std::string base = (dir / "base.csv").string();
  std::ofstream(base) << "prompt,ttft_s\n";
  tpnet::note_named_file("--baseline", base);
  CHECK_THAT(refusal_of(base, "--timeline"),
             ContainsSubstring("is the same file as --baseline " + base));
  CHECK_THROWS_AS(tpnet::AtomicFile(base, "--timeline"), tpnet::InputError);
  CHECK(slurp(base) == "prompt,ttft_s\n");
  // A flag naming no existing file notes nothing.
  tpnet::note_named_file("--svg", (dir / "later.svg").string());
  CHECK(refusal_of((dir / "later.svg").string(), "--out") == "(accepted)");
}

TEST_CASE("CheckedOutput passes what is written and remembers why a write failed", "[outputs]") {
  int ends[2] = {-1, -1};
  REQUIRE(::pipe(ends) == 0);
  std::ostringstream stream;
  {
    tpnet::CheckedOutput out(stream, ends[1]);
    stream << "42 GB\n";
    CHECK_FALSE(out.finish().has_value());
  }
  ::close(ends[1]);
  char got[16] = {};
  CHECK(::read(ends[0], got, sizeof got) == 6);
  CHECK(std::string(got) == "42 GB\n");
  ::close(ends[0]);
  // The stream's own buffer is back once the CheckedOutput is gone.
  stream << "kept";
  CHECK(stream.str() == "kept");

  // A descriptor open only for reading refuses every write: EBADF.
  const int read_only = ::open("/dev/null", O_RDONLY);  // NOLINT(*-vararg)
  REQUIRE(read_only >= 0);
  std::ostringstream lost;
  tpnet::CheckedOutput out(lost, read_only);
  lost << "never arrives\n";
  const auto why = out.finish();
  REQUIRE(why.has_value());
  CHECK(*why == "Bad file descriptor");
  ::close(read_only);
}
