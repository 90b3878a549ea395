#include "yaml_fields.hpp"

#include "json_text.hpp"

#include <yaml-cpp/eventhandler.h>

#include <fmt/format.h>
#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <map>
#include <sstream>
#include <vector>

namespace tpnet::yaml {

bool present(const YAML::Node& node) { return node.IsDefined() && !node.IsNull(); }

namespace {

std::string_view language(Syntax syntax) { return syntax == Syntax::json ? "JSON" : "YAML"; }

/// Follows the parser's events, one frame per open mapping or sequence.
class DuplicateKeyCheck : public YAML::EventHandler {
 public:
  DuplicateKeyCheck(const std::string& origin, Syntax syntax) : origin_(origin), syntax_(syntax) {}

  void OnDocumentStart(const YAML::Mark& /*mark*/) override {}
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark& mark, YAML::anchor_t /*anchor*/) override {
    node(nullptr, mark.line + 1);
  }
  void OnAlias(const YAML::Mark& mark, YAML::anchor_t /*anchor*/) override {
    node(nullptr, mark.line + 1);
  }
  void OnScalar(const YAML::Mark& mark, const std::string& tag, YAML::anchor_t /*anchor*/,
                const std::string& value) override {
    refuse_tag(tag, mark);
    node(&value, mark.line + 1);
  }
  void OnSequenceStart(const YAML::Mark& mark, const std::string& tag, YAML::anchor_t /*anchor*/,
                       YAML::EmitterStyle::value /*style*/) override {
    refuse_tag(tag, mark);
    node(nullptr, mark.line + 1);
    frames_.push_back(Frame{false, true, {}});
  }
  void OnSequenceEnd() override { frames_.pop_back(); }
  void OnMapStart(const YAML::Mark& mark, const std::string& tag, YAML::anchor_t /*anchor*/,
                  YAML::EmitterStyle::value /*style*/) override {
    refuse_tag(tag, mark);
    node(nullptr, mark.line + 1);
    frames_.push_back(Frame{true, true, {}});
  }
  void OnMapEnd() override { frames_.pop_back(); }

 private:
  struct Frame {
    bool map = false;
    bool expecting_key = true;
    std::map<std::string, int> key_lines;
  };

  /// No reader gives a tag a meaning (`!include`, `!!binary`, `!!str 5`):
  /// yaml-cpp would read the text under it as if it were untagged, which is
  /// not what its writer meant. Only the parser's own marks for untagged
  /// nodes pass: "?" (plain) and "!" (quoted).
  void refuse_tag(const std::string& tag, const YAML::Mark& mark) const {
    if (tag.empty() || tag == "?" || tag == "!") return;
    const std::string shown =
        tag.rfind(kCoreTagPrefix, 0) == 0 ? "!!" + tag.substr(kCoreTagPrefix.size()) : tag;
    throw InputError(fmt::format("has the tag '{}' at line {}; tags are not read, so the value "
                                 "would not mean what it says; remove the tag",
                                 shown, mark.line + 1),
                     InputLocation::in_file(origin_, mark.line + 1));
  }

  static constexpr std::string_view kCoreTagPrefix = "tag:yaml.org,2002:";

  /// A node begins: in a mapping it is a key or a value, in turn.
  void node(const std::string* scalar, int line) {
    if (frames_.empty() || !frames_.back().map) return;
    Frame& frame = frames_.back();
    const bool key = frame.expecting_key;
    frame.expecting_key = !frame.expecting_key;
    if (!key || scalar == nullptr || *scalar == "<<") return;
    const auto [first, fresh] = frame.key_lines.emplace(*scalar, line);
    if (!fresh) {
      throw InputError(
          fmt::format("key '{}' appears twice in one {}, at lines {} and {}; each key may "
                      "appear once (readers disagree on which one wins)",
                      *scalar, syntax_ == Syntax::json ? "JSON object" : "YAML mapping",
                      first->second, line),
          InputLocation::in_file(origin_, line, *scalar));
    }
  }

