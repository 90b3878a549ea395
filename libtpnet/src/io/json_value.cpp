#include "json_value.hpp"

#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <limits>
#include <unordered_map>

#include "json_text.hpp"
#include "tpnet/base/error.hpp"

namespace tpnet::json {

std::optional<double> Value::number() const {
  if (kind_ != Kind::number) return std::nullopt;
  if (text_ == "NaN") return std::numeric_limits<double>::quiet_NaN();
  if (text_ == "Infinity") return std::numeric_limits<double>::infinity();
  if (text_ == "-Infinity") return -std::numeric_limits<double>::infinity();
  double value = 0.0;
  const auto [end, error] = std::from_chars(text_.data(), text_.data() + text_.size(), value);
  if (error == std::errc::result_out_of_range) {
    // A literal beyond a double's range (1e999) reads as the infinity it
    // rounds to; the readers' range checks refuse it.
    return text_.front() == '-' ? -std::numeric_limits<double>::infinity()
                                : std::numeric_limits<double>::infinity();
  }
  if (error != std::errc() || end != text_.data() + text_.size()) return std::nullopt;
  return value;
}

const Value* Value::find(std::string_view key) const {
  for (const auto& [name, value] : members_) {
    if (name == key) return &value;
  }
  return nullptr;
}

/// Builds the tree from text require_strict_json has already passed, so it
/// checks only what that leaves: duplicate keys, size and depth.
class Parser {
 public:
  Parser(std::string_view text, const std::string& origin) : text_(text), origin_(origin) {}

  Value document() {
    skip_space();
    Value root;
    if (at_ < text_.size()) value(root, 0);  // whitespace alone: null, for the reader to refuse
    return root;
  }

 private:
  [[noreturn]] void fail(const std::string& what, const std::string& key = "") const {
    throw InputError(what, InputLocation::in_file(origin_, line_, key));
  }

  void skip_space() {
    while (at_ < text_.size()) {
      const char c = text_[at_];
      if (c == '\n') {
        ++line_;
      } else if (c != ' ' && c != '\t' && c != '\r') {
        return;
      }
      ++at_;
    }
  }

  void count_value() {
    if (++values_ > kMaxValues) {
      fail(
          fmt::format("has more than {} values; a JSON file tpnet reads has far fewer (is it the "
                      "right file?)",
                      kMaxValues));
    }
  }

  void value(Value& out, int depth) {
    count_value();
    out.line_ = line_;
    const char c = text_[at_];
    if (c == '{' || c == '[') {
      if (depth >= kMaxDepth) {
        fail(fmt::format("nests deeper than {} levels; a JSON file tpnet reads nests a few",
                         kMaxDepth));
      }
      ++at_;
      skip_space();
      if (c == '{') {
        out.kind_ = Value::Kind::object;
        object(out, depth + 1);
      } else {
        out.kind_ = Value::Kind::array;
        array(out, depth + 1);
      }
      return;
    }
    if (c == '"') {
      out.kind_ = Value::Kind::string;
      out.text_ = string();
      return;
    }
    for (const auto& [word, kind] :
         {std::pair{std::string_view("true"), Value::Kind::boolean},
          std::pair{std::string_view("false"), Value::Kind::boolean},
          std::pair{std::string_view("null"), Value::Kind::null},
          std::pair{std::string_view("NaN"), Value::Kind::number},
          std::pair{std::string_view("Infinity"), Value::Kind::number},
          std::pair{std::string_view("-Infinity"), Value::Kind::number}}) {
      if (text_.substr(at_, word.size()) == word) {
        out.kind_ = kind;
        out.text_ = std::string(word);
        at_ += word.size();
        return;
      }
    }
    const std::size_t start = at_;
    while (at_ < text_.size()) {
      const char d = text_[at_];
      if ((d >= '0' && d <= '9') || d == '-' || d == '+' || d == '.' || d == 'e' || d == 'E') {
        ++at_;
      } else {
        break;
      }
    }
    out.kind_ = Value::Kind::number;
    out.text_ = std::string(text_.substr(start, at_ - start));
  }

