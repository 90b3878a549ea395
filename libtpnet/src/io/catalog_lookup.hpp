#pragma once
// Private helpers shared by the switch and node catalogs: file stems, names
// compared without case, paths told from names, and "did you mean" messages.

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "../base/ascii_case.hpp"
#include "tpnet/io/model_catalog.hpp"

namespace tpnet::detail {

/// "crs812.yaml" -> "crs812"
inline std::string_view yaml_stem(std::string_view file_name) {
  const auto dot = file_name.rfind(".yaml");
  return dot == std::string_view::npos ? file_name : file_name.substr(0, dot);
}

inline bool same_name(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

/// A '/', a .yaml/.yml ending, or an existing file.
inline bool looks_like_yaml_path(std::string_view text) {
  std::error_code ec;
  return text.find('/') != std::string_view::npos || text.ends_with(".yaml") ||
         text.ends_with(".yml") || std::filesystem::is_regular_file(std::string(text), ec);
}

/// "unknown switch 'crs81'; did you mean crs812 or crs804?"
inline std::string unknown_name_message(std::string_view what, std::string_view name,
                                        const std::vector<std::string>& candidates) {
  const std::string lowered = lowercase(name);
  std::string message = "unknown " + std::string(what) + " '" + std::string(name) + "'";
  const auto close = closest_names(lowered, candidates);
  if (!close.empty()) {
    message += "; did you mean ";
    for (std::size_t i = 0; i < close.size(); ++i) {
      message += (i == 0 ? "" : i + 1 == close.size() ? " or " : ", ") + close[i];
    }
    message += "?";
  } else {
    message += "; built-in: ";
    for (std::size_t i = 0; i < candidates.size(); ++i) {
      message += (i == 0 ? "" : ", ") + candidates[i];
    }
  }
  return message;
}

}  // namespace tpnet::detail
