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

/// How doctor and calibration read an nccl-tests log and which of it they
/// fit: --ranks, --min-size, --max-size, --partial and --collective.
struct SweepReadFlags {
  int ranks = 0;
  const CLI::Option* ranks_flag = nullptr;  ///< given at all: --ranks 0 is refused, not unset
  std::string min_size;
  std::string max_size;
  bool partial = false;
  std::string collective;

  [[nodiscard]] NcclTestsReadOptions read_options() const;
  [[nodiscard]] std::optional<int> given_ranks() const;
  [[nodiscard]] FitRange range() const;
};

/// Adds those flags to `app` in `group`.
void add_sweep_read_flags(CLI::App* app, SweepReadFlags& flags, const std::string& group);

}  // namespace tpnet::cli