  void object(Value& out, int depth) {
    if (text_[at_] == '}') {
      ++at_;
      return;
    }
    std::vector<int> key_lines;
    for (;;) {
      skip_space();
      key_lines.push_back(line_);
      std::string key = string();
      skip_space();
      ++at_;  // ':'
      skip_space();
      out.members_.emplace_back(std::move(key), Value());
      value(out.members_.back().second, depth);
      skip_space();
      if (text_[at_++] == '}') break;
    }
    refuse_duplicate_keys(out.members_, key_lines);
  }

  /// A key twice in one object: named at its second line, the first such
  /// line in the file. modelopt's maps hold objects of tens of thousands of
  /// keys and tens of thousands of objects of two: the small ones are
  /// compared pairwise, the large ones hashed without copying a key.
  void refuse_duplicate_keys(const std::vector<std::pair<std::string, Value>>& members,
                             const std::vector<int>& key_lines) {
    const std::size_t n = members.size();
    auto refuse = [&](std::size_t first, std::size_t second) {
      const std::string& key = members[second].first;
      throw InputError(
          fmt::format("key '{}' appears twice in one JSON object, at lines {} and {}; each key "
                      "may appear once (readers disagree on which one wins)",
                      key, key_lines[first], key_lines[second]),
          InputLocation::in_file(origin_, key_lines[second], key));
    };
    constexpr std::size_t kPairwise = 16;
    if (n <= kPairwise) {
      for (std::size_t second = 1; second < n; ++second) {
        for (std::size_t first = 0; first < second; ++first) {
          if (members[first].first == members[second].first) refuse(first, second);
        }
      }
      return;
    }
    std::unordered_map<std::string_view, std::size_t> seen;
    seen.reserve(n);
    for (std::size_t i = 0; i < n; ++i) {
      const auto [at, fresh] = seen.emplace(members[i].first, i);
      if (!fresh) refuse(at->second, i);
    }
  }

  void array(Value& out, int depth) {
    if (text_[at_] == ']') {
      ++at_;
      return;
    }
    for (;;) {
      skip_space();
      out.items_.emplace_back();
      value(out.items_.back(), depth);
      skip_space();
      if (text_[at_++] == ']') return;
    }
  }

  static void append_utf8(std::string& out, unsigned code) {
    if (code < 0x80) {
      out += static_cast<char>(code);
    } else if (code < 0x800) {
      out += static_cast<char>(0xC0 | (code >> 6));
      out += static_cast<char>(0x80 | (code & 0x3F));
    } else if (code < 0x10000) {
      out += static_cast<char>(0xE0 | (code >> 12));
      out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (code & 0x3F));
    } else {
      out += static_cast<char>(0xF0 | (code >> 18));
      out += static_cast<char>(0x80 | ((code >> 12) & 0x3F));
      out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (code & 0x3F));
    }
  }

  unsigned hex4() {
    unsigned code = 0;
    for (int i = 0; i < 4; ++i) {
      const char h = text_[at_++];
      code = code * 16 + static_cast<unsigned>(h <= '9' ? h - '0' : (h | 0x20) - 'a' + 10);
    }
    return code;
  }

  /// The string at `at_` (its opening quote), unescaped.
  std::string string() {
    ++at_;
    std::string out;
    for (;;) {
      const std::size_t run = text_.find_first_of("\"\\", at_);
      out.append(text_.substr(at_, run - at_));
      at_ = run;
      if (text_[at_] == '"') {
        ++at_;
        return out;
      }
      ++at_;  // backslash
      const char e = text_[at_++];
      switch (e) {
        case 'b':
          out += '\b';
          break;
        case 'f':
          out += '\f';
          break;
        case 'n':
          out += '\n';
          break;
        case 'r':
          out += '\r';
          break;
        case 't':
          out += '\t';
          break;
        case 'u': {
          unsigned code = hex4();
          if (code >= 0xD800 && code < 0xDC00 && text_.substr(at_, 2) == "\\u") {
            at_ += 2;
            const unsigned low = hex4();
            code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00);
          }
          append_utf8(out, code);
          break;
        }
        default:
          out += e;  // " \ /
      }
    }
  }

  std::string_view text_;
  const std::string& origin_;
  std::size_t at_ = 0;
  int line_ = 1;
  std::size_t values_ = 0;
};

Value parse(std::string_view text, const std::string& origin) {
  if (text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);  // UTF-8 byte order mark
  require_strict_json(text, origin);
  return Parser(text, origin).document();
}

}  // namespace tpnet::json
