#pragma once
// The real config.json files of tests/data/hf (SOURCES names repo, path and
// commit), read as `--model FOLDER` reads them.

#include <string>

#include "tpnet/io/hf_config.hpp"
#include "tpnet/model/model.hpp"

namespace tpnet::test {

inline const std::string kCorpus = std::string(TPNET_SOURCE_DIR) + "/tests/data/hf/";

/// The checkpoint in tests/data/hf/`folder` (config.json and, beside it,
/// hf_quant_config.json).
inline ModelArch checkpoint(const std::string& folder) { return load_hf_config(kCorpus + folder); }

}  // namespace tpnet::test
