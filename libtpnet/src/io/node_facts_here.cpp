// Facts of the node this process runs on: its environment and limits.
#include "tpnet/io/node_facts.hpp"

#include <sys/resource.h>
#include <unistd.h>  // environ (glibc declares it with _GNU_SOURCE, which g++ and clang++ define)

#include <filesystem>

#include "tpnet/base/error.hpp"

namespace tpnet {

NodeFacts read_node_facts_at(const std::string& root, const std::string& root_name) {
  if (!root.empty()) {
    std::error_code ec;
    if (!std::filesystem::is_directory(root, ec)) {
      throw InputError("'" + root + "' is not a directory (a tree saved by save-node-tree.sh)",
                       InputLocation::for_key(root_name));
    }
    return read_node_facts(NodeFactsSource{root, true});
  }
  NodeFacts facts = read_node_facts(NodeFactsSource{"/", false});
  std::map<std::string, std::string> vars;
  for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) {
    const std::string line(*entry);
    const auto eq = line.find('=');
    // Only NCCL's own settings: the rest of an environment may hold secrets.
    if (eq != std::string::npos && line.rfind("NCCL_", 0) == 0) {
      vars[line.substr(0, eq)] = line.substr(eq + 1);
    }
  }
  facts.nccl_environment = vars;
  rlimit limit{};
  if (getrlimit(RLIMIT_MEMLOCK, &limit) == 0) {
    MemlockFacts m;
    m.unlimited = limit.rlim_cur == RLIM_INFINITY;
    if (!m.unlimited) m.limit = Bytes(static_cast<double>(limit.rlim_cur));
    facts.memlock = m;
  }
  return facts;
}

}  // namespace tpnet
