# Firmware of the chip-level system tests (testbench/system/chip): BSP programs with
# syncs and exchanges, and the compute-bound loop the speed figures are measured with.
# Built by the firmware project into ${IPU_FIRMWARE_OUTPUT_DIR}/system.
set(_sys_dir ${IPU_FIRMWARE_OUTPUT_DIR}/system)
file(GLOB _sys_sources CONFIGURE_DEPENDS ${CMAKE_CURRENT_LIST_DIR}/*.c)
list(REMOVE_ITEM _sys_sources ${CMAKE_CURRENT_LIST_DIR}/spin.c ${CMAKE_CURRENT_LIST_DIR}/uneven.c)
foreach(_src ${_sys_sources})
  get_filename_component(_name ${_src} NAME_WE)
  ipu_add_firmware(${_name} SOURCES ${_src} INCLUDES ${CMAKE_CURRENT_LIST_DIR} OUTPUT_DIR ${_sys_dir})
endforeach()

# Uneven work per tile over several supersteps: syncs only, and with a ring exchange.
ipu_add_firmware(uneven_sync SOURCES ${CMAKE_CURRENT_LIST_DIR}/uneven.c
                 INCLUDES ${CMAKE_CURRENT_LIST_DIR} OUTPUT_DIR ${_sys_dir})
ipu_add_firmware(uneven_xchg SOURCES ${CMAKE_CURRENT_LIST_DIR}/uneven.c DEFINES UNEVEN_EXCHANGE
                 INCLUDES ${CMAKE_CURRENT_LIST_DIR} OUTPUT_DIR ${_sys_dir})
# The ring exchange with every tile printing more than its console buffer holds.
ipu_add_firmware(uneven_chatter SOURCES ${CMAKE_CURRENT_LIST_DIR}/uneven.c
                 DEFINES UNEVEN_EXCHANGE UNEVEN_CHATTER=200
                 INCLUDES ${CMAKE_CURRENT_LIST_DIR} OUTPUT_DIR ${_sys_dir})

# The compute-bound loop: six workers, SPIN_ITERS loop iterations (10 instructions each)
# per worker per superstep, SPIN_STEPS supersteps.
ipu_add_firmware(spin10k SOURCES ${CMAKE_CURRENT_LIST_DIR}/spin.c
                 DEFINES SPIN_ITERS=1000 SPIN_STEPS=20 OUTPUT_DIR ${_sys_dir})
ipu_add_firmware(spin1k SOURCES ${CMAKE_CURRENT_LIST_DIR}/spin.c
                 DEFINES SPIN_ITERS=100 SPIN_STEPS=100 OUTPUT_DIR ${_sys_dir})
# Every tile in an endless loop (endless.c, which as endless.elf loops on tile 3 alone).
ipu_add_firmware(endless_all SOURCES ${CMAKE_CURRENT_LIST_DIR}/endless.c DEFINES ENDLESS_ALL OUTPUT_DIR ${_sys_dir})
# Tiles printing without end (chatter.c, which as chatter.elf prints a bounded amount).
ipu_add_firmware(chatter_forever SOURCES ${CMAKE_CURRENT_LIST_DIR}/chatter.c DEFINES CHATTER_FOREVER
                 OUTPUT_DIR ${_sys_dir})
# The memory report's kernel with a worker whose stack overflows (memory_kernel.c).
ipu_add_firmware(stack_overflow SOURCES ${CMAKE_CURRENT_LIST_DIR}/memory_kernel.c DEFINES MEMK_OVERFLOW
                 OUTPUT_DIR ${_sys_dir})
