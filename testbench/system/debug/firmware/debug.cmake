# Firmware of the debugger tests (testbench/system/debug), built by the firmware project
# into ${IPU_FIRMWARE_OUTPUT_DIR}/debug.
ipu_add_firmware(gdb_target SOURCES ${CMAKE_CURRENT_LIST_DIR}/gdb_target.c
                 OUTPUT_DIR ${IPU_FIRMWARE_OUTPUT_DIR}/debug)
