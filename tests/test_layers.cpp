// The house as a stack (docs/architecture.md): each libtpnet layer includes
// only the layers above it, no domain layer includes io, and cli/ talks to
// the core through use cases and io. This test reads every #include of the
// sources and names each one that breaks a rule, so a newcomer's shortcut
// fails here and not in review.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <regex>
#include <set>
#include <string>
#include <vector>
#include "catch.hpp"

namespace fs = std::filesystem;

namespace {

/// The layers, top first: a layer may include its own and those before it.
const std::vector<std::string>& layer_order() {
  static const std::vector<std::string> order{"base",     "model", "workload", "traffic", "fabric",
                                              "measured", "sim",   "usecase",  "io"};
  return order;
}

int layer_rank(const std::string& layer) {
  const auto& order = layer_order();
  const auto it = std::find(order.begin(), order.end(), layer);
  return it == order.end() ? -1 : static_cast<int>(it - order.begin());
}

struct Include {
  std::string file;  ///< relative to the source root
  int line = 0;
  std::string target;  ///< the layer folder included
  std::string text;    ///< the include as written
};

/// The layer a libtpnet file lives in: its folder under include/tpnet or src.
std::string layer_of(const fs::path& relative) {
  // libtpnet/include/tpnet/<layer>/x.hpp or libtpnet/src/<layer>/x.cpp
  auto it = relative.begin();
  std::vector<std::string> parts;
  for (; it != relative.end(); ++it) parts.push_back(it->string());
  if (parts.size() >= 5 && parts[1] == "include") return parts[3];
  if (parts.size() >= 4 && parts[1] == "src") return parts[2];
  return "";
}

/// A quoted include as written, with its line.
struct QuotedInclude {
  int line = 0;
  std::string path;
};

/// Every `#include "..."` of `file`, in order.
std::vector<QuotedInclude> quoted_includes(const fs::path& file) {
  static const std::regex quoted(R"re(^\s*#\s*include\s+"([^"]+)")re");
  std::vector<QuotedInclude> out;
  std::ifstream in(file);
  std::string line;
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    std::smatch m;
    if (std::regex_search(line, m, quoted)) out.push_back({number, m[1]});
  }
  return out;
}

/// Every project include of `file`, resolved to the layer it names: quoted
/// "tpnet/<layer>/..." includes, relative "../<layer>/..." ones and
/// "<layer>/..." ones found through libtpnet/src.
std::vector<Include> includes_of(const fs::path& root, const fs::path& file) {
  std::vector<Include> out;
  for (const auto& [number, path] : quoted_includes(file)) {
    std::string target;
    if (path.rfind("tpnet/", 0) == 0) {
      const auto slash = path.find('/', 6);
      target = slash == std::string::npos ? "tpnet" : path.substr(6, slash - 6);
    } else if (path.rfind("../", 0) == 0) {
      const fs::path resolved =
          fs::relative(fs::weakly_canonical(file.parent_path() / path), root / "libtpnet" / "src");
      target = resolved.begin()->string();
    } else if (const auto slash = path.find('/');
               slash != std::string::npos &&
               fs::is_directory(root / "libtpnet" / "src" / path.substr(0, slash))) {
      target = path.substr(0, slash);  // "io/yaml_fields.hpp": libtpnet/src is on the path
    } else {
      continue;  // a header beside the file: same layer
    }
    out.push_back({fs::relative(file, root).string(), number, target, path});
  }
  return out;
}

std::vector<fs::path> sources_under(const fs::path& dir) {
  std::vector<fs::path> out;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    const auto ext = e.path().extension();
    if (e.is_regular_file() && (ext == ".hpp" || ext == ".cpp")) out.push_back(e.path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::string joined(const std::vector<std::string>& lines) {
  std::string out;
  for (const auto& l : lines) out += l + "\n";
  return out;
}

/// The use cases' includes of each other, file stem to file stems: a use
/// case's header and source are one node ("penalty").
using UseCaseGraph = std::map<std::string, std::set<std::string>>;

UseCaseGraph use_case_graph(const fs::path& root) {
  UseCaseGraph graph;
  const fs::path headers = root / "libtpnet" / "include" / "tpnet" / "usecase";
  // A use case's document (penalty_document.cpp) is the use case's own
  // source; decision_document has a header of its own and is its own node.
  const auto node_of = [&headers](std::string stem) {
    const std::string suffix = "_document";
    if (stem.size() > suffix.size() && stem.ends_with(suffix) &&
        !fs::exists(headers / (stem + ".hpp"))) {
      stem.resize(stem.size() - suffix.size());
    }
    return stem;
  };
  const std::string prefix = "tpnet/usecase/";
  for (const auto& dir : {headers, root / "libtpnet" / "src" / "usecase"}) {
    if (!fs::is_directory(dir)) continue;
    for (const auto& file : sources_under(dir)) {
      const std::string from = node_of(file.stem().string());
      graph[from];
      for (const auto& include : quoted_includes(file)) {
        if (include.path.rfind(prefix, 0) != 0) continue;
        const std::string to = node_of(fs::path(include.path).stem().string());
        if (to != from) graph[from].insert(to);
      }
    }
  }
  return graph;
}

/// Every circle of includes in `graph`, each as "a -> b -> a", found once
/// from its smallest name.
std::vector<std::string> include_cycles(const UseCaseGraph& graph) {
  std::vector<std::string> cycles;
  std::vector<std::string> path;
  std::function<void(const std::string&, const std::string&)> walk = [&](const std::string& start,
                                                                         const std::string& at) {
    path.push_back(at);
    const auto it = graph.find(at);
    if (it != graph.end()) {
      for (const auto& next : it->second) {
        if (next == start) {
          std::string text;
          for (const auto& p : path) text += p + " -> ";
          cycles.push_back(text + start);
        } else if (next > start && std::find(path.begin(), path.end(), next) == path.end()) {
          walk(start, next);
        }
      }
    }
    path.pop_back();
  };
  for (const auto& node : graph) walk(node.first, node.first);
  return cycles;
}

/// Every include of calibration/ that is neither calibration's own, libtpnet's
/// nor cli/shared's, and every line of its CMakeLists that links tpnet_cli or
/// puts cli/ on the include path; `files` counts the sources read.
std::vector<std::string> calibration_reaches_cli(const fs::path& root, std::size_t& files) {
  std::vector<std::string> broken;
  for (const auto& file : sources_under(root / "calibration")) {
    ++files;
    for (const auto& [number, path] : quoted_includes(file)) {
      if (path.rfind("tpnet/", 0) == 0) continue;  // libtpnet
      const bool beside = fs::exists(file.parent_path() / path) ||
                          fs::exists(root / "calibration" / path) ||
                          fs::exists(root / "tests" / path);  // the tests' runners
      const bool shared = fs::exists(root / "cli" / "shared" / path);
      if (!beside && !shared) {
        broken.push_back(fs::relative(file, root).string() + ":" + std::to_string(number) +
                         " includes \"" + path +
                         "\": not calibration's, libtpnet's or cli/shared's");
      }
    }
  }
  // The build says the same: no calibration target links tpnet_cli or puts
  // cli/ on its include path.
  for (const auto& cmake : {root / "calibration" / "CMakeLists.txt",
                            root / "calibration" / "tests" / "CMakeLists.txt"}) {
    std::ifstream in(cmake);
    std::string line;
    int number = 0;
    static const std::regex cli_link(R"re(\btpnet_cli\b(?!_shared)|PROJECT_SOURCE_DIR\}/cli\b)re");
    while (std::getline(in, line)) {
      ++number;
      if (line.find('#') != std::string::npos) line = line.substr(0, line.find('#'));
      if (std::regex_search(line, cli_link)) {
        broken.push_back(fs::relative(cmake, root).string() + ":" + std::to_string(number) +
                         " links or includes tpnet's CLI");
      }
    }
  }
  return broken;
}

}  // namespace

TEST_CASE("no use case includes another that includes it back, however far round", "[layers]") {
  // Use cases compose what lies below them; one that needs another's result
  // takes it as an input or the two meet in a third (issue 41).
  const UseCaseGraph graph = use_case_graph(TPNET_SOURCE_DIR);
  CHECK(graph.size() > 10);  // a moved usecase/ would otherwise pass by being empty
  const std::vector<std::string> cycles = include_cycles(graph);
  INFO(joined(cycles));
  CHECK(cycles.empty());
}

TEST_CASE("the cycle finder names each circle once, from its smallest name", "[layers]") {
  const UseCaseGraph graph{{"a", {"b"}}, {"b", {"c"}}, {"c", {"a", "d"}}, {"d", {}},
                           {"e", {"f"}}, {"f", {"e"}}, {"g", {"a", "d"}}};
  CHECK(include_cycles(graph) == std::vector<std::string>{"a -> b -> c -> a", "e -> f -> e"});
  CHECK(include_cycles({{"a", {"b"}}, {"b", {}}}).empty());
}

TEST_CASE("calibration/ shares code through libtpnet and cli/shared, never tpnet's CLI",
          "[layers]") {
  // tpnet-calibrate runs on cluster nodes: it links libtpnet and the small
  // library both front ends share, so a change to a tpnet command cannot
  // break it (issue 41).
  const fs::path root = TPNET_SOURCE_DIR;
  std::size_t files = 0;
  const std::vector<std::string> broken = calibration_reaches_cli(root, files);
  CHECK(files > 0);
  INFO(joined(broken));
  CHECK(broken.empty());
}

TEST_CASE("the calibration rule names a cli include and a cli link, and passes its own",
          "[layers]") {
  // The check above on a made-up tree: calibration/ including a CLI header,
  // or its CMakeLists linking tpnet_cli, is caught; libtpnet, cli/shared and
  // a header beside the file are not.
  const fs::path root = fs::temp_directory_path() / "tpnet-calibration-layers-test";
  fs::remove_all(root);
  fs::create_directories(root / "calibration" / "tests");
  fs::create_directories(root / "cli" / "shared");
  std::ofstream(root / "cli" / "common.hpp") << "";
  std::ofstream(root / "cli" / "shared" / "sweep_flags.hpp") << "";
  std::ofstream(root / "calibration" / "runner.hpp") << "";
  std::ofstream(root / "calibration" / "bad.cpp")
      << "#include \"tpnet/io/sweep_csv.hpp\"\n#include \"runner.hpp\"\n"
      << "#include \"sweep_flags.hpp\"\n#include \"common.hpp\"\n";
  std::ofstream(root / "calibration" / "CMakeLists.txt")
      << "target_link_libraries(tpnet-calibrate PRIVATE tpnet_cli_shared)\n"
      << "# tpnet_cli in a comment is fine\n"
      << "target_link_libraries(tpnet-calibrate PRIVATE tpnet_cli)\n";
  std::size_t files = 0;
  const std::vector<std::string> broken = calibration_reaches_cli(root, files);
  fs::remove_all(root);
  CHECK(files == 2);
  INFO(joined(broken));
  REQUIRE(broken.size() == 2);
  CHECK(broken[0].find("calibration/bad.cpp:4 includes \"common.hpp\"") == 0);
  CHECK(broken[1] == "calibration/CMakeLists.txt:3 links or includes tpnet's CLI");
}

TEST_CASE("every libtpnet layer includes only the layers above it", "[layers]") {
  const fs::path root = TPNET_SOURCE_DIR;
  std::vector<std::string> broken;
  std::map<std::string, int> files_per_layer;
  for (const auto& file : sources_under(root / "libtpnet")) {
    const fs::path relative = fs::relative(file, root);
    const std::string layer = layer_of(relative);
    if (layer.empty()) continue;  // tpnet.hpp, the umbrella for library users
    ++files_per_layer[layer];
    INFO(relative.string());
    REQUIRE(layer_rank(layer) >= 0);  // a folder outside the stack is itself a break
    for (const auto& inc : includes_of(root, file)) {
      if (inc.target == "tpnet") {
        broken.push_back(inc.file + ":" + std::to_string(inc.line) + " includes the umbrella \"" +
                         inc.text + "\"");
        continue;
      }
      const int target = layer_rank(inc.target);
      if (target < 0 || target > layer_rank(layer)) {
        broken.push_back(inc.file + ":" + std::to_string(inc.line) + " (" + layer +
                         ") includes \"" + inc.text + "\" (" + inc.target +
                         (target < 0 ? ", not a layer)" : ", a layer below it)"));
      }
    }
  }
  INFO(joined(broken));
  CHECK(broken.empty());
  // The walk saw the stack: every layer has files (a renamed folder would
  // otherwise pass by being empty).
  for (const auto& layer : layer_order()) {
    INFO(layer);
    CHECK(files_per_layer[layer] > 0);
  }
}

TEST_CASE("the layer rule names the file, the line and the include it breaks", "[layers]") {
  // The check above on a made-up tree: model/ including io/ is caught.
  const fs::path root = fs::temp_directory_path() / "tpnet-layers-test";
  fs::remove_all(root);
  fs::create_directories(root / "libtpnet" / "src" / "model");
  {
    std::ofstream(root / "libtpnet" / "src" / "model" / "bad.cpp")
        << "#include <vector>\n#include \"tpnet/io/hf_config.hpp\"\n#include \"../io/x.hpp\"\n"
        << "#include \"io/yaml_fields.hpp\"\n#include \"tp_split.hpp\"\n";
  }
  fs::create_directories(root / "libtpnet" / "src" / "io");
  const auto incs = includes_of(root, root / "libtpnet" / "src" / "model" / "bad.cpp");
  fs::remove_all(root);
  REQUIRE(incs.size() == 3);
  CHECK(incs[0].line == 2);
  CHECK(incs[0].target == "io");
  CHECK(incs[1].line == 3);
  CHECK(incs[1].target == "io");
  CHECK(incs[2].line == 4);
  CHECK(incs[2].target == "io");
  CHECK(layer_rank("model") < layer_rank("io"));
  CHECK(layer_of("libtpnet/src/model/bad.cpp") == "model");
  CHECK(layer_of("libtpnet/include/tpnet/sim/step_cost.hpp") == "sim");
}

TEST_CASE("cli includes only use cases, io and base", "[layers]") {
  // A command that needs a domain type or quantity gets it from its use case
  // (which may re-export the type), so that what the CLI computes stays in
  // one place in libtpnet (issue 28).
  const fs::path root = TPNET_SOURCE_DIR;
  std::vector<std::string> broken;
  std::size_t files = 0;
  for (const auto& file : sources_under(root / "cli")) {
    ++files;
    for (const auto& inc : includes_of(root, file)) {
      if (inc.target == "usecase" || inc.target == "io" || inc.target == "base") continue;
      if (inc.text.rfind("tpnet/", 0) != 0) continue;
      broken.push_back(inc.file + ":" + std::to_string(inc.line) + " includes \"" + inc.text +
                       "\" (" + inc.target + "): reach it through a use case");
    }
  }
  CHECK(files > 0);  // a moved cli/ would otherwise pass by being empty
  INFO(joined(broken));
  CHECK(broken.empty());
}
