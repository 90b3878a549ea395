#pragma once
// Flags shared by the commands that fit an all-reduce sweep (doctor,
// calibration): which rank count to fit with and which sizes to fit.

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

#include "tpnet/io/nccl_tests.hpp"
// FitRange and Collective as the doctor and calibration requests take them.
#include "tpnet/usecase/doctor.hpp"

namespace tpnet::cli {

/// `--ranks` as the request has it: absent only when the flag is not given,
/// so `--ranks 0` reaches the library and is refused there.
[[nodiscard]] std::optional<int> given_ranks(int ranks, const CLI::Option* flag);

/// `--min-size` / `--max-size`; an empty text leaves that end open.
FitRange fit_range_from_flags(const std::string& min_size, const std::string& max_size);

/// `--collective NAME` (all_reduce, all_gather, ...): absent when empty;
/// exit 2 naming the flag for a name nccl-tests does not have.
[[nodiscard]] std::optional<Collective> collective_from_flag(const std::string& name);

/// Adds `--collective` to a command that reads an nccl-tests log.
void add_collective_option(CLI::App* app, std::string& collective);

}  // namespace tpnet::cli
