#include "tpnet/io/printable.hpp"

#include <fmt/format.h>

#include "tpnet/io/text_file.hpp"

namespace tpnet {
namespace {

constexpr unsigned char kC1Lead = 0xc2;  // U+0080..U+00BF are 0xc2 0x80..0xbf
constexpr unsigned char kLastC1 = 0x9f;

void escape_byte(std::string& out, unsigned char byte) { out += fmt::format("\\x{:02x}", byte); }

/// Moves `at` back to the start of the UTF-8 sequence it is inside, if any.
std::size_t sequence_start(std::string_view text, std::size_t at) {
  constexpr std::size_t kLongestSequence = 4;
  for (std::size_t back = 0; back < kLongestSequence && back <= at; ++back) {
    const std::size_t start = at - back;
    const std::size_t length = utf8_sequence_length(text, start);
    if (length > back) return start;
  }
  return at;
}

}  // namespace

std::string printable(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t at = 0; at < text.size();) {
    const char c = text[at];
    const auto byte = static_cast<unsigned char>(c);
    if (byte >= 0x80) {
      const std::size_t length = utf8_sequence_length(text, at);
      const bool c1 =
          length == 2 && byte == kC1Lead && static_cast<unsigned char>(text[at + 1]) <= kLastC1;
      if (length == 0 || c1) {
        escape_byte(out, byte);
        ++at;
        if (c1) escape_byte(out, static_cast<unsigned char>(text[at++]));
        continue;
      }
      out.append(text.substr(at, length));
      at += length;
      continue;
    }
    ++at;
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
          escape_byte(out, byte);
        } else {
          out += c;
        }
    }
  }
  return out;
}

std::string clipped(std::string_view text, std::size_t most) {
  if (text.size() <= most) return std::string(text);
  const std::size_t head = sequence_start(text, most / 2);
  const std::size_t tail = sequence_start(text, text.size() - most / 2);
  return fmt::format("{}[... {} bytes cut ...]{}", text.substr(0, head), tail - head,
                     text.substr(tail));
}

}  // namespace tpnet
