# The same kernel (firmware/examples/vecadd) built with and without debug information,
# into ${IPU_FIRMWARE_OUTPUT_DIR}/debuginfo: DebugInfo.LoadableBytesDoNotDependOnIt
# (testbench/firmware/diff/source_map_test.cpp) requires their loadable bytes to be equal.
set(_vecadd ${CMAKE_CURRENT_LIST_DIR}/../../../firmware/examples/vecadd/vecadd.c)
ipu_add_firmware(vecadd_g SOURCES ${_vecadd} DEBUG_INFO ON OUTPUT_DIR ${IPU_FIRMWARE_OUTPUT_DIR}/debuginfo)
ipu_add_firmware(vecadd_g0 SOURCES ${_vecadd} DEBUG_INFO OFF OUTPUT_DIR ${IPU_FIRMWARE_OUTPUT_DIR}/debuginfo)
