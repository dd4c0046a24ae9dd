# Bounded model checks of the RTL blocks (docs/cosim.md "Formal checks"): each
# hw/<block>/formal/CMakeLists.txt calls
#
#   ipusim_formal_check(<name> TOP <harness module> DEPTH <steps>
#     [PARAMS "<param=value ...>"] SOURCES <RTL and harness .sv, relative to hw/<block>/>)
#
# which adds the ctest `formal_<name>` (label `formal`): scripts/formal_check.sh proves
# every assertion of the harness to DEPTH steps with yosys-smtbmc and z3.
find_program(IPUSIM_YOSYS_SMTBMC yosys-smtbmc)
find_program(IPUSIM_Z3 z3)

function(ipusim_formal_check name)
  cmake_parse_arguments(PARSE_ARGV 1 F "" "TOP;DEPTH;PARAMS" "SOURCES")
  if(NOT F_TOP OR NOT F_DEPTH OR NOT F_SOURCES)
    message(FATAL_ERROR "ipusim_formal_check(${name}): TOP, DEPTH and SOURCES are required")
  endif()
  if(NOT IPUSIM_TESTS)
    return()
  endif()
  if(NOT IPUSIM_YOSYS_SMTBMC OR NOT IPUSIM_Z3)
    message(WARNING "formal_${name} not added: yosys-smtbmc or z3 missing (scripts/deps.sh installs both)")
    return()
  endif()
  get_filename_component(block_dir ${CMAKE_CURRENT_SOURCE_DIR} DIRECTORY)
  set(sources "")
  foreach(s ${F_SOURCES})
    list(APPEND sources ${block_dir}/${s})
  endforeach()
  add_test(NAME formal_${name}
    COMMAND bash ${PROJECT_SOURCE_DIR}/scripts/formal_check.sh ${F_DEPTH} ${F_TOP} "${F_PARAMS}" ${sources})
  set_tests_properties(formal_${name} PROPERTIES TIMEOUT 300 LABELS "rtl;formal"
    ENVIRONMENT "IPUSIM_YOSYS=${IPUSIM_YOSYS};IPUSIM_YOSYS_SMTBMC=${IPUSIM_YOSYS_SMTBMC}")
endfunction()
