#pragma once
// The one check every JSON reader makes before yaml-cpp reads the text:
// yaml-cpp reads JSON as YAML, so on its own it takes what JSON is not.

#include <string>
#include <string_view>

namespace tpnet::json {

/// Throws InputError naming `origin` and the line when `text` is not one
/// JSON value as RFC 8259 writes it, surrounded only by whitespace: text
/// after the value (a second document, garbage), a trailing comma, a
/// single-quoted or unquoted string, a comment, a control character in a
/// string, a bad escape, a malformed number, or bytes that are not UTF-8.
/// NaN, Infinity and -Infinity pass: Python's json writes them and real
/// Hugging Face configs hold them (the readers' range checks judge them).
/// Text of only whitespace passes: its reader says what it expected.
void require_strict_json(std::string_view text, const std::string& origin);

}  // namespace tpnet::json
