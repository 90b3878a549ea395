#pragma once
/// The file name of a `__FILE__` path, for the "(allreduce_nccl.cpp:266)" a
/// backend's error names: the build machine's directories mean nothing to a
/// user reading the message on a cluster node.

#include <string_view>

namespace tpnet::calibrate {

[[nodiscard]] inline std::string_view source_file_name(std::string_view path) {
  const auto slash = path.find_last_of('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

}  // namespace tpnet::calibrate
