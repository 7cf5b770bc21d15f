# ctest layering.job_include_cycles: inside src/job no part includes one that includes it back
# (tools/include_cycles.cmake). The checker must refuse a planted two-part cycle with file:line,
# pass the same parts without it, and pass the real src/job.
#   cmake -DSOURCE=<source tree> -DWORK=<scratch dir> -P include_cycles_test.cmake
cmake_policy(VERSION 3.18)
set(checker ${SOURCE}/tools/include_cycles.cmake)

function(run_checker root out_rc out_text)
  execute_process(COMMAND ${CMAKE_COMMAND} -DROOT=${root} -DMODULE=job -P ${checker}
    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  set(${out_rc} ${rc} PARENT_SCOPE)
  set(${out_text} "${out}${err}" PARENT_SCOPE)
endfunction()

# A fixture: types.h (a leaf), runner.h/.cpp and phases.h; `planted` goes into phases.h.
function(make_tree planted)
  file(REMOVE_RECURSE ${WORK})
  file(WRITE ${WORK}/src/job/types.h "#pragma once\n")
  file(WRITE ${WORK}/src/job/runner.h "#pragma once\n#include \"job/types.h\"\n")
  file(WRITE ${WORK}/src/job/runner.cpp "#include \"job/runner.h\"\n\n#include \"job/phases.h\"\n")
  file(WRITE ${WORK}/src/job/phases.h "#pragma once\n#include \"job/types.h\"\n${planted}")
endfunction()

make_tree("")
run_checker(${WORK} rc text)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "parts without a cycle were refused:\n${text}")
endif()

make_tree("#include \"job/runner.h\"  // for a type\n")
run_checker(${WORK} rc text)
set(want "src/job/phases.h:3: includes job/runner.h, which includes back phases (through runner -> phases)")
string(FIND "${text}" "${want}" at)
if(rc EQUAL 0 OR at EQUAL -1)
  message(FATAL_ERROR "expected a failure with \"${want}\" in:\n${text}")
endif()
file(REMOVE_RECURSE ${WORK})

run_checker(${SOURCE} rc text)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "src/job has an include cycle:\n${text}")
endif()
message(STATUS "include cycles: a planted one refused with file:line; src/job has none")
