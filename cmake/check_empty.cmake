# Fails (with the content) when the file LOG exists and is not empty.
if(EXISTS "${LOG}")
  file(READ "${LOG}" content)
  if(NOT content STREQUAL "")
    message(FATAL_ERROR "Doxygen warnings:\n${content}")
  endif()
endif()
