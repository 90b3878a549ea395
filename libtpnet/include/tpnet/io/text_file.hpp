#pragma once
/// Reading whole input files, with errors that name the path.

#include <string>
#include "tpnet/error.hpp"

namespace tpnet {

/// Throws InputError naming `path` when it is missing, a directory or unreadable.
std::string read_text_file(const std::string& path);

}  // namespace tpnet