  const std::string& origin_;
  Syntax syntax_;
  std::vector<Frame> frames_;
};

/// Refuses text with more than kMaxDocumentNodes values before any parser
/// sees it: yaml-cpp's scanner queues the tokens of a flow sequence and its
/// tree keeps every node, some hundreds of bytes each whatever their text.
/// Counts what can start a value outside quotes (`,` `[` `{` `:` and line
/// breaks): never fewer than the values, more where a colon sits inside a
/// plain scalar.
void require_few_values(std::string_view text, const std::string& origin, Syntax syntax) {
  std::size_t values = 0;
  int line = 1;
  char quote = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '\n') ++line;
    if (quote != 0) {
      if (c == '\\' && quote == '"') {
        ++i;
      } else if (c == quote) {
        quote = 0;
      }
      continue;
    }
    if (c == '"' || (c == '\'' && syntax == Syntax::yaml)) {
      quote = c;
      continue;
    }
    if (c == ',' || c == '[' || c == '{' || c == ':' || c == '\n') ++values;
    if (values > kMaxDocumentNodes) {
      throw InputError(fmt::format("has more than {} values; a {} file tpnet reads has far fewer "
                                   "(is it the right file?)",
                                   kMaxDocumentNodes, language(syntax)),
                       InputLocation::in_file(origin, line));
    }
  }
}

/// Notes where a document after the first begins and reads nothing else.
class SecondDocument : public YAML::EventHandler {
 public:
  int line = 0;
  void OnDocumentStart(const YAML::Mark& mark) override { line = mark.line + 1; }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark& /*mark*/, YAML::anchor_t /*anchor*/) override {}
  void OnAlias(const YAML::Mark& /*mark*/, YAML::anchor_t /*anchor*/) override {}
  void OnScalar(const YAML::Mark& /*mark*/, const std::string& /*tag*/, YAML::anchor_t /*anchor*/,
                const std::string& /*value*/) override {}
  void OnSequenceStart(const YAML::Mark& /*mark*/, const std::string& /*tag*/,
                       YAML::anchor_t /*anchor*/, YAML::EmitterStyle::value /*style*/) override {}
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark& /*mark*/, const std::string& /*tag*/, YAML::anchor_t /*anchor*/,
                  YAML::EmitterStyle::value /*style*/) override {}
  void OnMapEnd() override {}
};

}  // namespace

std::string without_top_level_keys(std::string_view text,
                                   std::initializer_list<std::string_view> keys) {
  std::string out;
  out.reserve(text.size());
  int depth = 0;
  std::size_t i = 0;
  // The end of the string that starts at `from` (its closing quote's index + 1).
  auto string_end = [&](std::size_t from) {
    std::size_t j = from + 1;
    while (j < text.size() && text[j] != '"')
      j += text[j] == '\\' ? std::size_t{2} : std::size_t{1};
    return std::min(j + 1, text.size());
  };
  while (i < text.size()) {
    const char c = text[i];
    if (c == '"') {
      const std::size_t end = string_end(i);
      out.append(text.substr(i, end - i));
      if (depth != 1 || end - i < 2) {
        i = end;
        continue;
      }
      // A key of a top-level object is followed by a colon.
      std::size_t colon = end;
      while (colon < text.size() && std::isspace(static_cast<unsigned char>(text[colon]))) ++colon;
      const std::string_view key = text.substr(i + 1, end - i - 2);
      i = end;
      if (colon >= text.size() || text[colon] != ':' ||
          std::find(keys.begin(), keys.end(), key) == keys.end()) {
        continue;
      }
      out.append(text.substr(end, colon + 1 - end));
      // Skip the value: up to the comma or brace that ends it at this depth.
      int inner = 0;
      int newlines = 0;
      std::size_t j = colon + 1;
      while (j < text.size()) {
        const char v = text[j];
        if (v == '"') {
          const std::size_t e = string_end(j);
          newlines +=
              static_cast<int>(std::count(text.begin() + static_cast<std::ptrdiff_t>(j),
                                          text.begin() + static_cast<std::ptrdiff_t>(e), '\n'));
          j = e;
          continue;
        }
        if (inner == 0 && (v == ',' || v == '}')) break;
        if (v == '[' || v == '{') ++inner;
        if (v == ']' || v == '}') --inner;
        if (v == '\n') ++newlines;
        ++j;
      }
      out += "null";
      out.append(static_cast<std::size_t>(newlines), '\n');
      i = j;
      continue;
    }
    if (c == '{' || c == '[') ++depth;
    if (c == '}' || c == ']') --depth;
    out += c;
    ++i;
  }
  return out;
}

