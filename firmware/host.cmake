# host.cmake: builds a firmware project (a CMake project cross-compiled with
# firmware/cmake/riscv-toolchain.cmake) from the main (host) project as an
# ExternalProject, since one CMake build tree cannot use two compilers for C.
#
#   ipusim_add_firmware_project(<target> <source dir>)
#
# Target <target> builds every ELF of that project into ${IPUSIM_FIRMWARE_DIR}
# (build/firmware/hello.elf, ...); depend on it from anything that runs its firmware.
# firmware/CMakeLists.txt calls it for `ipusim_firmware` (the runtime, examples,
# kernels, benchmarks); testbench/test_firmware for `ipusim_test_firmware`.
include_guard(GLOBAL)
include(ExternalProject)

function(ipusim_add_firmware_project target source_dir)
  set(args
    -DCMAKE_TOOLCHAIN_FILE=${CMAKE_CURRENT_FUNCTION_LIST_DIR}/cmake/riscv-toolchain.cmake
    -DIPUSIM_FIRMWARE_DIR=${IPUSIM_FIRMWARE_DIR}
    -DCMAKE_BUILD_TYPE=RelWithDebInfo)
  if(CCACHE_PROGRAM)
    list(APPEND args -DCMAKE_C_COMPILER_LAUNCHER=${CCACHE_PROGRAM})
  endif()
  ExternalProject_Add(${target}
    SOURCE_DIR ${source_dir}
    BINARY_DIR ${CMAKE_BINARY_DIR}/${target}-build
    PREFIX ${CMAKE_BINARY_DIR}/${target}-ep
    CMAKE_GENERATOR Ninja
    CMAKE_ARGS ${args}
    BUILD_ALWAYS TRUE          # the inner ninja decides what is out of date
    INSTALL_COMMAND ""
    TEST_COMMAND ""
    USES_TERMINAL_CONFIGURE TRUE
    USES_TERMINAL_BUILD TRUE)
endfunction()
