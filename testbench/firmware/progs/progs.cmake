# Differential test programs (testbench/firmware/progs/*.c): each is built twice from the
# same objects, <name>.elf for a tile and <name>.qemu.elf for qemu-riscv32, into
# ${IPU_FIRMWARE_OUTPUT_DIR}/progs. testbench/firmware/diff/ runs and compares them.
file(GLOB _ipu_prog_sources CONFIGURE_DEPENDS ${CMAKE_CURRENT_LIST_DIR}/*.c)
foreach(_src ${_ipu_prog_sources})
  get_filename_component(_name ${_src} NAME_WE)
  ipu_add_firmware(${_name} SOURCES ${_src} INCLUDES ${CMAKE_CURRENT_LIST_DIR} QEMU_TWIN
                   OUTPUT_DIR ${IPU_FIRMWARE_OUTPUT_DIR}/progs)
endforeach()
