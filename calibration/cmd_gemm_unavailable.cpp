// `gemm` in a build without CUDA: the subcommand exists so --help lists it,
// and running it says what is missing.

#include "calibrate_command.hpp"
#include "tpnet/base/error.hpp"

namespace tpnet::calibrate {

Subcommand setup_gemm(CLI::App& parent) {
  CLI::App* app = parent.add_subcommand(
      "gemm", "Time a model's prefill GEMMs with cuBLASLt (this build has no CUDA)");
  app->allow_extras();
  Subcommand command;
  command.app = app;
  command.run = [] {
    throw InputError(
        "built without CUDA: gemm needs the CUDA toolkit and cuBLASLt; reconfigure with "
        "-DTPNET_WITH_CUDA=ON on a machine that has them (/usr/local/cuda)",
        InputLocation::for_key("gemm"));
    return 2;
  };
  return command;
}

}  // namespace tpnet::calibrate
