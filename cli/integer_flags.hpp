#pragma once
// Integer flags are decimal: CLI11 alone reads `010` as octal 8 and `0x10` as 16.

#include <CLI/CLI.hpp>

namespace tpnet::cli {

/// Adds a check to every integer option of `app` and its subcommands that
/// refuses anything but an optional sign and decimal digits without a
/// leading zero, naming the flag and the value.
void require_decimal_integers(CLI::App& app);

/// A check that a whole-number flag lies in [lo, hi], saying both in plain
/// digits (CLI11's own range checks print doubles of 300 digits).
[[nodiscard]] CLI::Validator whole_number_in(long long lo, long long hi);

}  // namespace tpnet::cli
