// A test file per public header that holds logic (issue 28 item 5): every
// libtpnet/include/tpnet/<layer>/<name>.hpp has tests/test_<name>.cpp, or an
// entry below saying why it needs none; and every test file is built into
// tpnet_tests. So a new header without tests fails here, naming it, instead
// of waiting for a reviewer to notice.
//
// The rule goes by file name: io/node_facts.hpp and fabric/node_facts.hpp
// share test_node_facts.cpp, which reads the one into the other's structs.

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "catch.hpp"

namespace fs = std::filesystem;

namespace {

/// Headers that need no test file of their own, each with why. Plain data
/// (structs and enums without functions) needs none: the code that fills it
/// is tested where it lives. The list only shrinks: an entry for a header
/// that is gone, or that now has a test file, fails below.
const std::map<std::string, std::string>& headers_without_tests() {
  static const std::map<std::string, std::string> allowed{
      {"measured/counters.hpp",
       "plain structs (counter samples, request timings); io/counters_csv.hpp fills them, "
       "tested in test_counters_csv.cpp"},
  };
  return allowed;
}

std::string joined(const std::vector<std::string>& lines) {
  std::string out;
  for (const auto& l : lines) out += l + "\n";
  return out;
}

/// "<layer>/<name>.hpp" for every public header under `include` (include/tpnet).
std::vector<std::string> public_headers(const fs::path& include) {
  std::vector<std::string> out;
  for (const auto& layer : fs::directory_iterator(include)) {
    if (!layer.is_directory()) continue;  // tpnet.hpp, the umbrella, is no layer's
    for (const auto& file : fs::directory_iterator(layer.path())) {
      if (file.is_regular_file() && file.path().extension() == ".hpp") {
        out.push_back(layer.path().filename().string() + "/" + file.path().filename().string());
      }
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

struct Coverage {
  std::vector<std::string> untested;  ///< neither a test file nor an entry
  std::vector<std::string> stale;     ///< entries to take off, and why
};

Coverage coverage(const fs::path& include, const fs::path& tests,
                  const std::map<std::string, std::string>& allowed) {
  Coverage c;
  const std::vector<std::string> headers = public_headers(include);
  for (const auto& header : headers) {
    const std::string test = "test_" + fs::path(header).stem().string() + ".cpp";
    const bool has_test = fs::exists(tests / test);
    const bool listed = allowed.count(header) > 0;
    if (!has_test && !listed) {
      c.untested.push_back(header + ": no tests/" + test +
                           " (write one, or list the header in test_headers.cpp with why)");
    }
    if (has_test && listed) c.stale.push_back(header + ": has tests/" + test + " now");
  }
  for (const auto& [header, why] : allowed) {
    if (!std::binary_search(headers.begin(), headers.end(), header)) {
      c.stale.push_back(header + ": no such header");
    }
  }
  return c;
}

}  // namespace

TEST_CASE("every public header has a test file of its name, or a reason not to", "[headers]") {
  const fs::path root = TPNET_SOURCE_DIR;
  const Coverage c =
      coverage(root / "libtpnet/include/tpnet", root / "tests", headers_without_tests());
  INFO("headers without tests: " + joined(c.untested));
  CHECK(c.untested.empty());
  INFO("entries of headers_without_tests to take off: " + joined(c.stale));
  CHECK(c.stale.empty());
  // The walk saw the headers: a moved folder would otherwise pass by being empty.
  CHECK(public_headers(root / "libtpnet/include/tpnet").size() > 50);
}

TEST_CASE("the header rule names what it misses and the entries gone stale", "[headers]") {
  const fs::path root = fs::temp_directory_path() / "tpnet-headers-test";
  fs::remove_all(root);
  fs::create_directories(root / "include" / "model");
  fs::create_directories(root / "include" / "io");
  fs::create_directories(root / "tests");
  for (const char* header : {"model/kv.hpp", "model/plain.hpp", "io/kv.hpp", "io/reader.hpp"}) {
    std::ofstream(root / "include" / header) << "#pragma once\n";
  }
  std::ofstream(root / "include" / "umbrella.hpp") << "#pragma once\n";
  std::ofstream(root / "tests" / "test_kv.cpp") << "\n";      // covers model/ and io/ kv.hpp
  std::ofstream(root / "tests" / "test_reader.cpp") << "\n";  // io/reader.hpp, also listed
  const Coverage c = coverage(root / "include", root / "tests",
                              {{"model/plain.hpp", "structs"},
                               {"io/reader.hpp", "was untested"},
                               {"sim/gone.hpp", "removed"}});
  fs::remove_all(root);
  CHECK(c.untested.empty());
  REQUIRE(c.stale.size() == 2);
  CHECK(c.stale[0] == "io/reader.hpp: has tests/test_reader.cpp now");
  CHECK(c.stale[1] == "sim/gone.hpp: no such header");
  const fs::path bare = fs::temp_directory_path() / "tpnet-headers-test-bare";
  fs::remove_all(bare);
  fs::create_directories(bare / "include" / "sim");
  fs::create_directories(bare / "tests");
  std::ofstream(bare / "include" / "sim" / "new.hpp") << "#pragma once\n";
  const Coverage missing = coverage(bare / "include", bare / "tests", {});
  fs::remove_all(bare);
  REQUIRE(missing.untested.size() == 1);
  CHECK(missing.untested[0] ==
        "sim/new.hpp: no tests/test_new.cpp (write one, or list the header in test_headers.cpp "
        "with why)");
}

TEST_CASE("every test file is built into tpnet_tests", "[headers]") {
  // A test file left out of tests/CMakeLists.txt compiles nowhere and runs never.
  const fs::path root = TPNET_SOURCE_DIR;
  std::ifstream in(root / "tests" / "CMakeLists.txt");
  REQUIRE(in);
  // The words of the file outside comments: the sources listed, among others.
  std::vector<std::string> words;
  std::string line;
  while (std::getline(in, line)) {
    line = line.substr(0, line.find('#'));
    std::replace(line.begin(), line.end(), '(', ' ');
    std::replace(line.begin(), line.end(), ')', ' ');
    std::istringstream split(line);
    std::copy(std::istream_iterator<std::string>(split), std::istream_iterator<std::string>(),
              std::back_inserter(words));
  }
  std::sort(words.begin(), words.end());
  std::vector<std::string> unbuilt;
  for (const auto& file : fs::directory_iterator(root / "tests")) {
    const std::string name = file.path().filename().string();
    if (name.rfind("test_", 0) != 0 || file.path().extension() != ".cpp") continue;
    if (!std::binary_search(words.begin(), words.end(), name)) unbuilt.push_back(name);
  }
  std::sort(unbuilt.begin(), unbuilt.end());
  INFO("test files not in tests/CMakeLists.txt: " + joined(unbuilt));
  CHECK(unbuilt.empty());
}
