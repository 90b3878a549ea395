#pragma once
// Saved preflight trees for tests: SYNTHETIC variants of the healthy Spark
// tree (tests/data/preflight/dgx-spark-port0, tests/data/preflight/SOURCES),
// each a copy with one change, and the verdict preflight gives one.

#include <filesystem>
#include <fstream>
#include <functional>
#include <string>

#include "catch.hpp"
#include "cli_checks.hpp"
#include "tpnet/io/node_catalog.hpp"
#include "tpnet/io/node_facts.hpp"
#include "tpnet/usecase/preflight.hpp"

namespace tpnet::test {

inline const std::filesystem::path kHealthySparkTree =
    std::filesystem::path(TPNET_SOURCE_DIR) / "tests/data/preflight/dgx-spark-port0";

/// Writes `text` and a newline, making the folders on the way.
inline void write_tree_file(const std::filesystem::path& path, const std::string& text) {
  std::filesystem::create_directories(path.parent_path());
  std::ofstream(path) << text << "\n";
}

/// A copy of the healthy Spark tree in a fresh folder named `name`, with
/// `change` applied.
inline std::filesystem::path tree_variant(
    const std::string& name, const std::function<void(const std::filesystem::path&)>& change) {
  std::filesystem::path tree = fresh_dir(name) / "tree";
  std::filesystem::copy(kHealthySparkTree, tree, std::filesystem::copy_options::recursive);
  change(tree);
  return tree;
}

/// Preflight's verdict on a saved tree, for a DGX Spark.
inline PreflightReport judge_tree(const std::filesystem::path& tree) {
  PreflightRequest request;
  request.facts = read_node_facts(NodeFactsSource{tree.string(), true});
  request.node = builtin_node("dgx-spark");
  return run_preflight(request);
}

/// The check named `name` of a report; the test fails when it is missing.
inline const PreflightCheck& check_of(const PreflightReport& r, const std::string& name) {
  const PreflightCheck* c = r.check(name);
  REQUIRE(c != nullptr);
  return *c;
}

}  // namespace tpnet::test
