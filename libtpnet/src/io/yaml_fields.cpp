#include "yaml_fields.hpp"

#include "json_text.hpp"

#include <yaml-cpp/eventhandler.h>

#include <fmt/format.h>
#include <charconv>
#include <cmath>
#include <map>
#include <sstream>
#include <vector>

namespace tpnet::yaml {

namespace {

std::string_view language(Syntax syntax) { return syntax == Syntax::json ? "JSON" : "YAML"; }

/// Follows the parser's events, one frame per open mapping or sequence.
class DuplicateKeyCheck : public YAML::EventHandler {
 public:
  DuplicateKeyCheck(const std::string& origin, Syntax syntax) : origin_(origin), syntax_(syntax) {}

  void OnDocumentStart(const YAML::Mark& /*mark*/) override {}
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark& /*mark*/, YAML::anchor_t /*anchor*/) override { node(nullptr); }
  void OnAlias(const YAML::Mark& /*mark*/, YAML::anchor_t /*anchor*/) override { node(nullptr); }
  void OnScalar(const YAML::Mark& mark, const std::string& tag, YAML::anchor_t /*anchor*/,
                const std::string& value) override {
    refuse_tag(tag, mark);
    node(&value, mark.line + 1);
  }
  void OnSequenceStart(const YAML::Mark& mark, const std::string& tag, YAML::anchor_t /*anchor*/,
                       YAML::EmitterStyle::value /*style*/) override {
    refuse_tag(tag, mark);
    node(nullptr);
    frames_.push_back(Frame{false, true, {}});
  }
  void OnSequenceEnd() override { frames_.pop_back(); }
  void OnMapStart(const YAML::Mark& mark, const std::string& tag, YAML::anchor_t /*anchor*/,
                  YAML::EmitterStyle::value /*style*/) override {
    refuse_tag(tag, mark);
    node(nullptr);
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
  void node(const std::string* scalar, int line = 0) {
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

void reject_duplicate_keys(std::string_view text, const std::string& origin, Syntax syntax) {
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
  reject_duplicate_keys(text, origin, syntax);
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

bool present(const YAML::Node& node) { return node.IsDefined() && !node.IsNull(); }

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
