#pragma once
/// Messages go to a terminal or a CI log one line each: input text quoted in
/// them (a value, a file's bytes) must not move the cursor, ring, or split.
/// The same holds for names shown in tables (a model's name from its
/// config.json, a config key from a vllm bench result).

#include <cstddef>
#include <string>
#include <string_view>

namespace tpnet {

/// `text` with control bytes written as escapes: \n, \r, \t, \0 and \xNN
/// for the rest of C0, DEL, the C1 controls (U+0080..U+009F, which a
/// terminal may take as escape sequences) and every byte that is not part
/// of valid UTF-8; valid UTF-8 otherwise is kept.
[[nodiscard]] std::string printable(std::string_view text);

/// The longest message report() writes, in bytes before escaping: room for
/// any message tpnet makes, far less than a 10 MB value quoted in one.
inline constexpr std::size_t kLongestMessage = 4096;

/// `text` itself when at most `most` bytes; else its head and tail with
/// "[... N bytes cut ...]" between (the head names the flag or file, the
/// tail often says what is allowed), never splitting a UTF-8 sequence.
[[nodiscard]] std::string clipped(std::string_view text, std::size_t most);

}  // namespace tpnet
