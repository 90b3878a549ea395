#pragma once
/// Reading whole input files, with errors that name the path and the real
/// cause, and one size limit for every input (docs/hardening.md, "Input size").

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "tpnet/base/error.hpp"

namespace tpnet {

/// The default limit on one input file: 256 MiB, far above any config, log
/// or a day of 1 ms counter reads, and a bound on what a reader may take.
inline constexpr std::uint64_t kDefaultMaxInputBytes = std::uint64_t{256} << 20;

/// The limit every read_text_file enforces while reading (so a device or a
/// FIFO that never ends stops there). Set once by the program (the CLI takes
/// it from TPNET_MAX_INPUT_BYTES); not meant to change while reading.
[[nodiscard]] std::uint64_t max_input_bytes();
void set_max_input_bytes(std::uint64_t bytes);

/// The file's bytes, a leading UTF-8 byte-order mark removed. Throws
/// InputError naming `path` when it is missing, a directory, not a regular
/// file (a FIFO, which would wait for a writer forever; a device, which may
/// never end; a socket), unreadable (with the cause: permission, a symlink
/// loop, ...) or larger than max_input_bytes (the message names the field
/// `input.max_bytes`). Opened without blocking, so a FIFO put in place of a
/// checked file cannot hang it either.
std::string read_text_file(const std::string& path);

/// read_text_file with a smaller limit of its own kind (a sysfs attribute, a
/// saved preflight file): larger is refused naming `path` and `limit`.
std::string read_text_file(const std::string& path, std::uint64_t limit);

/// The length of the UTF-8 sequence at `text[at]` (1 for ASCII), or 0 when
/// the bytes there are not UTF-8 as RFC 3629 allows it: a stray
/// continuation byte, a sequence cut short, an overlong form, a surrogate,
/// or past U+10FFFF. The one check shared by the JSON reader and the
/// printing of names.
[[nodiscard]] std::size_t utf8_sequence_length(std::string_view text, std::size_t at);

/// Files this process read (read_text_file, or note_input_file), so that an
/// output never replaces one of its inputs (docs/hardening.md, "Outputs
/// that are not theirs to replace"). Identified by device and inode: two
/// paths to one file are one input.
void note_input_file(const std::string& path);
/// The path an input with this device and inode was read as, if any.
[[nodiscard]] std::optional<std::string> input_read_as(std::uint64_t device, std::uint64_t inode);

}  // namespace tpnet
