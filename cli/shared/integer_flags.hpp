#pragma once
// Flag values are plain decimal and never empty: CLI11 alone reads `010` as
// octal 8, `0x10` as 16, `0x1p3` and `nan` as doubles, and `--flag ""` as a
// value that several commands then took for "not given".

#include <CLI/CLI.hpp>

namespace tpnet::cli {

/// Adds checks to every option of `app` and its subcommands that takes a
/// value: an empty value is refused naming the flag; an integer option
/// takes an optional sign and decimal digits without a leading zero; a
/// floating-point option takes a finite decimal number (no hexadecimal, no
/// nan or inf).
void require_decimal_integers(CLI::App& app);

/// A check that a whole-number flag lies in [lo, hi], saying both in plain
/// digits (CLI11's own range checks print doubles of 300 digits).
[[nodiscard]] CLI::Validator whole_number_in(long long lo, long long hi);

}  // namespace tpnet::cli