void reject_duplicate_keys(std::string_view text, const std::string& origin, Syntax syntax) {
  require_few_values(text, origin, syntax);
  if (syntax == Syntax::json) json::require_strict_json(text, origin);
  std::istringstream in{std::string(text)};
  DuplicateKeyCheck check(origin, syntax);
  try {
    YAML::Parser parser(in);
    parser.HandleNextDocument(check);
    // Every reader reads the first document only: a budget or a key in a
    // second one (after `---`) would be dropped without a word.
    SecondDocument second;
    if (parser.HandleNextDocument(second)) {
      throw InputError(
          fmt::format("holds a second {}; only one is read, so what the second says would "
                      "be dropped; put everything in one",
                      syntax == Syntax::json ? "JSON value" : "YAML document (after `---`)"),
          InputLocation::in_file(origin, second.line));
    }
  } catch (const YAML::Exception& e) {
    throw InputError(fmt::format("is not valid {}: {}", language(syntax), e.msg),
                     InputLocation::in_file(origin, e.mark.line + 1));
  }
}

YAML::Node load_document(std::string_view text, const std::string& origin, Syntax syntax) {
  // The built-in catalogs are compiled in and checked by the test suite
  // (tests/test_catalog_files.cpp reads each file through this check), so
  // their second parse, half of a plan's time, is skipped.
  if (!origin.starts_with(kBuiltinOrigin)) reject_duplicate_keys(text, origin, syntax);
  YAML::Node root;
  try {
    root = YAML::Load(std::string(text));
  } catch (const YAML::Exception& e) {
    throw InputError(fmt::format("is not valid {}: {}", language(syntax), e.msg),
                     InputLocation::in_file(origin, e.mark.line + 1));
  }
  if (!root.IsDefined() || root.IsNull()) {
    throw InputError(syntax == Syntax::json ? "is empty; expected a JSON object"
                                            : "is empty; expected a YAML mapping of keys",
                     InputLocation::in_file(origin));
  }
  return root;
}

InputLocation where(const YAML::Node& node, const std::string& origin, std::string_view key) {
  const int line = node.Mark().is_null() ? 0 : node.Mark().line + 1;
  return InputLocation::in_file(origin, line, std::string(key));
}

void require_map(const YAML::Node& node, const std::string& origin, std::string_view what) {
  if (!node.IsMap()) {
    throw InputError("expected a mapping of keys for " + std::string(what),
                     where(node, origin, ""));
  }
}

void reject_unknown_keys(const YAML::Node& map, const std::string& origin,
                         std::initializer_list<std::string_view> allowed) {
  for (const auto& item : map) {
    const std::string key = item.first.IsScalar() ? item.first.Scalar() : std::string("?");
    bool known = false;
    for (auto name : allowed) known = known || key == name;
    if (!known) {
      std::string list;
      for (auto name : allowed) list += (list.empty() ? "" : ", ") + std::string(name);
      throw InputError("unknown key; allowed keys are " + list, where(item.first, origin, key));
    }
  }
}

