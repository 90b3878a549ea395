// The built-in catalogs are compiled in and read without the duplicate-key
// parse every user file gets (io/yaml_fields: load_document), since a plan
// reads a dozen of them and that second parse was half its time. Here every
// catalog file goes through the user's path, with every check, so a key
// given twice in a built-in still fails, here.

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "catch.hpp"
#include "tpnet/io/fabric_yaml.hpp"
#include "tpnet/io/model_yaml.hpp"
#include "tpnet/io/node_yaml.hpp"
#include "tpnet/io/price_yaml.hpp"
#include "tpnet/io/switch_yaml.hpp"

namespace fs = std::filesystem;

namespace {

const fs::path kModels = fs::path(TPNET_SOURCE_DIR) / "models";

std::vector<fs::path> yaml_files(const fs::path& dir) {
  std::vector<fs::path> out;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.is_regular_file() && entry.path().extension() == ".yaml") out.push_back(entry.path());
  }
  return out;
}

}  // namespace

TEST_CASE("every built-in catalog file passes the checks a user's file gets", "[catalog]") {
  int files = 0;
  for (const auto& path : yaml_files(kModels)) {
    CAPTURE(path.string());
    CHECK_NOTHROW(tpnet::load_model_file(path.string()));
    ++files;
  }
  for (const auto& path : yaml_files(kModels / "switches")) {
    CAPTURE(path.string());
    CHECK_NOTHROW(tpnet::load_switch_file(path.string()));
    ++files;
  }
  for (const auto& path : yaml_files(kModels / "nodes")) {
    CAPTURE(path.string());
    CHECK_NOTHROW(tpnet::load_node_file(path.string()));
    ++files;
  }
  for (const auto& path : yaml_files(kModels / "prices")) {
    CAPTURE(path.string());
    CHECK_NOTHROW(tpnet::load_price_file(path.string()));
    ++files;
  }
  for (const auto& path : yaml_files(kModels / "fabrics")) {
    CAPTURE(path.string());
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    CHECK_NOTHROW(tpnet::parse_fabric_catalog(text.str(), path.string()));
    ++files;
  }
  CHECK(files > 25);
}

TEST_CASE("a key given twice is refused in a file, naming both lines", "[catalog]") {
  const fs::path dir = fs::temp_directory_path() / "tpnet_catalog_files";
  fs::create_directories(dir);
  const fs::path node = dir / "twice.yaml";
  std::ifstream in(kModels / "nodes/dgx-spark.yaml");
  std::stringstream text;
  text << in.rdbuf();
  std::ofstream(node) << text.str() << "name: again\n";
  CHECK_THROWS_WITH(tpnet::load_node_file(node.string()), Catch::Matchers::Contains("twice"));
}
