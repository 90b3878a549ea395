# Runs every `tpnet check ...` command of a workflow snippet with the built
# binary, from the source tree, and fails when one exits non-zero.
file(STRINGS ${WORKFLOW} lines REGEX "tpnet check ")
if(NOT lines)
  message(FATAL_ERROR "${WORKFLOW} has no 'tpnet check' line")
endif()
foreach(line IN LISTS lines)
  string(REGEX REPLACE ".*tpnet check ([^ >]+).*" "\\1" plan "${line}")
  execute_process(COMMAND ${TPNET} check ${plan} --format markdown WORKING_DIRECTORY ${SOURCE_DIR}
                  RESULT_VARIABLE result OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT result EQUAL 0)
    message(FATAL_ERROR "'tpnet check ${plan}' exited ${result}:\n${out}\n${err}")
  endif()
endforeach()
