#pragma once
/// The one trim: leading and trailing ASCII whitespace (space, tab, CR, LF,
/// VT, FF) off a view, for every reader (sysfs attributes, CSV cells, flag
/// values, NCCL settings).

#include <string_view>

namespace tpnet {

[[nodiscard]] constexpr bool is_ascii_space(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f';
}

[[nodiscard]] constexpr std::string_view trim_space(std::string_view s) {
  while (!s.empty() && is_ascii_space(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_ascii_space(s.back())) s.remove_suffix(1);
  return s;
}

}  // namespace tpnet
