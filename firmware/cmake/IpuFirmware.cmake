# IpuFirmware.cmake: build ipusim tile programs with one call.
#
#   include(<ipusim>/firmware/cmake/IpuFirmware.cmake)   # in a project configured with
#                                                        # firmware/cmake/riscv-toolchain.cmake
#   ipu_add_firmware(mykernel SOURCES main.c util.c)     # -> mykernel.elf
#
# ipu_add_firmware(<name> SOURCES <src>...
#                  [DEFINES <def>...] [INCLUDES <dir>...] [OPTIONS <flag>...] [LIBS <lib>...]
#                  [STACK_SIZE <bytes>]         supervisor stack (default 8192)
#                  [WORKER_STACK_SIZE <bytes>]  stack per worker (default 4096)
#                  [IMAGE_LIMIT <bytes>]        SRAM the image + heap + stacks must fit
#                                               (default 262144: runs on every chip)
#                  [OUTPUT_DIR <dir>]           default ${IPU_FIRMWARE_OUTPUT_DIR}
#                  [DEBUG_INFO <ON|OFF>]        DWARF (-g) in the ELF (default
#                                               ${IPU_FIRMWARE_DEBUG_INFO}, ON)
#                  [OPTIMIZATION <flag>]        e.g. -O0, -O3 (default: the build type's;
#                                               with no build type, ${IPU_FIRMWARE_OPTIMIZATION}, -O2)
#                  [QEMU_TWIN [QEMU_SRAM_SIZE <bytes>]])
#
# Debug information is on by default, whatever the build type: it costs nothing on the
# tile (DWARF sections are never loaded: the loadable bytes are identical with and without
# it, tested by DebugInfo.LoadableBytesDoNotDependOnIt) and names every fault's function
# and file:line, and lets gdb read core files (docs/debugging.md).
# Tile code is optimised unless asked otherwise: a project that sets no CMAKE_BUILD_TYPE
# (CMake's default, which compiles with no -O at all, i.e. -O0) gets
# IPU_FIRMWARE_OPTIMIZATION (-O2), and configuring says so once; a build type (Debug for
# -O0) or OPTIMIZATION decides otherwise. The runtime is always -O2.
# Produces <OUTPUT_DIR>/<name>.elf (target <name>) and a link map <name>.map next to it.
# QEMU_TWIN also produces <name>.qemu.elf (target <name>_qemu): the same object files
# linked with the Linux user-mode platform layer, to run under qemu-riscv32. Both are
# then linked with a fixed-size platform area, so every address below
# __ipu_platform_start holds the same bytes in both files (docs/firmware.md). The twin
# assumes a tile SRAM of QEMU_SRAM_SIZE bytes (default 638976, 624 KiB) for its stacks.
include_guard(GLOBAL)

set(IPU_FIRMWARE_ROOT ${CMAKE_CURRENT_LIST_DIR}/..)
cmake_path(NORMAL_PATH IPU_FIRMWARE_ROOT)
set(IPU_FIRMWARE_LINKER_SCRIPT ${IPU_FIRMWARE_ROOT}/runtime/tile.ld)
# The ISA source's generated files (hw/isa/xipu.yaml, tools/isagen): ipu/xipu_isa.h, and
# the memory map tile.ld INCLUDEs (found on the -L path). Relative to this file, so a
# project outside this tree that includes IpuFirmware.cmake finds them too.
set(IPU_ISA_INCLUDE ${IPU_FIRMWARE_ROOT}/../hw/isa/include)
set(IPU_ISA_LD_DIR ${IPU_FIRMWARE_ROOT}/../hw/isa/ld)
cmake_path(NORMAL_PATH IPU_ISA_INCLUDE)
cmake_path(NORMAL_PATH IPU_ISA_LD_DIR)
set(IPU_FIRMWARE_OUTPUT_DIR ${CMAKE_BINARY_DIR} CACHE PATH
    "Where ipu_add_firmware() puts the ELF files")
set(IPU_FIRMWARE_OPTIMIZATION -O2 CACHE STRING
    "ipu_add_firmware()'s optimisation when the project sets no CMAKE_BUILD_TYPE")
