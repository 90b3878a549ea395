#pragma once
/// NCCL's list syntax, one parser for every variable that takes a list:
/// NCCL_IB_HCA and NCCL_SOCKET_IFNAME (devices and interfaces), NCCL_ALGO and
/// NCCL_PROTO (algorithms and protocols). Entries are separated by commas; a
/// leading `^` excludes what the list names, a leading `=` (after any `^`)
/// asks for exact names instead of prefixes, and `name:port` names one port
/// of a device.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tpnet {

struct NcclListEntry {
  std::string text;         ///< as written, trimmed: "mlx5_0:1"
  std::string name;         ///< before any `:`: "mlx5_0"
  std::optional<int> port;  ///< after the `:`; nullopt (or 0) for every port
};

struct NcclList {
  bool exclude = false;                ///< a leading `^`
  bool exact = false;                  ///< a leading `=`: whole names, not prefixes
  std::vector<NcclListEntry> entries;  ///< the non-empty entries, in order
  /// An entry was empty ("a,,b", a trailing comma, or nothing at all): NCCL
  /// skips it; a reader that wants names may refuse it.
  bool has_empty_entry = false;
};

/// Splits `value` (surrounding space trimmed, as is each entry).
[[nodiscard]] NcclList parse_nccl_list(std::string_view value);

/// Whether one entry of `list` names `name`, whatever its port: the whole
/// name for an exact list, else a prefix of it.
[[nodiscard]] bool nccl_list_entry_names(const NcclList& list, const NcclListEntry& entry,
                                         std::string_view name);

/// Whether `list` selects `name` (and `port`, 0 for none), as NCCL's
/// matchIfList does: an empty list matches every name, so `NCCL_IB_HCA=` is
/// every device and `NCCL_IB_HCA=^` none.
[[nodiscard]] bool nccl_list_selects(const NcclList& list, std::string_view name, int port = 0);

}  // namespace tpnet
