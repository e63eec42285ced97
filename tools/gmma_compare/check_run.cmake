# cmake -DTOOL=... -DARGS=a|b|c -DEXPECT_RC=N -DEXPECT_REGEX=... -P check_run.cmake
# Runs TOOL with ARGS; fails unless the exit status is EXPECT_RC and the combined output
# matches EXPECT_REGEX (newlines in the output are treated as spaces).
string(REPLACE "|" ";" args "${ARGS}")
execute_process(COMMAND ${TOOL} ${args} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
set(all "${out}${err}")
message("${all}")
string(REPLACE "\n" " " flat "${all}")
if(NOT "${rc}" STREQUAL "${EXPECT_RC}")
  message(FATAL_ERROR "exit status ${rc}, expected ${EXPECT_RC}")
endif()
if(NOT flat MATCHES "${EXPECT_REGEX}")
  message(FATAL_ERROR "output does not match: ${EXPECT_REGEX}")
endif()
