#include "tpnet/io/text_file.hpp"

#include <filesystem>
#include <fstream>
#include <sstream>

#include "tpnet/error.hpp"

namespace tpnet {

std::string read_text_file(const std::string& path) {
  std::error_code ec;
  const auto status = std::filesystem::status(path, ec);
  if (ec || !std::filesystem::exists(status)) {
    throw InputError("no such file", InputLocation::in_file(path));
  }
  if (std::filesystem::is_directory(status)) {
    throw InputError("is a directory, not a file", InputLocation::in_file(path));
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError("cannot be opened for reading", InputLocation::in_file(path));
  std::ostringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

}  // namespace tpnet
