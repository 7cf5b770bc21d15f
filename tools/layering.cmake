# The layering check: which module may include which, in one table. Run by the build before any
# module compiles (CMakeLists.txt, target burst_layering) and by ctest on a planted violation
# (tests/layering/). A forbidden include fails with "file:line: rule".
#
#   cmake -DROOT=<source tree> [-DSTAMP=<file written on success>] -P tools/layering.cmake
#
# A file's module is its directory: include/burst and src/util are "contracts", src/<dir> is
# <dir>, providers/** is "providers". Quoted includes are resolved like the compiler does (the
# file's directory, then include/, src/, providers/); angle includes are checked only when they
# name a third-party library below. Standard and system headers are free.
# Data flows one way: spec -> plan -> job runner -> providers/remote -> store -> report.

# --- What each module may include: modules, and third-party libraries (in angle brackets). ---
# Contracts: interfaces, value types and small utilities; nothing third-party.
set(ALLOW_contracts "")
# Adapters: one third-party library each, behind a header of our own.
set(ALLOW_json      "contracts;<nlohmann>")
set(ALLOW_crypto    "contracts;<openssl>")
set(ALLOW_http      "contracts;<curl>")
set(ALLOW_remote    "contracts;<libssh>")
set(ALLOW_store     "contracts;<sqlite3>;<libpq>")
set(ALLOW_yaml      "contracts;<yaml>")                # the YAML field reader, the spec writer
set(ALLOW_spec      "contracts;schedule;yaml")         # the spec file's reader
set(ALLOW_config    "contracts;yaml")                  # config.yaml
# Pure core: contracts, the core modules upstream of it, and adapters whose headers are our own
# (json's JsonValue, crypto's Sha256); never a third-party header.
set(ALLOW_schedule  "contracts")
set(ALLOW_image     "contracts;json")              # registry answers (image/registry_parse.h)
set(ALLOW_cost      "contracts")
set(ALLOW_plan      "contracts;cost;json")
set(ALLOW_sync      "contracts;crypto")
set(ALLOW_report    "contracts;plan;schedule;json")
set(ALLOW_job       "contracts;plan;sync")  # the runner writes no report (app/finish.h does)
# Providers: each driver talks HTTP (and JSON) to its cloud and SSH to its pods.
set(ALLOW_providers "contracts;http;crypto;remote;config;cost;json;<nlohmann>")
# The use cases, which both front ends call.
set(ALLOW_app       "contracts;image;spec;config;cost;plan;job;report;sync;schedule;store;remote;http;crypto;json;providers")
# What both front ends share about burstd: burstd.yaml, its client, the dashboard's session.
set(ALLOW_client    "contracts;config;providers;yaml")
# The front ends: option parsing, printing, burstd's server. The CLI reaches burstd through
# client, never daemon.
set(ALLOW_cli       "contracts;image;spec;config;cost;plan;job;report;sync;schedule;store;remote;http;crypto;json;providers;app;client;<nlohmann>;<CLI11>")
set(ALLOW_daemon    "contracts;image;spec;config;cost;plan;job;report;sync;schedule;store;remote;http;crypto;json;providers;app;client;yaml;<nlohmann>;<httplib>;<spdlog>;<CLI11>")

# --- Known exceptions, each to be removed by the work it names: "file regex@allowed@why". ---
set(EXCEPTIONS)  # none left: issue 16 item 5 moved the catalog's YAML reader to src/config

# Third-party libraries by header: "regex@name".
set(THIRD_PARTY
  "^nlohmann/@nlohmann" "^yaml\\.h$@yaml" "^sqlite3(ext)?\\.h$@sqlite3" "^libpq-fe\\.h$@libpq"
  "^libssh/@libssh"
  "^curl/@curl" "^httplib\\.h$@httplib" "^(spdlog|fmt)/@spdlog" "^openssl/@openssl" "^CLI/@CLI11"
  "^(gtest|gmock)/@gtest")