option(IPU_FIRMWARE_DEBUG_INFO "ipu_add_firmware() builds with debug information (-g) unless DEBUG_INFO OFF" ON)

# -g, or -g0 (after the build type's flags, so it wins over RelWithDebInfo's -g).
function(_ipu_debug_flags out enabled)
  if(enabled)
    set(${out} -g PARENT_SCOPE)
  else()
    set(${out} -g0 PARENT_SCOPE)
  endif()
endfunction()

# The -O flag ipu_add_firmware adds: OPTIMIZATION when given; none when a build type
# chooses (its flags come first on the command line); IPU_FIRMWARE_OPTIMIZATION when
# there is no build type, said once per configure so nobody wonders why.
function(_ipu_optimization out requested)
  if(requested)
    set(${out} ${requested} PARENT_SCOPE)
  elseif(NOT CMAKE_BUILD_TYPE AND NOT CMAKE_CONFIGURATION_TYPES)
    get_property(said GLOBAL PROPERTY _IPU_OPTIMIZATION_SAID)
    if(NOT said)
      message(STATUS "IpuFirmware: no CMAKE_BUILD_TYPE, so tile code is built ${IPU_FIRMWARE_OPTIMIZATION} "
                     "(IPU_FIRMWARE_OPTIMIZATION; -DCMAKE_BUILD_TYPE=Debug for -O0)")
      set_property(GLOBAL PROPERTY _IPU_OPTIMIZATION_SAID TRUE)
    endif()
    set(${out} ${IPU_FIRMWARE_OPTIMIZATION} PARENT_SCOPE)
  else()
    set(${out} "" PARENT_SCOPE)
  endif()
endfunction()

# Layout parameters shared by a program and its qemu twin (see tile.ld).
set(IPU_TWIN_PLATFORM_RESERVE 1024)
set(IPU_TWIN_DATA_ALIGN 4096)

if(NOT CMAKE_C_COMPILER MATCHES "riscv")
  message(FATAL_ERROR "IpuFirmware.cmake needs the RISC-V cross compiler: configure with "
          "-DCMAKE_TOOLCHAIN_FILE=${IPU_FIRMWARE_ROOT}/cmake/riscv-toolchain.cmake")
endif()

enable_language(ASM)  # crt0.S and the console stubs

# The Xipu header for any target that wants it, with the ISA header it includes
# (ipu/xipu_isa.h) and the host / device contract firmware may include too
# (ipu/hostif_regs.h, generated from hw/host_if/registers.yaml).
set(IPU_HOSTIF_INCLUDE ${IPU_FIRMWARE_ROOT}/../hw/host_if/include)
cmake_path(NORMAL_PATH IPU_HOSTIF_INCLUDE)
if(NOT TARGET ipu_xipu)
  add_library(ipu_xipu INTERFACE)
  target_include_directories(ipu_xipu INTERFACE ${IPU_FIRMWARE_ROOT}/include ${IPU_ISA_INCLUDE} ${IPU_HOSTIF_INCLUDE})
endif()

# The runtime: crt0, console, exit, heap. One object library per platform; both link
# after the program's own objects.
function(_ipu_add_runtime target io_source)
  add_library(${target} OBJECT
    ${IPU_FIRMWARE_ROOT}/runtime/crt0.S
    ${IPU_FIRMWARE_ROOT}/runtime/${io_source}
    ${IPU_FIRMWARE_ROOT}/runtime/stdio.c
    ${IPU_FIRMWARE_ROOT}/runtime/sbrk.c)
  target_link_libraries(${target} PUBLIC ipu_xipu)
  _ipu_debug_flags(debug ${IPU_FIRMWARE_DEBUG_INFO})
  target_compile_options(${target} PRIVATE -O2 -Wall -Wextra ${debug})
endfunction()
if(NOT TARGET ipu_runtime)
  _ipu_add_runtime(ipu_runtime io_tile.S)
  _ipu_add_runtime(ipu_runtime_linux io_linux.S)
  target_compile_definitions(ipu_runtime_linux PRIVATE IPU_PLATFORM_LINUX)
  set_target_properties(ipu_runtime_linux PROPERTIES EXCLUDE_FROM_ALL TRUE)  # QEMU_TWIN only
endif()

