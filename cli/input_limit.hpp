#pragma once
// The input size limit from the environment (docs/hardening.md, "Input size").

namespace tpnet::cli {

/// Sets the library's input limit from TPNET_MAX_INPUT_BYTES when it is set;
/// throws InputError naming the variable for anything but a whole number of
/// bytes from 1 to 2^40.
void apply_input_limit_from_environment();

}  // namespace tpnet::cli