namespace {

YAML::Node child(const YAML::Node& map, std::string_view key) { return map[std::string(key)]; }

[[noreturn]] void missing(const YAML::Node& map, const std::string& origin, std::string_view key) {
  InputLocation at = where(map, origin, key);
  throw InputError("required key is missing", at);
}

double scalar_number(const YAML::Node& node, const std::string& origin, std::string_view key,
                     bool allow_scale) {
  if (!node.IsScalar()) {
    throw InputError("expected a number, found a " + std::string(node.IsMap()        ? "mapping"
                                                                 : node.IsSequence() ? "list"
                                                                                     : "value"),
                     where(node, origin, key));
  }
  const std::string& text = node.Scalar();
  double value = 0.0;
  const char* first = text.data();
  const char* last = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(first, last, value);
  double scale = 1.0;
  if (ec == std::errc() && ptr != last && allow_scale && ptr + 1 == last) {
    switch (*ptr) {
      case 'K':
        scale = 1e3;
        ++ptr;
        break;
      case 'M':
        scale = 1e6;
        ++ptr;
        break;
      case 'B':
        scale = 1e9;
        ++ptr;
        break;
      case 'T':
        scale = 1e12;
        ++ptr;
        break;
      default:
        break;
    }
  }
  if (ec != std::errc() || ptr != last || ptr == first || !std::isfinite(value)) {
    throw InputError("'" + text + "' is not a number" +
                         (allow_scale ? " (a count may end in K, M, B or T, e.g. 753B)" : ""),
                     where(node, origin, key));
  }
  return value * scale;
}

}  // namespace

std::optional<std::string> optional_string(const YAML::Node& map, const std::string& origin,
                                           std::string_view key) {
  const YAML::Node node = child(map, key);
  if (!present(node)) return std::nullopt;
  if (!node.IsScalar()) throw InputError("expected text", where(node, origin, key));
  return node.Scalar();
}

std::string required_string(const YAML::Node& map, const std::string& origin,
                            std::string_view key) {
  auto value = optional_string(map, origin, key);
  if (!value) missing(map, origin, key);
  if (value->empty()) throw InputError("must not be empty", where(child(map, key), origin, key));
  return *value;
}

std::optional<double> optional_number(const YAML::Node& map, const std::string& origin,
                                      std::string_view key, double lo, double hi,
                                      bool allow_scale) {
  const YAML::Node node = child(map, key);
  if (!present(node)) return std::nullopt;
  const double value = scalar_number(node, origin, key, allow_scale);
  if (value < lo || value > hi) {
    throw InputError(fmt::format("{} is out of range; allowed {:g} to {:g}", node.Scalar(), lo, hi),
                     where(node, origin, key));
  }
  return value;
}

double required_number(const YAML::Node& map, const std::string& origin, std::string_view key,
                       double lo, double hi, bool allow_scale) {
  auto value = optional_number(map, origin, key, lo, hi, allow_scale);
  if (!value) missing(map, origin, key);
  return *value;
}

std::optional<long long> optional_integer(const YAML::Node& map, const std::string& origin,
                                          std::string_view key, long long lo, long long hi) {
  const YAML::Node node = child(map, key);
  if (!present(node)) return std::nullopt;
  const double value = scalar_number(node, origin, key, false);
  if (value != std::floor(value)) {
    throw InputError("'" + node.Scalar() + "' must be a whole number", where(node, origin, key));
  }
  // `tp: 010` is 10 here but 8 to YAML 1.1 readers (PyYAML): the flag
  // refuses it, and so does every file.
  std::string_view digits = node.Scalar();
  if (!digits.empty() && (digits.front() == '-' || digits.front() == '+')) digits.remove_prefix(1);
  if (digits.size() > 1 && digits.front() == '0' &&
      digits.find_first_not_of("0123456789") == std::string_view::npos) {
    throw InputError(
        fmt::format("'{}' has a leading zero (some tools read it as octal); write {:.0f}",
                    node.Scalar(), value),
        where(node, origin, key));
  }
  if (value < static_cast<double>(lo) || value > static_cast<double>(hi)) {
    throw InputError(fmt::format("{} is out of range; allowed {} to {}", node.Scalar(), lo, hi),
                     where(node, origin, key));
  }
  return static_cast<long long>(value);
}

long long required_integer(const YAML::Node& map, const std::string& origin, std::string_view key,
                           long long lo, long long hi) {
  auto value = optional_integer(map, origin, key, lo, hi);
  if (!value) missing(map, origin, key);
  return *value;
}

}  // namespace tpnet::yaml
