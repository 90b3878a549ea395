#pragma once
// Private: one JSON document as a tree, for the readers of large JSON files
// (Hugging Face config.json and hf_quant_config.json, whose quantization
// maps run to megabytes). yaml-cpp reads such a file at about a megabyte a
// second and some hundreds of bytes a value; this reads it at hundreds of
// megabytes a second, keeping each value's line for errors.

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tpnet::json {

/// The most values one document may hold: three times the largest real
/// config.json seen (nvidia/MiniMax-M3-NVFP4's 67,072 values in 3 MB), about
/// 25 MB in this tree. The same bound as yaml::kMaxDocumentNodes.
inline constexpr std::size_t kMaxValues = 200000;
/// The deepest nesting one document may have; configs nest three or four deep.
inline constexpr int kMaxDepth = 256;

class Value {
 public:
  enum class Kind { null, boolean, number, string, array, object };

  [[nodiscard]] Kind kind() const { return kind_; }
  [[nodiscard]] int line() const { return line_; }
  [[nodiscard]] bool is_null() const { return kind_ == Kind::null; }
  [[nodiscard]] bool is_bool() const { return kind_ == Kind::boolean; }
  [[nodiscard]] bool is_number() const { return kind_ == Kind::number; }
  [[nodiscard]] bool is_string() const { return kind_ == Kind::string; }
  [[nodiscard]] bool is_array() const { return kind_ == Kind::array; }
  [[nodiscard]] bool is_object() const { return kind_ == Kind::object; }
  /// A string's text (unescaped), a number's as written, "true"/"false",
  /// "null"; empty for arrays and objects.
  [[nodiscard]] const std::string& text() const { return text_; }
  /// A number's value; nullopt for any other kind. NaN and Infinity as written.
  [[nodiscard]] std::optional<double> number() const;
  /// An array's elements.
  [[nodiscard]] const std::vector<Value>& items() const { return items_; }
  /// An object's members, in the file's order.
  [[nodiscard]] const std::vector<std::pair<std::string, Value>>& members() const {
    return members_;
  }
  /// An object's member `key`; nullptr when absent (or not an object).
  [[nodiscard]] const Value* find(std::string_view key) const;
  /// Elements of an array, members of an object, else 0.
  [[nodiscard]] std::size_t size() const {
    return kind_ == Kind::array ? items_.size() : kind_ == Kind::object ? members_.size() : 0;
  }

 private:
  friend class Parser;
  Kind kind_ = Kind::null;
  int line_ = 0;
  std::string text_;
  std::vector<Value> items_;
  std::vector<std::pair<std::string, Value>> members_;
};

/// Parses `text` as strict JSON (require_strict_json), refusing a key twice
/// in one object (both lines named), more than kMaxValues values and nesting
/// deeper than kMaxDepth; errors name `origin` and the line.
[[nodiscard]] Value parse(std::string_view text, const std::string& origin);

}  // namespace tpnet::json
