#include "tpnet/base/error.hpp"

namespace tpnet {
namespace {

std::string format_location(const std::string& message, const InputLocation& where) {
  std::string out;
  if (!where.file.empty()) {
    out += where.file;
    if (where.line > 0) out += ":" + std::to_string(where.line);
    out += ": ";
  }
  if (!where.key.empty()) out += where.key + ": ";
  return out + message;
}

}  // namespace

InputError::InputError(const std::string& message, InputLocation where)
    : Error(format_location(message, where)), where_(std::move(where)), detail_(message) {}

}  // namespace tpnet
