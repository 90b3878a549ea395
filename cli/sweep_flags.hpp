#pragma once
// Flags shared by the commands that fit an all-reduce sweep (doctor,
// calibration): which rank count to fit with and which sizes to fit.

#include <string>
#include <vector>

#include "tpnet/io/nccl_tests.hpp"
#include "tpnet/measured/allreduce_fit.hpp"

namespace tpnet::cli {

/// The rank count to fit with: `--ranks` when given (>= 2; a warning when it
/// differs from the file), else the file's own; InputError when neither says.
int sweep_ranks(const AllReduceSweep& sweep, int flag_ranks, const std::string& path,
                std::vector<std::string>& warnings);

/// `--min-size` / `--max-size`; an empty text leaves that end open.
FitRange fit_range_from_flags(const std::string& min_size, const std::string& max_size);

}  // namespace tpnet::cli
