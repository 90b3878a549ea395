#include "json_text.hpp"

#include <fmt/format.h>

#include <cstddef>
#include <vector>

#include "tpnet/base/error.hpp"
#include "tpnet/io/text_file.hpp"

namespace tpnet::json {
namespace {

/// Walks the text once with an explicit stack (no recursion, so a file of
/// a million '[' cannot overflow ours), throwing at the first fault.
class StrictJson {
 public:
  StrictJson(std::string_view text, const std::string& origin) : text_(text), origin_(origin) {}

  void check() {
    skip_space();
    if (at_end()) return;  // the reader says what it expected
    bool awaiting_value = true;
    while (awaiting_value || !stack_.empty()) {
      awaiting_value = awaiting_value ? value() : after_value();
    }
    skip_space();
    if (!at_end()) {
      fail(fmt::format("has text after the JSON value ({}); one file holds one value",
                       shown(peek())));
    }
  }

 private:
  enum class Open { object, array };

  [[nodiscard]] bool at_end() const { return at_ >= text_.size(); }
  [[nodiscard]] char peek() const { return text_[at_]; }

  [[noreturn]] void fail(const std::string& what) const {
    throw InputError(fmt::format("is not valid JSON: {}", what),
                     InputLocation::in_file(origin_, line_));
  }

  static std::string shown(char c) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte < 0x20 || byte >= 0x7f) return fmt::format("byte 0x{:02x}", byte);
    return fmt::format("'{}'", c);
  }

  void skip_space() {
    while (!at_end()) {
      const char c = peek();
      if (c == '\n') {
        ++line_;
      } else if (c != ' ' && c != '\t' && c != '\r') {
        return;
      }
      ++at_;
    }
  }

  void expect_more(const char* what) {
    skip_space();
    if (at_end()) fail(fmt::format("ends inside {}", what));
  }

  /// One value. An object or array is opened and stays on the stack; true
  /// when a value is awaited next (its first member's or element's).
  bool value() {
    expect_more("a value");
    const char c = peek();
    if (c == '{' || c == '[') {
      ++at_;
      const bool object = c == '{';
      stack_.push_back(object ? Open::object : Open::array);
      expect_more(object ? "an object" : "an array");
      if (peek() == (object ? '}' : ']')) {
        ++at_;
        stack_.pop_back();
        return false;
      }
      if (object) key();
      return true;
    }
    if (c == '"') {
      string();
      return false;
    }
    if (c == '\'') fail("a single-quoted string; JSON strings use double quotes");
    if (c == '-' || (c >= '0' && c <= '9')) {
      number();
      return false;
    }
    for (const std::string_view word : {"true", "false", "null", "NaN", "Infinity"}) {
      if (text_.substr(at_, word.size()) == word) {
        at_ += word.size();
        return false;
      }
    }
    if (c == '/' || c == '#') fail("a comment; JSON has none");
    if (c == ',' || c == '}' || c == ']') fail(fmt::format("{} where a value belongs", shown(c)));
    fail(fmt::format("{} begins no JSON value (strings are in double quotes)", shown(c)));
  }

  /// `"key":`, before a member's value.
  void key() {
    expect_more("an object");
    if (peek() == '\'') fail("a single-quoted key; JSON keys use double quotes");
    if (peek() == '}') fail("a trailing comma before '}'");
    if (peek() != '"') fail(fmt::format("{} where a key in double quotes belongs", shown(peek())));
    string();
    expect_more("an object");
    if (peek() != ':') fail(fmt::format("{} after a key, where ':' belongs", shown(peek())));
    ++at_;
  }

  /// After a value inside the innermost open object or array: its close, or
  /// ',' and (true) the next value awaited.
  bool after_value() {
    const bool object = stack_.back() == Open::object;
    expect_more(object ? "an object" : "an array");
    const char close = object ? '}' : ']';
    const char c = peek();
    if (c == close) {
      ++at_;
      stack_.pop_back();
      return false;
    }
    if (c != ',') fail(fmt::format("{} where ',' or '{}' belongs", shown(c), close));
    ++at_;
    if (object) {
      key();
    } else {
      expect_more("an array");
      if (peek() == ']') fail("a trailing comma before ']'");
    }
    return true;
  }

  void number() {
    if (peek() == '-') {
      ++at_;
      if (text_.substr(at_, 8) == "Infinity") {
        at_ += 8;
        return;
      }
    }
    const std::size_t digits = at_;
    while (!at_end() && peek() >= '0' && peek() <= '9') ++at_;
    if (at_ == digits) fail("a '-' without digits");
    if (at_ - digits > 1 && text_[digits] == '0') fail("a number with a leading zero");
    if (!at_end() && peek() == '.') {
      ++at_;
      const std::size_t fraction = at_;
      while (!at_end() && peek() >= '0' && peek() <= '9') ++at_;
      if (at_ == fraction) fail("a number with no digits after its '.'");
    }
    if (!at_end() && (peek() == 'e' || peek() == 'E')) {
      ++at_;
      if (!at_end() && (peek() == '+' || peek() == '-')) ++at_;
      const std::size_t exponent = at_;
      while (!at_end() && peek() >= '0' && peek() <= '9') ++at_;
      if (at_ == exponent) fail("a number with no digits in its exponent");
    }
  }

  void string() {
    ++at_;  // the opening quote
    while (true) {
      if (at_end()) fail("a string that never ends");
      const auto byte = static_cast<unsigned char>(peek());
      if (byte == '"') {
        ++at_;
        return;
      }
      if (byte < 0x20) {
        fail(fmt::format("a control character ({}) inside a string; write it as an escape",
                         shown(peek())));
      }
      if (byte == '\\') {
        escape();
      } else if (byte < 0x80) {
        ++at_;
      } else {
        utf8();
      }
    }
  }

  void escape() {
    ++at_;
    if (at_end()) fail("a string that never ends");
    const char c = peek();
    ++at_;
    if (c == 'u') {
      for (int i = 0; i < 4; ++i, ++at_) {
        if (at_end() ||
            std::string_view("0123456789abcdefABCDEF").find(peek()) == std::string_view::npos) {
          fail("a \\u escape without four hex digits");
        }
      }
      return;
    }
    if (std::string_view("\"\\/bfnrt").find(c) == std::string_view::npos) {
      fail(fmt::format(R"(the escape \{}; JSON has \" \\ \/ \b \f \n \r \t \uXXXX)", shown(c)));
    }
  }

  void utf8() {
    const std::size_t length = utf8_sequence_length(text_, at_);
    if (length == 0) fail("bytes inside a string that are not UTF-8");
    at_ += length;
  }

  std::string_view text_;
  const std::string& origin_;
  std::size_t at_ = 0;
  int line_ = 1;
  std::vector<Open> stack_;
};

}  // namespace

void require_strict_json(std::string_view text, const std::string& origin) {
  StrictJson(text, origin).check();
}

}  // namespace tpnet::json
