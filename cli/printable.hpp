#pragma once
// Messages go to a terminal or a CI log one line each: input text quoted in
// them (a value, a file's bytes) must not move the cursor, ring, or split.

#include <string>
#include <string_view>

namespace tpnet::cli {

/// `text` with control bytes written as escapes: \n, \r, \t, \0 and \xNN
/// for the rest of C0 and DEL; bytes from 0x80 (UTF-8) are kept.
[[nodiscard]] std::string printable(std::string_view text);

/// Writes "tpnet: KIND: MESSAGE" as one line to standard error.
void report(std::string_view kind, std::string_view message);

}  // namespace tpnet::cli
