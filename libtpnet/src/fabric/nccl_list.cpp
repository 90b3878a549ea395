#include "tpnet/fabric/nccl_list.hpp"

#include <charconv>

#include "tpnet/base/text.hpp"

namespace tpnet {

NcclList parse_nccl_list(std::string_view value) {
  NcclList list;
  std::string_view text = trim_space(value);
  if (!text.empty() && text.front() == '^') {
    list.exclude = true;
    text.remove_prefix(1);
  }
  if (!text.empty() && text.front() == '=') {
    list.exact = true;
    text.remove_prefix(1);
  }
  while (true) {
    const auto comma = text.find(',');
    const std::string_view entry = trim_space(text.substr(0, comma));
    if (entry.empty()) {
      list.has_empty_entry = true;
    } else {
      NcclListEntry e{std::string(entry), std::string(entry.substr(0, entry.find(':'))),
                      std::nullopt};
      if (const auto colon = entry.find(':'); colon != std::string_view::npos) {
        int port = 0;
        const std::string_view digits = entry.substr(colon + 1);
        // Digits first, as NCCL's atoi reads them: "1x" is port 1.
        if (std::from_chars(digits.data(), digits.data() + digits.size(), port).ec == std::errc()) {
          e.port = port;
        }
      }
      list.entries.push_back(std::move(e));
    }
    if (comma == std::string_view::npos) break;
    text.remove_prefix(comma + 1);
  }
  return list;
}

bool nccl_list_entry_names(const NcclList& list, const NcclListEntry& entry,
                           std::string_view name) {
  return list.exact ? name == entry.name : name.starts_with(entry.name);
}

bool nccl_list_selects(const NcclList& list, std::string_view name, int port) {
  bool matched = list.entries.empty();
  for (const auto& entry : list.entries) {
    const int entry_port = entry.port.value_or(0);
    if (nccl_list_entry_names(list, entry, name) && (entry_port == 0 || entry_port == port)) {
      matched = true;
    }
  }
  return list.exclude ? !matched : matched;
}

}  // namespace tpnet
