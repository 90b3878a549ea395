#pragma once
// Private helpers shared by every YAML reader: typed fields with errors that
// name the file, line and key, and a check that catches misspelled keys.

#include <yaml-cpp/yaml.h>

#include <cstddef>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>

#include "tpnet/base/error.hpp"
#include "tpnet/io/link_presets.hpp"

namespace tpnet::yaml {

/// The most values (scalars, mappings, sequences) a YAML or JSON file may
/// hold, counted in its text before it is parsed (load_document,
/// reject_duplicate_keys). yaml-cpp takes some hundreds of bytes a value,
/// 300 MB for a million zeros in a 2.2 MB JSON array; the files tpnet reads
/// hold thousands. (Here, not in tpnet/base/limits.hpp: only the readers use it.)
inline constexpr std::size_t kMaxDocumentNodes = 200000;

/// True when `node` is in the file and not null (`key:` and `key: null` are
/// absent values).
[[nodiscard]] bool present(const YAML::Node& node);

/// Which language a file is in, for its messages: JSON files are read by
/// the same parser (JSON is YAML) but are not called YAML.
enum class Syntax { yaml, json };

/// How the built-in catalogs name their origin ("built-in models/nodes/...").
inline constexpr std::string_view kBuiltinOrigin = "built-in ";

/// Parses a document; syntax errors, a key given twice in one mapping and
/// more than kMaxDocumentNodes values become InputError with the line (a
/// key twice: both lines).
YAML::Node load_document(std::string_view text, const std::string& origin,
                         Syntax syntax = Syntax::yaml);

/// Throws InputError naming both lines when a mapping of the first document
/// in `text` has a key twice: readers disagree on which one wins (yaml-cpp
/// keeps the first, Python's json the last), so neither is trusted. Reads
/// the parser's events, so aliases are never expanded. Syntax errors too,
/// a second document (after `---`, or a second JSON value) and a tag
/// (`!include`, `!!str`): no reader reads either. JSON text must also be
/// strict JSON (json::require_strict_json): every JSON reader passes here.
void reject_duplicate_keys(std::string_view text, const std::string& origin, Syntax syntax);

/// `text` (JSON, one or more top-level objects) with the value of each
/// top-level key in `keys` replaced by null, its line breaks kept so every
/// line number stays: for large arrays a reader never reads (vLLM's
/// per-request `itls`), which would otherwise take hundreds of bytes of
/// parsed node per byte. Text that is not JSON is copied as it is, for the
/// parser to refuse.
std::string without_top_level_keys(std::string_view text,
                                   std::initializer_list<std::string_view> keys);

/// The location of `node` (1-based line) for errors about `key`.
InputLocation where(const YAML::Node& node, const std::string& origin, std::string_view key);

/// Throws naming the first key of `map` not in `allowed`.
void reject_unknown_keys(const YAML::Node& map, const std::string& origin,
                         std::initializer_list<std::string_view> allowed);

/// Requires `node` to be a mapping.
void require_map(const YAML::Node& node, const std::string& origin, std::string_view what);

std::optional<std::string> optional_string(const YAML::Node& map, const std::string& origin,
                                           std::string_view key);
std::string required_string(const YAML::Node& map, const std::string& origin, std::string_view key);

/// A number in [lo, hi]. Accepts the suffixes K, M, B (10^9) and T for counts
/// of parameters when `allow_scale` is set ("753B", "1.2T").
std::optional<double> optional_number(const YAML::Node& map, const std::string& origin,
                                      std::string_view key, double lo, double hi,
                                      bool allow_scale = false);
double required_number(const YAML::Node& map, const std::string& origin, std::string_view key,
                       double lo, double hi, bool allow_scale = false);

/// A whole number in [lo, hi].
std::optional<long long> optional_integer(const YAML::Node& map, const std::string& origin,
                                          std::string_view key, long long lo, long long hi);
long long required_integer(const YAML::Node& map, const std::string& origin, std::string_view key,
                           long long lo, long long hi);

/// The value under `key` read by `parse` (parse_bit_rate, parse_bytes,
/// parse_duration, parse_link, ...) at its location; nullopt when absent.
template <typename Parse>
auto optional_quantity(const YAML::Node& map, const std::string& origin, std::string_view key,
                       Parse parse)
    -> std::optional<decltype(parse(std::string_view{}, InputLocation{}))> {
  const auto text = optional_string(map, origin, key);
  if (!text) return std::nullopt;
  return parse(*text, where(map[std::string(key)], origin, key));
}

/// As optional_quantity; a missing key is an error.
template <typename Parse>
auto required_quantity(const YAML::Node& map, const std::string& origin, std::string_view key,
                       Parse parse) {
  auto value = optional_quantity(map, origin, key, parse);
  if (!value) throw InputError("required key is missing", where(map, origin, key));
  return *value;
}

/// Runs `read` (one of the readers above, given a nested map) and puts
/// `prefix` before the key its errors name: "engine." + "max_num_seqs".
template <typename Read>
auto with_key_prefix(std::string_view prefix, Read&& read) {
  try {
    return read();
  } catch (const InputError& e) {
    InputLocation where = e.where();
    where.key = std::string(prefix) + where.key;
    throw InputError(e.detail(), where);
  }
}

}  // namespace tpnet::yaml
