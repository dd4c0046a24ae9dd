# IpusimFirmwareProject.cmake: the settings every firmware project of this repository
# shares (firmware/ and testbench/test_firmware), included right after project():
# a cross-compiler check, RelWithDebInfo by default at -O2 with assert() kept, warnings,
# the output folder the main project passes as IPUSIM_FIRMWARE_DIR, and
# ipu_add_firmware() (IpuFirmware.cmake).
include_guard(GLOBAL)

if(NOT CMAKE_CROSSCOMPILING)
  message(FATAL_ERROR "${PROJECT_NAME} must be cross-compiled: use "
          "-DCMAKE_TOOLCHAIN_FILE=${CMAKE_CURRENT_LIST_DIR}/riscv-toolchain.cmake")
endif()
if(NOT CMAKE_BUILD_TYPE)
  set(CMAKE_BUILD_TYPE RelWithDebInfo CACHE STRING "Build type" FORCE)
endif()
# -O2 for every build type but Debug; no -DNDEBUG, so assert() stays on in firmware.
set(CMAKE_C_FLAGS_RELWITHDEBINFO "-O2 -g")
set(CMAKE_C_FLAGS_RELEASE "-O2")
add_compile_options(-Wall -Wextra)

# The main project passes its ${CMAKE_BINARY_DIR}/firmware as IPUSIM_FIRMWARE_DIR.
if(IPUSIM_FIRMWARE_DIR)
  set(IPU_FIRMWARE_OUTPUT_DIR ${IPUSIM_FIRMWARE_DIR} CACHE PATH "" FORCE)
endif()
include(${CMAKE_CURRENT_LIST_DIR}/IpuFirmware.cmake)