cmake_policy(VERSION 3.18)
if(NOT ROOT)
  message(FATAL_ERROR "layering.cmake: -DROOT=<source tree> is required")
endif()

function(module_of rel out)
  if(rel MATCHES "^include/burst/" OR rel MATCHES "^src/util/")
    set(m contracts)
  elseif(rel MATCHES "^src/([^/]+)/")
    set(m ${CMAKE_MATCH_1})
  elseif(rel MATCHES "^providers/")
    set(m providers)
  else()
    set(m "")
  endif()
  set(${out} "${m}" PARENT_SCOPE)
endfunction()

file(GLOB_RECURSE files RELATIVE ${ROOT}
  ${ROOT}/include/*.h ${ROOT}/src/*.h ${ROOT}/src/*.cpp ${ROOT}/providers/*.h ${ROOT}/providers/*.cpp)
list(SORT files)
set(problems "")
set(count 0)
foreach(rel ${files})
  module_of("${rel}" mod)
  if(NOT DEFINED ALLOW_${mod})
    string(APPEND problems "${rel}:1: module '${mod}' is not in the layering table "
      "(tools/layering.cmake): add it with what it may include\n")
    math(EXPR count "${count} + 1")
    continue()
  endif()
  get_filename_component(dir "${rel}" DIRECTORY)
  file(READ "${ROOT}/${rel}" text)
  # One list element per line: neutralise CMake's list syntax first.
  string(REPLACE ";" "," text "${text}")
  string(REPLACE "[" "(" text "${text}")
  string(REPLACE "]" ")" text "${text}")
  string(REPLACE "\\" "/" text "${text}")
  string(REPLACE "\n" ";" lines "${text}")
  set(n 0)
  foreach(line IN LISTS lines)
    math(EXPR n "${n} + 1")
    if(NOT line MATCHES "^[ \t]*#[ \t]*include[ \t]*([<\"])([^>\"]+)[>\"]")
      continue()
    endif()
    set(kind "${CMAKE_MATCH_1}")
    set(name "${CMAKE_MATCH_2}")
    set(target "")
    if(kind STREQUAL "<")
      foreach(entry ${THIRD_PARTY})
        string(REPLACE "@" ";" parts "${entry}")
        list(GET parts 0 re)
        list(GET parts 1 lib)
        if(name MATCHES "${re}")
          set(target "<${lib}>")
          break()
        endif()
      endforeach()
      set(shown "<${name}>")
    else()
      foreach(base "${dir}" include src providers)
        if(EXISTS "${ROOT}/${base}/${name}")
          file(RELATIVE_PATH resolved "${ROOT}" "${ROOT}/${base}/${name}")
          module_of("${resolved}" target)
          break()
        endif()
      endforeach()
      set(shown "\"${name}\"")
    endif()
    if(target STREQUAL "" OR target STREQUAL mod)
      continue()
    endif()
    if(target IN_LIST ALLOW_${mod})
      continue()
    endif()
    set(excused FALSE)
    foreach(entry ${EXCEPTIONS})
      string(REPLACE "@" ";" parts "${entry}")
      list(GET parts 0 re)
      list(GET parts 1 allowed)
      if(rel MATCHES "${re}" AND target STREQUAL allowed)
        set(excused TRUE)
        break()
      endif()
    endforeach()
    if(excused)
      continue()
    endif()
    string(REPLACE ";" " " may "${ALLOW_${mod}}")
    if(may STREQUAL "")
      set(may "nothing outside itself")
    endif()
    string(APPEND problems "${rel}:${n}: module '${mod}' may not include ${shown} "
      "(${target}); '${mod}' may include: ${may}\n")
    math(EXPR count "${count} + 1")
  endforeach()
endforeach()

if(count GREATER 0)
  message("${problems}")  # unwrapped, one "file:line: rule" per line
  message(FATAL_ERROR "layering check failed: ${count} forbidden include(s); the table and "
    "its exceptions are in tools/layering.cmake (docs/architecture.md)")
endif()
if(STAMP)
  file(TOUCH "${STAMP}")
endif()
