# RTL blocks (hw/<block>/) verilated into one library, linted and synthesised in the suite.
# docs/cosim.md is the user's guide; this file is the build half of it.
#
#   ipusim_rtl_block(<block>
#     TOP <module>
#     SOURCES <.sv files in dependency order, relative to hw/<block>/>
#     MODELS <name> "<verilator -G args>" [<name> "<-G args>" ...]
#     SYNTH <label> "<param=value ...>" [<label> "<param=value ...>" ...]
#     [LINT_PARAMS "<-G args>"])
#
# Each MODELS entry is verilated twice (--cc), as V<block>_<name>_vcd (--trace) and
# V<block>_<name>_fst (--trace-fst): Verilator fixes the trace format when it verilates, and
# `--waves` offers both (FST is compact, VCD far quicker to write). Every model goes into the
# one static library `ipusim_rtl`, because Verilator's runtime (verilated.cpp and the trace
# writers) may be linked only once per executable.
#
# Tests: `rtl_lint_<block>` (verilator --lint-only -Wall with hw/<block>/lint/<block>.vlt;
# any warning not waived fails it) and `rtl_synth_<block>_<label>` per SYNTH entry
# (scripts/rtl_synth.sh: yosys synthesises TOP with those parameters and its cell count must
# equal the `<label>` row of hw/<block>/README.md's table).
# verilator-config.cmake says cmake_minimum_required(3.8), which leaves CMP0079 unset in
# the verilate() it defines: without this default, verilate() called from hw/<block>/ may not
# link the runtime's flags into ipusim_rtl, a target of another directory (hw/).
set(CMAKE_POLICY_DEFAULT_CMP0079 NEW)
find_package(verilator REQUIRED HINTS $ENV{VERILATOR_ROOT} /usr/share/verilator)
find_program(IPUSIM_YOSYS yosys REQUIRED)

add_library(ipusim_rtl STATIC)
# The runtime even before any block is verilated (the cosim library needs VerilatedContext);
# verilate() adds the same files again for each model, and CMake keeps one copy of each.
target_sources(ipusim_rtl PRIVATE
  ${VERILATOR_ROOT}/include/verilated.cpp
  ${VERILATOR_ROOT}/include/verilated_vcd_c.cpp
  ${VERILATOR_ROOT}/include/verilated_fst_c.cpp
  ${VERILATOR_ROOT}/include/verilated_threads.cpp)
set_target_properties(ipusim_rtl PROPERTIES
  VERILATOR_TRACE ON VERILATOR_TRACE_VCD ON VERILATOR_TRACE_FST ON)
target_include_directories(ipusim_rtl SYSTEM PUBLIC
  ${VERILATOR_ROOT}/include ${VERILATOR_ROOT}/include/vltstd)
target_compile_definitions(ipusim_rtl PUBLIC
  VM_COVERAGE=0 VM_SC=0 VM_TRACE=1 VM_TRACE_VCD=1 VM_TRACE_FST=1)
# Generated and third-party code: its warnings are Verilator's business, not ours (our
# own warnings policy holds for every file we write).
target_compile_options(ipusim_rtl PRIVATE -w)
find_package(ZLIB REQUIRED)  # the FST writer compresses with zlib
target_link_libraries(ipusim_rtl PUBLIC ZLIB::ZLIB Threads::Threads)

function(ipusim_rtl_block block)
  cmake_parse_arguments(R "" "TOP;LINT_PARAMS" "SOURCES;MODELS;SYNTH" ${ARGN})
  if(NOT R_TOP OR NOT R_SOURCES OR NOT R_MODELS)
    message(FATAL_ERROR "ipusim_rtl_block(${block}): TOP, SOURCES and MODELS are required")
  endif()
  set(dir ${CMAKE_CURRENT_SOURCE_DIR})
  set(sources "")
  foreach(s ${R_SOURCES})
    list(APPEND sources ${dir}/${s})
  endforeach()
  set(waiver ${dir}/lint/${block}.vlt)
  if(NOT EXISTS ${waiver})
    message(FATAL_ERROR "ipusim_rtl_block(${block}): ${waiver} is missing (an empty file if nothing is waived)")
  endif()

  list(LENGTH R_MODELS n)
  math(EXPR last "${n} - 1")
  foreach(i RANGE 0 ${last} 2)
    math(EXPR j "${i} + 1")
    list(GET R_MODELS ${i} model)
    list(GET R_MODELS ${j} gargs)
    separate_arguments(gargs UNIX_COMMAND "${gargs}")
    foreach(format vcd fst)
      if(format STREQUAL "vcd")
        set(trace TRACE)
      else()
        set(trace TRACE_FST)
      endif()
      verilate(ipusim_rtl ${trace}
        PREFIX V${block}_${model}_${format}
        TOP_MODULE ${R_TOP}
        SOURCES ${waiver} ${sources}
        VERILATOR_ARGS -Wall --x-assign fast --x-initial fast ${gargs})
    endforeach()
  endforeach()

  if(IPUSIM_TESTS)
    separate_arguments(lint_params UNIX_COMMAND "${R_LINT_PARAMS}")
    add_test(NAME rtl_lint_${block}
      COMMAND ${VERILATOR_BIN} --lint-only -Wall ${waiver} ${sources} --top-module ${R_TOP} ${lint_params})
    set_tests_properties(rtl_lint_${block} PROPERTIES TIMEOUT 120 LABELS rtl)
    list(LENGTH R_SYNTH n)
    if(n GREATER 0)
      math(EXPR last "${n} - 1")
      foreach(i RANGE 0 ${last} 2)
        math(EXPR j "${i} + 1")
        list(GET R_SYNTH ${i} label)
        list(GET R_SYNTH ${j} params)
        add_test(NAME rtl_synth_${block}_${label}
          COMMAND bash ${PROJECT_SOURCE_DIR}/scripts/rtl_synth.sh ${dir}/README.md ${label} ${R_TOP} "${params}" ${sources})
        set_tests_properties(rtl_synth_${block}_${label} PROPERTIES TIMEOUT 300 LABELS rtl
          ENVIRONMENT IPUSIM_YOSYS=${IPUSIM_YOSYS})
      endforeach()
    endif()
  endif()
endfunction()
