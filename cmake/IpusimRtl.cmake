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
# Each MODELS entry (its -G arguments may be "": the defaults) is verilated twice (--cc), as V<block>_<name>_vcd (--trace) and
# V<block>_<name>_fst (--trace-fst): Verilator fixes the trace format when it verilates, and
# `--waves` offers both (FST is compact, VCD far quicker to write). Every model goes into the
# one static library `ipusim_rtl`, because Verilator's runtime (verilated.cpp and the trace
# writers) may be linked only once per executable.
#
# Checks: each model is verilated with --assert (the RTL's SVA assertions, each reporting
# through tlm/cosim/rtl_checks.h) and --x-assign unique --x-initial unique (a run may start
# the registers random: RtlRunSettings); -DIPUSIM_RTL_COVERAGE=ON adds --coverage.
#
# Tests: `rtl_lint_<block>` (verilator --lint-only -Wall with hw/<block>/lint/<block>.vlt;
# any warning not waived fails it) and `rtl_synth_<block>_<label>` per SYNTH entry
# (scripts/rtl_synth.sh: yosys synthesises TOP with those parameters and its cell count must
# equal the `<label>` row of hw/<block>/README.md's table).
find_package(verilator REQUIRED HINTS $ENV{VERILATOR_ROOT} /usr/share/verilator)
find_program(IPUSIM_YOSYS yosys REQUIRED)

# Coverage builds (docs/cosim.md "Assertions and coverage"): every model verilated with
# --coverage (line, toggle and the RTL's cover points). Off by default: it re-verilates
# and recompiles every model, and a covered model runs slower.
option(IPUSIM_RTL_COVERAGE "Verilate the RTL blocks with --coverage (scripts/rtl_coverage.sh reports it)" OFF)
if(IPUSIM_RTL_COVERAGE)
  set(IPUSIM_RTL_VM_COVERAGE 1)
  set(IPUSIM_RTL_COVERAGE_KEYWORD COVERAGE)  # verilate(): --coverage and its runtime
else()
  set(IPUSIM_RTL_VM_COVERAGE 0)
  set(IPUSIM_RTL_COVERAGE_KEYWORD "")
endif()
# `cmake --build build --target rtl_coverage`: every cosim test (equivalence, pins,
# system) writes its models' coverage to build/rtl_coverage/raw, then
# scripts/rtl_coverage.py merges it per block, writes lcov .info (and HTML with genhtml)
# to build/rtl_coverage/ and prints line, toggle and cover-point coverage per block.
if(IPUSIM_RTL_COVERAGE AND IPUSIM_TESTS)
  find_package(Python3 REQUIRED COMPONENTS Interpreter)
  set(cov ${CMAKE_BINARY_DIR}/rtl_coverage)
  add_custom_target(rtl_coverage
    COMMAND ${CMAKE_COMMAND} -E rm -rf ${cov}
    COMMAND ${CMAKE_COMMAND} -E make_directory ${cov}/raw
    COMMAND ${CMAKE_COMMAND} -E env IPUSIM_RTL_COVERAGE_DIR=${cov}/raw
            ${CMAKE_CTEST_COMMAND} --test-dir ${CMAKE_BINARY_DIR} -L cosim -j2 --output-on-failure
    COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/scripts/rtl_coverage.py ${cov}/raw ${cov}
            --json ${cov}/coverage.json
    USES_TERMINAL VERBATIM)
endif()

add_library(ipusim_rtl STATIC)
# The runtime even before any block is verilated (the cosim library needs VerilatedContext);
# verilate() adds the same files again for each model, and CMake keeps one copy of each.
target_sources(ipusim_rtl PRIVATE
  ${VERILATOR_ROOT}/include/verilated.cpp
  ${VERILATOR_ROOT}/include/verilated_vcd_c.cpp
  ${VERILATOR_ROOT}/include/verilated_fst_c.cpp
  ${VERILATOR_ROOT}/include/verilated_threads.cpp
  ${PROJECT_SOURCE_DIR}/tlm/cosim/fst_io_guard.cpp)
# The FST writer's writes and maps are checked (tlm/cosim/fst_io_guard.h: a full disk is
# an error, not SIGBUS).
set_source_files_properties(${VERILATOR_ROOT}/include/verilated_fst_c.cpp PROPERTIES
  COMPILE_OPTIONS "-include;${PROJECT_SOURCE_DIR}/tlm/cosim/fst_io_redirect.h")
if(IPUSIM_RTL_COVERAGE)
  target_sources(ipusim_rtl PRIVATE ${VERILATOR_ROOT}/include/verilated_cov.cpp)
endif()
# The models' checks as values (tlm/cosim/rtl_checks.h): the DPI function the RTL's
# assertions call and Verilator's vl_stop / vl_fatal (VL_USER_STOP / VL_USER_FATAL), here,
# beside Verilator's runtime, so every executable with a model has them. Our code: built
# with our warnings, not ipusim_rtl's -w.
add_library(ipusim_rtl_checks OBJECT ${PROJECT_SOURCE_DIR}/tlm/cosim/rtl_checks.cpp)
target_include_directories(ipusim_rtl_checks PRIVATE ${PROJECT_SOURCE_DIR}/tlm)
target_include_directories(ipusim_rtl_checks SYSTEM PRIVATE
  ${VERILATOR_ROOT}/include ${VERILATOR_ROOT}/include/vltstd)
