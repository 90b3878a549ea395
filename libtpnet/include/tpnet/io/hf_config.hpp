#pragma once
/// Hugging Face config.json files: the architecture as transformers writes it,
/// under each family's key names (docs/models.md, "Hugging Face config.json").
/// config.json states no parameter count, so total and active parameters are
/// the estimate of tpnet/model/params.hpp.

#include <optional>
#include <string>
#include <string_view>

#include "tpnet/base/error.hpp"
#include "tpnet/model/model.hpp"

namespace tpnet {

/// Parses a config.json's text; `origin` names it in errors and, when the
/// config has no `_name_or_path`, gives the model its name (the folder of a
/// config.json, else the file's stem). Throws InputError naming the file, the
/// line and the key for anything missing, mistyped or out of range. With
/// `hf_quant_text` (modelopt's hf_quant_config.json, named `hf_quant_origin`)
/// the checkpoint's precision comes from it, else from quantization_config,
/// else from the dtype: bits per weight per part of the model (docs/models.md,
/// "Quantization").
[[nodiscard]] ModelArch parse_hf_config(std::string_view json_text, const std::string& origin,
                                        const std::optional<std::string>& hf_quant_text = {},
                                        const std::string& hf_quant_origin = {});

/// Reads a config.json, or the config.json inside a folder, and the
/// hf_quant_config.json beside it when there is one.
[[nodiscard]] ModelArch load_hf_config(const std::string& path);

/// True for a path ending in .json or a folder holding a config.json.
[[nodiscard]] bool is_hf_config_path(std::string_view path);

}  // namespace tpnet
