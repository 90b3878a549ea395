# Runs TPNET with ARGS ('|'-separated) and fails unless it exits EXPECT_EXIT.
string(REPLACE "|" ";" args "${ARGS}")
execute_process(COMMAND ${TPNET} ${args} RESULT_VARIABLE result OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT result EQUAL EXPECT_EXIT)
  message(FATAL_ERROR "expected exit ${EXPECT_EXIT}, got ${result}\n${out}\n${err}")
endif()
