# CMake toolchain file for ipusim tile firmware: Debian's riscv64-unknown-elf-gcc with
# picolibc, generating RV32IMF code for the ilp32f ABI (the tile ISA of docs/xipu.md).
#
#   cmake -S firmware -B fw-build -G Ninja \
#         -DCMAKE_TOOLCHAIN_FILE=firmware/cmake/riscv-toolchain.cmake
set(CMAKE_SYSTEM_NAME Generic)
set(CMAKE_SYSTEM_PROCESSOR riscv32)

find_program(IPU_RISCV_GCC riscv64-unknown-elf-gcc REQUIRED)
get_filename_component(_ipu_gcc_dir ${IPU_RISCV_GCC} DIRECTORY)
set(CMAKE_C_COMPILER ${IPU_RISCV_GCC})
set(CMAKE_CXX_COMPILER ${_ipu_gcc_dir}/riscv64-unknown-elf-g++)
set(CMAKE_ASM_COMPILER ${IPU_RISCV_GCC})
set(CMAKE_OBJCOPY ${_ipu_gcc_dir}/riscv64-unknown-elf-objcopy CACHE FILEPATH "objcopy")
set(CMAKE_OBJDUMP ${_ipu_gcc_dir}/riscv64-unknown-elf-objdump CACHE FILEPATH "objdump")

# The multilib is chosen by -march/-mabi; picolibc.specs adds picolibc's headers and
# libraries for it. Startup files and linker script come from the ipusim runtime.
set(IPU_ARCH_FLAGS "-march=rv32imf -mabi=ilp32f --specs=picolibc.specs")
set(CMAKE_C_FLAGS_INIT "${IPU_ARCH_FLAGS} -ffunction-sections -fdata-sections")
set(CMAKE_CXX_FLAGS_INIT "${IPU_ARCH_FLAGS} -ffunction-sections -fdata-sections")
set(CMAKE_ASM_FLAGS_INIT "${IPU_ARCH_FLAGS}")
set(CMAKE_EXE_LINKER_FLAGS_INIT "-nostartfiles -Wl,--gc-sections")

# A bare-metal compiler cannot link a test program without our startup files.
set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)

set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
