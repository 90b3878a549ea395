// Reading input files (tpnet/io/text_file.hpp, docs/hardening.md "Input
// size"): the text without its byte-order mark, errors naming the path and
// the cause, the size limit, the UTF-8 check names are printed through, and
// the record of inputs that no output may replace.

#include <sys/stat.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>

#include "catch.hpp"
#include "cli_checks.hpp"
#include "tpnet/io/text_file.hpp"

using namespace tpnet;
using tpnet::test::fresh_dir;
namespace fs = std::filesystem;

namespace {

std::string error_of(const std::string& path) {
  try {
    (void)read_text_file(path);
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

void write(const fs::path& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
}

/// Sets the input limit for one scope and puts the old one back, whatever
/// the checks inside do.
class InputLimit {
 public:
  explicit InputLimit(std::uint64_t bytes) : old_(max_input_bytes()) { set_max_input_bytes(bytes); }
  InputLimit(const InputLimit&) = delete;
  InputLimit& operator=(const InputLimit&) = delete;
  ~InputLimit() { set_max_input_bytes(old_); }

 private:
  std::uint64_t old_;
};

}  // namespace

TEST_CASE("a file reads whole, less a UTF-8 byte-order mark", "[hardening]") {
  const fs::path dir = fresh_dir("text_file");
  write(dir / "bom.yaml", "\xEF\xBB\xBFname: x\n");
  CHECK(read_text_file((dir / "bom.yaml").string()) == "name: x\n");
  // Only a leading mark is one; the same bytes later are text.
  write(dir / "inner.txt", "a\xEF\xBB\xBF");
  CHECK(read_text_file((dir / "inner.txt").string()) == "a\xEF\xBB\xBF");
  write(dir / "empty.txt", "");
  CHECK(read_text_file((dir / "empty.txt").string()).empty());
}

TEST_CASE("a file that cannot be read is named with the cause", "[hardening][bad-input]") {
  const fs::path dir = fresh_dir("text_file_errors");
  const std::string missing = (dir / "missing.csv").string();
  CHECK(error_of(missing) == missing + ": no such file");
  CHECK(error_of(dir.string()) == dir.string() + ": is a directory, not a file");
  write(dir / "plain", "x");
  CHECK_THAT(error_of((dir / "plain" / "below").string()),
             ContainsSubstring("no such file (a folder on its path is a file)"));
  fs::create_symlink("loop", dir / "loop");
  CHECK_THAT(error_of((dir / "loop").string()), ContainsSubstring("symlink loop"));
}

TEST_CASE("a file larger than the input limit is refused with the limit", "[hardening][limits]") {
  CHECK(max_input_bytes() == kDefaultMaxInputBytes);
  CHECK(kDefaultMaxInputBytes == 268435456U);  // 256 MiB
  const fs::path dir = fresh_dir("text_file_limit");
  write(dir / "big.txt", std::string(2 * 1048576 + 1, 'x'));
  write(dir / "fits.txt", std::string(1048576, 'x'));
  const InputLimit limit(1048576);
  CHECK(read_text_file((dir / "fits.txt").string()).size() == 1048576);
  CHECK_THAT(error_of((dir / "big.txt").string()),
             ContainsSubstring("is 2097153 bytes, larger than the input limit of 1 MiB "
                               "(`input.max_bytes` raises it)"));
  const InputLimit odd(1000);
  CHECK_THAT(error_of((dir / "fits.txt").string()),
             ContainsSubstring("larger than the input limit of 1000 bytes"));
}

TEST_CASE("UTF-8 sequences are measured as RFC 3629 allows them", "[hardening][printable]") {
  CHECK(utf8_sequence_length("a", 0) == 1);
  CHECK(utf8_sequence_length("\xC3\xA9", 0) == 2);          // e acute, U+00E9
  CHECK(utf8_sequence_length("\xE2\x82\xAC", 0) == 3);      // euro sign, U+20AC
  CHECK(utf8_sequence_length("\xF0\x9F\x98\x80", 0) == 4);  // U+1F600
  CHECK(utf8_sequence_length("x\xC3\xA9", 1) == 2);         // measured where asked
  CHECK(utf8_sequence_length("\x80", 0) == 0);              // a stray continuation byte
  CHECK(utf8_sequence_length("\xC3", 0) == 0);              // cut short
  CHECK(utf8_sequence_length("\xC0\xAF", 0) == 0);          // overlong '/'
  CHECK(utf8_sequence_length("\xE0\x80\xAF", 0) == 0);      // overlong below U+0800
  CHECK(utf8_sequence_length("\xED\xA0\x80", 0) == 0);      // a surrogate, U+D800
  CHECK(utf8_sequence_length("\xF4\x90\x80\x80", 0) == 0);  // U+110000, past U+10FFFF
  CHECK(utf8_sequence_length("\xF4\x8F\xBF\xBF", 0) == 4);  // U+10FFFF, the last
  CHECK(utf8_sequence_length("a", 1) == 0);                 // past the end
}

TEST_CASE("files read or noted are inputs, known by device and inode", "[hardening][outputs]") {
  const fs::path dir = fresh_dir("text_file_inputs");
  write(dir / "read.csv", "x\n");
  write(dir / "noted.csv", "y\n");
  write(dir / "other.csv", "z\n");
  fs::create_symlink("read.csv", dir / "alias.csv");
  (void)read_text_file((dir / "alias.csv").string());
  note_input_file((dir / "noted.csv").string());
  auto read_as = [](const fs::path& path) {
    struct stat info {};
    REQUIRE(::stat(path.c_str(), &info) == 0);
    return input_read_as(static_cast<std::uint64_t>(info.st_dev),
                         static_cast<std::uint64_t>(info.st_ino));
  };
  // Another path to one file is one input, named as it was read.
  CHECK(read_as(dir / "read.csv") == (dir / "alias.csv").string());
  CHECK(read_as(dir / "noted.csv") == (dir / "noted.csv").string());
  CHECK_FALSE(read_as(dir / "other.csv"));
}
