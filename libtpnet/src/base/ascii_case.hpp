#pragma once
// ASCII case folding for names and keywords read from files and flags
// ("NVFP4", "Bfloat16", "inf"), in one place.

#include <algorithm>
#include <cctype>
#include <string>
#include <string_view>

namespace tpnet::detail {

inline std::string lowercase(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

inline std::string uppercase(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  return out;
}

}  // namespace tpnet::detail