target_compile_definitions(ipusim_rtl_checks PRIVATE VM_COVERAGE=${IPUSIM_RTL_VM_COVERAGE})
target_sources(ipusim_rtl PRIVATE $<TARGET_OBJECTS:ipusim_rtl_checks>)
target_compile_definitions(ipusim_rtl PRIVATE VL_USER_STOP VL_USER_FATAL)
set_target_properties(ipusim_rtl PROPERTIES
  VERILATOR_TRACE ON VERILATOR_TRACE_VCD ON VERILATOR_TRACE_FST ON VERILATOR_COVERAGE ${IPUSIM_RTL_COVERAGE})
target_include_directories(ipusim_rtl SYSTEM PUBLIC
  ${VERILATOR_ROOT}/include ${VERILATOR_ROOT}/include/vltstd)
target_compile_definitions(ipusim_rtl PUBLIC
  VM_COVERAGE=${IPUSIM_RTL_VM_COVERAGE} VM_SC=0 VM_TRACE=1 VM_TRACE_VCD=1 VM_TRACE_FST=1)
# Generated and third-party code: its warnings are Verilator's business, not ours (our
# own warnings policy holds for every file we write).
# No debug info either: it multiplies the compile time of the big generated functions
# (gcc gives up its variable tracking on them), and nobody steps through them in gdb.
target_compile_options(ipusim_rtl PRIVATE -w -g0)
find_package(ZLIB REQUIRED)  # the FST writer compresses with zlib
target_link_libraries(ipusim_rtl PUBLIC ZLIB::ZLIB Threads::Threads)

function(ipusim_rtl_block block)
  # PARSE_ARGV keeps empty values (a model without -G arguments: "").
  cmake_parse_arguments(PARSE_ARGV 1 R "" "TOP;LINT_PARAMS" "SOURCES;MODELS;SYNTH")
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

  # Verilated later, by ipusim_rtl_verilate_all() in hw/CMakeLists.txt: verilate() may add
  # to a target only from the target's own directory (its config file pins CMake 3.8's
  # policies, CMP0079 OLD), and there the regeneration rules attach to the target too.
  set_property(GLOBAL APPEND PROPERTY IPUSIM_RTL_BLOCKS ${block})
  set_property(GLOBAL PROPERTY IPUSIM_RTL_${block}_TOP ${R_TOP})
  set_property(GLOBAL PROPERTY IPUSIM_RTL_${block}_SOURCES ${waiver} ${sources})
  set_property(GLOBAL PROPERTY IPUSIM_RTL_${block}_MODELS "${R_MODELS}")

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

# Verilates every block's models into ipusim_rtl; hw/CMakeLists.txt calls it once, after
# adding every block.
function(ipusim_rtl_verilate_all)
  get_property(blocks GLOBAL PROPERTY IPUSIM_RTL_BLOCKS)
  foreach(block ${blocks})
    get_property(top GLOBAL PROPERTY IPUSIM_RTL_${block}_TOP)
    get_property(sources GLOBAL PROPERTY IPUSIM_RTL_${block}_SOURCES)
    get_property(models GLOBAL PROPERTY IPUSIM_RTL_${block}_MODELS)
    list(LENGTH models n)
    math(EXPR last "${n} - 1")
    foreach(i RANGE 0 ${last} 2)
      math(EXPR j "${i} + 1")
      list(GET models ${i} model)
      list(GET models ${j} gargs)
      separate_arguments(gargs UNIX_COMMAND "${gargs}")
      foreach(format vcd fst)
        if(format STREQUAL "vcd")
          set(trace TRACE)
        else()
          set(trace TRACE_FST)
        endif()
        set(prefix V${block}_${model}_${format})
        verilate(ipusim_rtl ${trace} ${IPUSIM_RTL_COVERAGE_KEYWORD}
          PREFIX ${prefix}
          TOP_MODULE ${top}
          SOURCES ${sources}
          VERILATOR_ARGS -Wall --assert --x-assign unique --x-initial unique ${gargs})
        # -O1 where -O2 buys nothing worth its compile time: the construction code
        # (*__Slow.cpp, run once) and the trace writers (*__Trace__*.cpp, run only with
        # --waves; a wide datapath's are over a megabyte of C++ each). eval() stays -O2.
        file(GLOB cold ${CMAKE_CURRENT_BINARY_DIR}/CMakeFiles/ipusim_rtl.dir/${prefix}.dir/*__Slow.cpp
                       ${CMAKE_CURRENT_BINARY_DIR}/CMakeFiles/ipusim_rtl.dir/${prefix}.dir/*__Trace__*.cpp)
        set_source_files_properties(${cold} PROPERTIES COMPILE_OPTIONS -O1)
      endforeach()
    endforeach()
  endforeach()
endfunction()
