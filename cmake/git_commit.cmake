# Writes the commit the source tree is at into a header, at build time (run
# with cmake -P): OUTPUT gets
#   #define DELSM_GIT_COMMIT "<short hash>"            a clean tree
#   #define DELSM_GIT_COMMIT "<short hash>-modified"   tracked files changed
#   #define DELSM_GIT_COMMIT "unknown"                 not a git checkout
# so that what a binary reports (db_bench's Build line) names the sources it
# was built from, not the commit its build folder was configured at. The
# file is rewritten only when the text changes, so an unchanged tree
# rebuilds nothing.
# Variables: SOURCE_DIR (the checkout), OUTPUT (the header's path).
execute_process(COMMAND git -C "${SOURCE_DIR}" rev-parse --short HEAD
                OUTPUT_VARIABLE commit OUTPUT_STRIP_TRAILING_WHITESPACE
                RESULT_VARIABLE rc ERROR_QUIET)
if(NOT rc EQUAL 0 OR commit STREQUAL "")
  set(commit "unknown")
else()
  execute_process(COMMAND git -C "${SOURCE_DIR}" status --porcelain
                          --untracked-files=no
                  OUTPUT_VARIABLE changes RESULT_VARIABLE rc ERROR_QUIET)
  if(NOT rc EQUAL 0)
    set(commit "${commit}-unknown-state")
  elseif(NOT changes STREQUAL "")
    set(commit "${commit}-modified")
  endif()
endif()
set(text "#define DELSM_GIT_COMMIT \"${commit}\"\n")
if(EXISTS "${OUTPUT}")
  file(READ "${OUTPUT}" old)
else()
  set(old "")
endif()
if(NOT old STREQUAL text)
  file(WRITE "${OUTPUT}" "${text}")
endif()
