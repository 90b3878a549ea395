#include "printable.hpp"

#include <fmt/format.h>

#include <iostream>

namespace tpnet::cli {

std::string printable(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    switch (c) {
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\0':
        out += "\\0";
        break;
      default:
        if (byte < 0x20 || byte == 0x7f) {
          out += fmt::format("\\x{:02x}", byte);
        } else {
          out += c;
        }
    }
  }
  return out;
}

void report(std::string_view kind, std::string_view message) {
  std::cerr << "tpnet: " << kind << ": " << printable(message) << "\n";
}

}  // namespace tpnet::cli
