# Writes OUT with the current git commit, touching it only when the commit changed.
execute_process(COMMAND git -C "${SRC}" rev-parse --short=12 HEAD OUTPUT_VARIABLE c
                OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE r)
if(NOT r EQUAL 0 OR c STREQUAL "")
  # No git (e.g. a copy of the tree on a GPU machine): the caller may name the commit.
  if(DEFINED ENV{WB_COMMIT})
    set(c "$ENV{WB_COMMIT}")
  else()
    set(c "unknown")
  endif()
endif()
execute_process(COMMAND git -C "${SRC}" status --porcelain --untracked-files=no
                OUTPUT_VARIABLE d OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
if(NOT d STREQUAL "")
  set(c "${c}-dirty")
endif()
set(text "namespace wb { const char* build_commit() { return \"${c}\"; } }\n")
if(EXISTS "${OUT}")
  file(READ "${OUT}" old)
endif()
if(NOT "${old}" STREQUAL "${text}")
  file(WRITE "${OUT}" "${text}")
endif()
