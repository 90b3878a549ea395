#pragma once
/// Reading whole input files, with errors that name the path and the real
/// cause, and one size limit for every input (docs/hardening.md, "Input size").

#include <cstdint>
#include <string>

#include "tpnet/error.hpp"

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
/// InputError naming `path` when it is missing, a directory, unreadable (with
/// the cause: permission, a symlink loop, ...) or larger than max_input_bytes
/// (the message names the field `input.max_bytes`).
std::string read_text_file(const std::string& path);

}  // namespace tpnet
