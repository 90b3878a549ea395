#pragma once
// Flags shared by the commands that fit an all-reduce sweep (doctor,
// calibration): which rank count to fit with and which sizes to fit.

#include <string>
#include <vector>

#include "tpnet/io/nccl_tests.hpp"
#include "tpnet/measured/allreduce_fit.hpp"

namespace tpnet::cli {

/// `--ranks` as the request has it: absent when 0 (not given).
[[nodiscard]] std::optional<int> ranks_from_flag(int ranks);

/// `--min-size` / `--max-size`; an empty text leaves that end open.
FitRange fit_range_from_flags(const std::string& min_size, const std::string& max_size);

}  // namespace tpnet::cli
