# Writes OUT with the current git commit, touching it only when the commit changed.
# WB_COMMIT in the environment wins: a copy of the tree on a GPU machine may carry a stale .git
# (the device tool's copy did: its HEAD was the session's first commit), and the caller knows
# which commit it copied. Otherwise git names it, with "-dirty" for uncommitted changes.
if(DEFINED ENV{WB_COMMIT} AND NOT "$ENV{WB_COMMIT}" STREQUAL "")
  set(c "$ENV{WB_COMMIT}")
else()
  execute_process(COMMAND git -C "${SRC}" rev-parse --short=12 HEAD OUTPUT_VARIABLE c
                  OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE r)
  if(NOT r EQUAL 0 OR c STREQUAL "")
    set(c "unknown")
  else()
    execute_process(COMMAND git -C "${SRC}" status --porcelain --untracked-files=no
                    OUTPUT_VARIABLE d OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
    if(NOT d STREQUAL "")
      set(c "${c}-dirty")
    endif()
  endif()
endif()
set(text "namespace wb { const char* build_commit() { return \"${c}\"; } }\n")
if(EXISTS "${OUT}")
  file(READ "${OUT}" old)
endif()
if(NOT "${old}" STREQUAL "${text}")
  file(WRITE "${OUT}" "${text}")
endif()
