# libFuzzer targets (the wire decoder, the ELF loader, the config loader). libFuzzer needs
# clang, the rest of the project builds with g++: a fuzzer is a sub-build of its folder's
# standalone/ project, configured with clang++ when it is installed (scripts/deps.sh:
# clang, libclang-rt-14-dev). IPUSIM_CLANGXX is empty when it is not.
find_program(IPUSIM_CLANGXX NAMES clang++ clang++-14)
include(ExternalProject)

# ipusim_fuzzer_needs_clang(WHAT): in a fuzzer folder's CMakeLists, ends that file (a macro's
# return() leaves the scope it was called from) with a status line naming WHAT when clang++
# is not installed, so none of the folder's targets or tests are made.
macro(ipusim_fuzzer_needs_clang what)
  if(NOT IPUSIM_CLANGXX)
    message(STATUS "${CMAKE_CURRENT_SOURCE_DIR}: clang++ not found, ${what} is not built")
    return()
  endif()
endmacro()

# ipusim_add_fuzzer(NAME DIR [CMAKE_ARGS -D...]): builds DIR/build/NAME from
# ${CMAKE_CURRENT_SOURCE_DIR}/standalone (CMAKE_ARGS: what that project needs).
function(ipusim_add_fuzzer)
  cmake_parse_arguments(PARSE_ARGV 0 F "" "NAME;DIR" "CMAKE_ARGS")
  ExternalProject_Add(${F_NAME}_build
    SOURCE_DIR ${CMAKE_CURRENT_SOURCE_DIR}/standalone
    BINARY_DIR ${F_DIR}/build
    CMAKE_ARGS -DCMAKE_CXX_COMPILER=${IPUSIM_CLANGXX} -DCMAKE_BUILD_TYPE=RelWithDebInfo
      -DCMAKE_CXX_COMPILER_LAUNCHER=${CCACHE_PROGRAM} ${F_CMAKE_ARGS}
    INSTALL_COMMAND ""
    BUILD_ALWAYS ON)
endfunction()

# ipusim_add_fuzz_test(TEST NAME DIR RUNS SEED_FIXTURE): ctest runs fuzzer NAME for RUNS
# inputs with seed 1 from the corpus the fixture SEED_FIXTURE writes to DIR/seed. The
# fuzzer adds inputs to its first directory: a fresh one each run keeps the seed corpus
# (and so the run) the same every time.
function(ipusim_add_fuzz_test)
  cmake_parse_arguments(PARSE_ARGV 0 F "" "TEST;NAME;DIR;RUNS;SEED_FIXTURE" "")
  add_test(NAME ${F_TEST}
    COMMAND sh -c "rm -rf \"$1\" && mkdir -p \"$1\" && ASAN_OPTIONS=detect_leaks=1 \"$2\" -runs=${F_RUNS} -seed=1 -print_final_stats=1 \"$1\" \"$3\""
      ${F_NAME} ${F_DIR}/work ${F_DIR}/build/${F_NAME} ${F_DIR}/seed)
  set_tests_properties(${F_TEST} PROPERTIES FIXTURES_REQUIRED ${F_SEED_FIXTURE} TIMEOUT 300)
endfunction()
