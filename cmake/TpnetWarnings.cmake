# One place for warning flags, so g++ and clang builds agree on what is clean.
function(tpnet_set_warnings target)
  if(CMAKE_CXX_COMPILER_ID MATCHES "GNU|Clang")
    target_compile_options(${target} PRIVATE
      -Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wsign-conversion
      -Wold-style-cast -Wnon-virtual-dtor -Woverloaded-virtual -Wnull-dereference
      -Wdouble-promotion -Wformat=2 -Wimplicit-fallthrough)
    if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_CXX_COMPILER_VERSION VERSION_LESS 13)
      # GCC 12 at -O2 reports "literal" + std::string as an overlapping memcpy
      # inside libstdc++ (GCC bug 105651, fixed in 13): a false positive.
      target_compile_options(${target} PRIVATE -Wno-restrict)
    endif()
    if(TPNET_WARNINGS_AS_ERRORS)
      target_compile_options(${target} PRIVATE -Werror)
    endif()
  endif()
  if(TPNET_SANITIZE)
    target_compile_options(${target} PRIVATE -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all)
    target_link_options(${target} PRIVATE -fsanitize=address,undefined)
    # A position-independent sanitized binary carries millions of relative
    # relocations (UBSan's check-site records, ASan's global descriptors) that
    # the loader applies at every start: 5.5 million, about 0.6 s of CPU, in
    # tpnet_tests, which the suite starts once per test and whose CLI tests
    # start tpnet hundreds of times. Linked at a fixed address they are resolved
    # by the linker.
    get_target_property(type ${target} TYPE)
    if(type STREQUAL "EXECUTABLE")
      target_link_options(${target} PRIVATE -no-pie)
    endif()
  endif()
endfunction()

# The unity build (TPNET_UNITY_BUILD, top-level CMakeLists.txt) for one of the
# project's libraries. File-local names must therefore be unique within a
# library: two helpers of one name in anonymous namespaces of two files of a
# batch are a redefinition. Batches hold 16 files, or LARGE_BATCH files with
# TPNET_UNITY_LARGE_BATCHES: each library then chooses its own, so that on two
# cores the batches finish together (libtpnet in three, the CLI in one).
function(tpnet_unity_build target)
  cmake_parse_arguments(PARSE_ARGV 1 unity "" "LARGE_BATCH" "")
  if(TPNET_UNITY_BUILD)
    set(size 16)
    if(TPNET_UNITY_LARGE_BATCHES AND unity_LARGE_BATCH)
      set(size ${unity_LARGE_BATCH})
    endif()
    set_target_properties(${target} PROPERTIES UNITY_BUILD ON UNITY_BUILD_BATCH_SIZE ${size})
  endif()
endfunction()

# -O0 for a test binary's own files, after the build type's flags (the last
# -O wins); see tests/CMakeLists.txt for the measurement.
function(tpnet_unoptimised_test_code target)
  if(CMAKE_CXX_COMPILER_ID MATCHES "GNU|Clang")
    target_compile_options(${target} PRIVATE -O0)
  endif()
endfunction()
