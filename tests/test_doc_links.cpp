// Every docs/... path the sources, examples, catalogs and docs cite exists:
// a renamed or never-written page fails here, naming the file and line that
// cites it. tests/data is left out: it holds other projects' files, whose
// docs/ paths are theirs; so is a path written repo:docs/x.md.
#include <filesystem>
#include <fstream>
#include <regex>
#include <string>
#include <vector>
#include "catch.hpp"

namespace fs = std::filesystem;

namespace {

bool cited_from(const fs::path& relative) {
  const std::string s = relative.generic_string();
  if (s.rfind("tests/data/", 0) == 0) return false;
  static const std::vector<std::string> extensions{".cpp", ".hpp", ".md",    ".yaml", ".sh",
                                                   ".txt", ".cu",  ".cmake", ".json"};
  for (const auto& e : extensions) {
    if (relative.extension() == e) return true;
  }
  return relative.filename() == "Makefile" || relative.filename() == "CMakeLists.txt";
}

}  // namespace

TEST_CASE("every docs path cited in the project exists", "[docs]") {
  const fs::path root = TPNET_SOURCE_DIR;
  static const std::regex cited(R"re((^|[^A-Za-z0-9_./:-])(docs/[A-Za-z0-9_./-]+\.(md|svg)))re");
  std::vector<std::string> missing;
  int citations = 0;
  for (const char* top :
       {"libtpnet", "cli", "calibration", "tests", "examples", "models", "scripts", "docs"}) {
    for (const auto& e : fs::recursive_directory_iterator(root / top)) {
      if (!e.is_regular_file()) continue;
      const fs::path relative = fs::relative(e.path(), root);
      if (!cited_from(relative)) continue;
      std::ifstream in(e.path());
      std::string line;
      int number = 0;
      while (std::getline(in, line)) {
        ++number;
        for (std::sregex_iterator it(line.begin(), line.end(), cited), end; it != end; ++it) {
          ++citations;
          const std::string path = (*it)[2];
          if (!fs::exists(root / path)) {
            missing.push_back(relative.generic_string() + ":" + std::to_string(number) + " cites " +
                              path);
          }
        }
      }
    }
  }
  std::string listed;
  for (const auto& m : missing) listed += m + "\n";
  INFO(listed);
  CHECK(missing.empty());
  CHECK(citations > 100);  // the walk read the tree
}
