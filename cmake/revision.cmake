# Writes OUT (a header defining FLYNN_REVISION) with `git describe --always --dirty` of SRC,
# or "unknown" outside a git checkout; the file is rewritten only when the text changes, so
# an unchanged revision rebuilds nothing.
set(rev "unknown")
find_package(Git QUIET)
if(GIT_FOUND AND EXISTS "${SRC}/.git")
  execute_process(COMMAND "${GIT_EXECUTABLE}" describe --always --dirty WORKING_DIRECTORY "${SRC}"
                  OUTPUT_VARIABLE out RESULT_VARIABLE rc OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  if(rc EQUAL 0 AND out)
    set(rev "${out}")
  endif()
endif()
set(text "#define FLYNN_REVISION \"${rev}\"\n")
if(EXISTS "${OUT}")
  file(READ "${OUT}" old)
endif()
if(NOT "${old}" STREQUAL "${text}")
  file(WRITE "${OUT}" "${text}")
endif()
