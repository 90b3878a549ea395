#pragma once
/// Reads a node's fabric facts (tpnet/fabric/node_facts.hpp) from its sysfs,
/// or from a tree saved from one (calibration/scripts/save-node-tree.sh;
/// layout in docs/preflight.md), and writes them as text another rank can
/// read back.

#include <optional>
#include <string>
#include <string_view>

#include "tpnet/fabric/node_facts.hpp"

namespace tpnet {

struct NodeFactsSource {
  std::string root = "/";
  /// A saved tree: the environment (`env`), the memlock limit (`limits`),
  /// the NCCL version (`nccl_version`), `ibv_devinfo -v` output
  /// (`ibv_devinfo.txt`) and the host name (`hostname`) come from files in
  /// it. On a live node (false) the caller adds the environment and limits
  /// of the process NCCL will run in.
  bool saved_tree = false;
};

/// Reads what is there; what is missing is left empty and named in `unread`.
/// Throws InputError naming `root` when it is not a directory, or a saved
/// tree without /sys/class/infiniband, /sys/class/net or an env file.
[[nodiscard]] NodeFacts read_node_facts(const NodeFactsSource& source);

/// `root` empty: this node, with the NCCL_* environment and memlock limit of
/// this process (the one NCCL would run in). Else a tree saved by
/// calibration/scripts/save-node-tree.sh; a root that is no directory is
/// refused naming `root_name` (the caller's name for the root).
[[nodiscard]] NodeFacts read_node_facts_at(const std::string& root, const std::string& root_name);

/// Parses `ulimit -l` output: "unlimited" or a count of KiB. Throws
/// InputError naming `origin`.
[[nodiscard]] MemlockFacts parse_memlock(std::string_view text, const std::string& origin);

/// A PCI address as sysfs writes it, "0000:01:00.1": hex domain (4 to 8
/// digits), bus and device (2 digits each), function (0-7); nullopt for
/// anything else, so a saved tree's odd name never becomes a path.
[[nodiscard]] std::optional<PciAddress> parse_pci_address(std::string_view text);

/// The facts as lines of tab-separated fields, and back (for MPI). The
/// parser throws InputError naming `origin` and the line.
[[nodiscard]] std::string node_facts_text(const NodeFacts& facts);
[[nodiscard]] NodeFacts parse_node_facts_text(std::string_view text, const std::string& origin);

}  // namespace tpnet
