#pragma once
/// calibration.yaml: reading and writing the file `tpnet calibration` writes
/// and `--calibration FILE` reads. Schema (every key, its unit) in
/// docs/calibration.md; `tpnet_calibration: 1` names the version.

#include <string>
#include <string_view>

#include "tpnet/measured/calibration.hpp"

namespace tpnet {

/// Throws InputError naming the file, line and key for: a missing or other
/// schema version, an unknown key (listing the allowed ones), a missing
/// provenance or no measurement section (allreduce, compute, traffic), a
/// missing key, a number out of range (ranks < 2, a size of 0, a time or
/// rate not positive), curve sizes not strictly increasing.
Calibration parse_calibration_yaml(std::string_view text, const std::string& origin);
Calibration load_calibration_yaml(const std::string& path);

/// The YAML text of `c`; parse_calibration_yaml reads back every value
/// exactly (numbers are written in their shortest round-trip form).
[[nodiscard]] std::string write_calibration_yaml(const Calibration& c);

}  // namespace tpnet
