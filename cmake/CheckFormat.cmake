# Fails when any C++ source differs from .clang-format. Run by ctest.
file(GLOB_RECURSE sources
  ${SOURCE_DIR}/libtpnet/*.hpp ${SOURCE_DIR}/libtpnet/*.cpp
  ${SOURCE_DIR}/cli/*.hpp ${SOURCE_DIR}/cli/*.cpp
  ${SOURCE_DIR}/tests/*.hpp ${SOURCE_DIR}/tests/*.cpp
  ${SOURCE_DIR}/calibration/*.hpp ${SOURCE_DIR}/calibration/*.cpp ${SOURCE_DIR}/calibration/*.cu)
execute_process(COMMAND ${CLANG_FORMAT} --dry-run --Werror ${sources}
  RESULT_VARIABLE result ERROR_VARIABLE diagnostics)
if(NOT result EQUAL 0)
  message(FATAL_ERROR "clang-format differences (run: make format):\n${diagnostics}")
endif()
