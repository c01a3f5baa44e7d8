# `docs` target: Doxygen HTML (README as the main page, one page per chapter, the API of common/
# and kernels/, kernel code through \snippet). Warnings go to build/docs/warnings.log; the target
# fails when that log is not empty, so the docs stay warning-free.
find_package(Doxygen QUIET)
if(DOXYGEN_FOUND)
  set(WB_DOCS_OUT ${CMAKE_BINARY_DIR}/docs)
  configure_file(${CMAKE_SOURCE_DIR}/docs/Doxyfile.in ${WB_DOCS_OUT}/Doxyfile @ONLY)
  add_custom_target(docs
    COMMAND ${CMAKE_COMMAND} -E rm -f ${WB_DOCS_OUT}/warnings.log
    COMMAND ${DOXYGEN_EXECUTABLE} ${WB_DOCS_OUT}/Doxyfile
    COMMAND ${CMAKE_COMMAND} -DLOG=${WB_DOCS_OUT}/warnings.log -P ${CMAKE_SOURCE_DIR}/cmake/check_empty.cmake
    WORKING_DIRECTORY ${CMAKE_SOURCE_DIR}
    COMMENT "Doxygen HTML in ${WB_DOCS_OUT}/html"
    VERBATIM)
  if(WB_BUILD_TESTS)
    add_test(NAME "cpu: docs build without warnings"
             COMMAND ${CMAKE_COMMAND} --build ${CMAKE_BINARY_DIR} --target docs)
    set_tests_properties("cpu: docs build without warnings" PROPERTIES LABELS cpu TIMEOUT 600)
  endif()
else()
  add_custom_target(docs COMMAND ${CMAKE_COMMAND} -E echo "Doxygen not found: install 'doxygen'" COMMAND false)
endif()
