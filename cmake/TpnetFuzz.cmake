# TPNET_FUZZ=ON (the `fuzz` preset, `make fuzz`): every target is built with
# AddressSanitizer, UndefinedBehaviorSanitizer and libFuzzer's coverage
# instrumentation, and tests/fuzz adds one libFuzzer binary per input parser
# (docs/hardening.md). libFuzzer ships with clang only: clang++-14 and
# libclang-rt-14-dev on Debian 12 (scripts/install-deps.sh installs both).
if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
  message(FATAL_ERROR "TPNET_FUZZ needs clang (libFuzzer); this build uses "
                      "${CMAKE_CXX_COMPILER_ID} ${CMAKE_CXX_COMPILER}. Configure with "
                      "`cmake --preset fuzz` or -DCMAKE_CXX_COMPILER=clang++-14.")
endif()

set(TPNET_FUZZ_FLAGS -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all
                     -fno-omit-frame-pointer)
include(CheckCXXSourceCompiles)
set(CMAKE_REQUIRED_FLAGS "-fsanitize=fuzzer,address,undefined")
check_cxx_source_compiles([=[
#include <cstddef>
#include <cstdint>
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t*, std::size_t) { return 0; }
]=] TPNET_HAVE_LIBFUZZER)
unset(CMAKE_REQUIRED_FLAGS)
if(NOT TPNET_HAVE_LIBFUZZER)
  message(FATAL_ERROR "TPNET_FUZZ: ${CMAKE_CXX_COMPILER} cannot link -fsanitize=fuzzer; install "
                      "the compiler's runtime (Debian 12: libclang-rt-14-dev).")
endif()

# Everything, the library above all, carries the sanitizers and the coverage
# the fuzzer steers by; only the fuzz binaries link libFuzzer's main().
add_compile_options(${TPNET_FUZZ_FLAGS})
add_link_options(-fsanitize=address,undefined)
