# Makes the samples in testdata/ with flynn-gmma-compare (docs/calibration.md):
#
#   cmake -DTOOL=build/tools/gmma_compare/flynn-gmma-compare \
#         -DOUT_DIR=tools/gmma_compare/testdata -P tools/gmma_compare/make_testdata.cmake
#
#   synthetic_sample.txt     --synthesize: D from the model itself (labelled SYNTHETIC inside)
#   synthetic_flipped_bit.txt  the same with bit 0 of D[5][17] of bf16_m64n64k16 flipped
#   malformed_sample.txt     synthetic_sample.txt with the last value of the first 'd 5' row
#                            removed and a comment line saying so
#
# With -DCOMPARE_WITH=DIR, also checks that the files equal those in DIR.
foreach(v TOOL OUT_DIR)
  if(NOT DEFINED ${v})
    message(FATAL_ERROR "${v} is not set")
  endif()
endforeach()
file(MAKE_DIRECTORY ${OUT_DIR})

function(run_tool)
  execute_process(COMMAND ${TOOL} ${ARGN} RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${TOOL} ${ARGN}: exit status ${rc}")
  endif()
endfunction()

run_tool(--synthesize ${OUT_DIR}/synthetic_sample.txt)
run_tool(--synthesize ${OUT_DIR}/synthetic_flipped_bit.txt --flip-bit bf16_m64n64k16:5:17:0)

file(READ ${OUT_DIR}/synthetic_sample.txt text)
string(FIND "${text}" "\nd 5 " row)
if(row EQUAL -1)
  message(FATAL_ERROR "no 'd 5' row in the synthetic sample")
endif()
math(EXPR row_at "${row} + 1")           # the row starts after the newline
string(SUBSTRING "${text}" ${row_at} -1 rest1)
string(FIND "${rest1}" "\n" row_len)
string(SUBSTRING "${rest1}" 0 ${row_len} row_text)
string(REGEX REPLACE " [0-9a-f]+$" "" short_row "${row_text}")
set(head_len ${row_at})
string(SUBSTRING "${text}" 0 ${head_len} head)
math(EXPR tail_at "${head_len} + ${row_len}")
string(SUBSTRING "${text}" ${tail_at} -1 tail)
string(FIND "${head}" "\n" first_nl)
math(EXPR after_first "${first_nl} + 1")
string(SUBSTRING "${head}" 0 ${after_first} line1)
string(SUBSTRING "${head}" ${after_first} -1 head_rest)
set(note "# MALFORMED SAMPLE (tests error reporting): synthetic_sample.txt with the last value of the first 'd 5' row removed.\n")
file(WRITE ${OUT_DIR}/malformed_sample.txt "${line1}${note}${head_rest}${short_row}${tail}")

if(DEFINED COMPARE_WITH)
  foreach(f synthetic_sample.txt synthetic_flipped_bit.txt malformed_sample.txt)
    execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files ${OUT_DIR}/${f} ${COMPARE_WITH}/${f} RESULT_VARIABLE rc)
    if(NOT rc EQUAL 0)
      message(FATAL_ERROR "${OUT_DIR}/${f} differs from ${COMPARE_WITH}/${f}: regenerate testdata/ with make_testdata.cmake")
    endif()
  endforeach()
endif()
