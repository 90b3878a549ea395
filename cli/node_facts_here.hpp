#pragma once
// Reads the fabric facts `tpnet preflight` and `tpnet-calibrate preflight`
// judge: this node's sysfs with the NCCL_* environment and memlock limit of
// this process (the one NCCL would run in), or a tree saved from a node.

#include <string>

#include "tpnet/io/node_facts.hpp"

namespace tpnet::cli {

/// `root` empty: this node. Else a tree saved by
/// calibration/scripts/save-node-tree.sh; bad input names `flag`.
[[nodiscard]] NodeFacts read_facts(const std::string& root, const std::string& flag);

}  // namespace tpnet::cli
