# One ctest entry per GoogleTest suite (BURST_TEST_PER_SUITE, docs/testing.md): included by ctest
# when it starts (TEST_INCLUDE_FILES), it lists the test program's tests and adds, for each suite
# whose name does not match EXCLUDE, `PROGRAM --gtest_filter=Suite.*` named `Suite.*`, with COST
# the number of its tests (so a clean clone starts the big suites first) and TIMEOUT seconds.
# Why: under ASan every process start maps the shadow memory and every exit runs the leak check,
# about 0.14 CPU s and 0.34 s of wall time each; one process per test paid that 870 times for
# tests that take milliseconds. GoogleTest runs a suite's tests in one process by design.
# Variables set by the file that includes this one: PROGRAM, EXCLUDE (a regex), TIMEOUT.
if(NOT EXISTS "${PROGRAM}")
  add_test(burst_tests_NOT_BUILT "${PROGRAM}")
  return()
endif()
execute_process(COMMAND "${PROGRAM}" --gtest_list_tests
  OUTPUT_VARIABLE listing RESULT_VARIABLE rc TIMEOUT 60)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${PROGRAM} --gtest_list_tests failed (${rc})")
endif()
# A suite line is its name and a dot at column 0 (a typed suite adds "  # TypeParam = ...");
# a test line starts with two spaces. Parameter values after '#' are not read.
string(REPLACE ";" "," listing "${listing}")
string(REPLACE "\n" ";" lines "${listing}")
set(suite "")
set(suites "")
foreach(line IN LISTS lines)
  if(line MATCHES "^([A-Za-z_][A-Za-z0-9_/]*)\\.( |$)")
    set(suite "${CMAKE_MATCH_1}")
    if(suite MATCHES "${EXCLUDE}")
      set(suite "")
    else()
      list(APPEND suites "${suite}")
      set(count_${suite} 0)
    endif()
  elseif(suite AND line MATCHES "^  [^ ]")
    math(EXPR count_${suite} "${count_${suite}} + 1")
  endif()
endforeach()
foreach(suite IN LISTS suites)
  add_test("${suite}.*" "${PROGRAM}" "--gtest_filter=${suite}.*")
  set_tests_properties("${suite}.*" PROPERTIES TIMEOUT ${TIMEOUT} COST ${count_${suite}})
endforeach()
