# host.cmake: builds firmware/ from the main (host) project as an ExternalProject, since
# one CMake build tree cannot use two compilers for C. Included by firmware/CMakeLists.txt
# when it is not the top-level project.
#
# Target `ipusim_firmware` builds every firmware ELF into ${IPUSIM_FIRMWARE_DIR}
# (build/firmware/hello.elf, ...); depend on it from anything that runs firmware.
include(ExternalProject)

set(_fw_args
  -DCMAKE_TOOLCHAIN_FILE=${CMAKE_CURRENT_LIST_DIR}/cmake/riscv-toolchain.cmake
  -DIPUSIM_FIRMWARE_DIR=${IPUSIM_FIRMWARE_DIR}
  -DCMAKE_BUILD_TYPE=RelWithDebInfo)
if(CCACHE_PROGRAM)
  list(APPEND _fw_args -DCMAKE_C_COMPILER_LAUNCHER=${CCACHE_PROGRAM})
endif()

ExternalProject_Add(ipusim_firmware
  SOURCE_DIR ${CMAKE_CURRENT_LIST_DIR}
  BINARY_DIR ${CMAKE_BINARY_DIR}/firmware-build
  PREFIX ${CMAKE_BINARY_DIR}/firmware-ep
  CMAKE_GENERATOR Ninja
  CMAKE_ARGS ${_fw_args}
  BUILD_ALWAYS TRUE          # the inner ninja decides what is out of date
  INSTALL_COMMAND ""
  TEST_COMMAND ""
  USES_TERMINAL_CONFIGURE TRUE
  USES_TERMINAL_BUILD TRUE)
