# Runs one example script (with the tpnet binary as $1) and fails unless its
# output matches every "# expect: REGEX" line the script carries.
file(STRINGS ${EXAMPLE} expectations REGEX "^# expect: ")
if(NOT expectations)
  message(FATAL_ERROR "${EXAMPLE} has no '# expect: REGEX' line")
endif()
# Text wraps at COLUMNS (100 when unset): the expectations are written for 100.
# It runs from WORK_DIR, outside the repository: an example finds its files
# from its own path, as a reader's `bash /path/to/examples/x.sh` does.
execute_process(COMMAND ${CMAKE_COMMAND} -E env COLUMNS=100 bash ${EXAMPLE} ${TPNET}
  WORKING_DIRECTORY ${WORK_DIR}
  RESULT_VARIABLE result OUTPUT_VARIABLE output ERROR_VARIABLE errors)
if(NOT result EQUAL 0)
  message(FATAL_ERROR "${EXAMPLE} exited ${result}:\n${errors}")
endif()
foreach(line IN LISTS expectations)
  string(REGEX REPLACE "^# expect: " "" regex "${line}")
  if(NOT output MATCHES "${regex}")
    message(FATAL_ERROR "${EXAMPLE}: output does not match '${regex}':\n${output}")
  endif()
endforeach()
message(STATUS "${EXAMPLE}: ${output}")
