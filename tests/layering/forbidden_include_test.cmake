# ctest layering.forbidden_include: the layering check (tools/layering.cmake) must fail, naming the
# file, the line and the rule, when a core module includes a third-party header or an adapter's
# header it may not use; and pass on the same files without the planted line.
#   cmake -DSOURCE=<source tree> -DWORK=<scratch dir> -P forbidden_include_test.cmake
cmake_policy(VERSION 3.18)
set(checker ${SOURCE}/tools/layering.cmake)

function(make_tree planted)
  file(REMOVE_RECURSE ${WORK})
  file(MAKE_DIRECTORY ${WORK}/src/plan ${WORK}/src/store ${WORK}/include/burst)
  file(COPY ${SOURCE}/src/store/sqlite_stmt.h DESTINATION ${WORK}/src/store)
  file(READ ${SOURCE}/src/plan/planner.cpp text)
  file(WRITE ${WORK}/src/plan/planner.cpp "${planted}${text}")
endfunction()

function(run_checker out_rc out_text)
  execute_process(COMMAND ${CMAKE_COMMAND} -DROOT=${WORK} -P ${checker}
    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  set(${out_rc} ${rc} PARENT_SCOPE)
  set(${out_text} "${out}${err}" PARENT_SCOPE)
endfunction()

make_tree("")
run_checker(rc text)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the unchanged planner.cpp was refused:\n${text}")
endif()

make_tree("#include <sqlite3.h>\n")
run_checker(rc text)
set(want "src/plan/planner.cpp:1: module 'plan' may not include <sqlite3.h> (<sqlite3>)")
if(rc EQUAL 0 OR NOT text MATCHES "layering check failed")
  message(FATAL_ERROR "<sqlite3.h> in src/plan passed the check:\n${text}")
endif()
string(FIND "${text}" "${want}" at)
if(at EQUAL -1)
  message(FATAL_ERROR "expected \"${want}\" in:\n${text}")
endif()

make_tree("// an adapter's header\n#include \"store/sqlite_stmt.h\"\n")
run_checker(rc text)
set(want "src/plan/planner.cpp:2: module 'plan' may not include \"store/sqlite_stmt.h\" (store)")
string(FIND "${text}" "${want}" at)
if(rc EQUAL 0 OR at EQUAL -1)
  message(FATAL_ERROR "expected a failure with \"${want}\" in:\n${text}")
endif()
file(REMOVE_RECURSE ${WORK})
message(STATUS "layering check: both planted includes refused with file:line and the rule")