# Links `objects` (an object library) and `runtime` into <dir>/<output>.elf.
function(_ipu_link_elf target output dir objects runtime)
  add_executable(${target} $<TARGET_OBJECTS:${objects}> $<TARGET_OBJECTS:${runtime}>)
  set_target_properties(${target} PROPERTIES
    OUTPUT_NAME ${output} SUFFIX .elf RUNTIME_OUTPUT_DIRECTORY ${dir}
    LINK_DEPENDS "${IPU_FIRMWARE_LINKER_SCRIPT};${IPU_ISA_LD_DIR}/xipu_isa.ld")
  target_link_options(${target} PRIVATE
    -T ${IPU_FIRMWARE_LINKER_SCRIPT} -L${IPU_ISA_LD_DIR} -Wl,-Map=${dir}/${output}.map ${ARGN})
endfunction()

function(ipu_add_firmware name)
  cmake_parse_arguments(FW "QEMU_TWIN"
    "STACK_SIZE;WORKER_STACK_SIZE;IMAGE_LIMIT;OUTPUT_DIR;QEMU_SRAM_SIZE;DEBUG_INFO;OPTIMIZATION"
    "SOURCES;DEFINES;INCLUDES;OPTIONS;LIBS" ${ARGN})
  if(FW_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "ipu_add_firmware(${name}): unknown arguments: ${FW_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT FW_SOURCES)
    message(FATAL_ERROR "ipu_add_firmware(${name}): SOURCES is required")
  endif()
  if(NOT FW_OUTPUT_DIR)
    set(FW_OUTPUT_DIR ${IPU_FIRMWARE_OUTPUT_DIR})
  endif()
  if(NOT DEFINED FW_DEBUG_INFO)
    set(FW_DEBUG_INFO ${IPU_FIRMWARE_DEBUG_INFO})
  endif()
  _ipu_debug_flags(debug ${FW_DEBUG_INFO})
  _ipu_optimization(optimization "${FW_OPTIMIZATION}")

  # The program's own objects, compiled once and linked into every variant.
  add_library(${name}_objs OBJECT ${FW_SOURCES})
  target_link_libraries(${name}_objs PUBLIC ipu_xipu)
  target_compile_definitions(${name}_objs PRIVATE ${FW_DEFINES})
  target_include_directories(${name}_objs PRIVATE ${FW_INCLUDES})
  # The debug and optimisation flags first: a user's OPTIONS (say -g3) come after them and win.
  target_compile_options(${name}_objs PRIVATE ${debug} ${optimization} ${FW_OPTIONS})

  set(layout)
  foreach(param STACK_SIZE:__ipu_stack_size WORKER_STACK_SIZE:__ipu_worker_stack_size
                IMAGE_LIMIT:__ipu_image_limit)
    string(REPLACE ":" ";" param ${param})
    list(GET param 0 arg)
    list(GET param 1 sym)
    if(DEFINED FW_${arg})
      list(APPEND layout -Wl,--defsym=${sym}=${FW_${arg}})
    endif()
  endforeach()
  if(FW_QEMU_TWIN)
    list(APPEND layout -Wl,--defsym=__ipu_platform_reserve=${IPU_TWIN_PLATFORM_RESERVE}
                       -Wl,--defsym=__ipu_data_align=${IPU_TWIN_DATA_ALIGN})
  endif()

  _ipu_link_elf(${name} ${name} ${FW_OUTPUT_DIR} ${name}_objs ipu_runtime ${layout})
  target_link_libraries(${name} PRIVATE ${FW_LIBS} m)

  if(FW_QEMU_TWIN)
    if(NOT FW_QEMU_SRAM_SIZE)
      set(FW_QEMU_SRAM_SIZE 638976)
    endif()
    # The SRAM top relative to the linker script's __ipu_sram_base (from the ISA source).
    _ipu_link_elf(${name}_qemu ${name}.qemu ${FW_OUTPUT_DIR} ${name}_objs ipu_runtime_linux
                  ${layout} -Wl,--defsym=__ipu_sram_top=__ipu_sram_base+${FW_QEMU_SRAM_SIZE})
    target_link_libraries(${name}_qemu PRIVATE ${FW_LIBS} m)
  endif()
endfunction()
