# Xipu firmware tests (testbench/firmware/xipu/*.c): programs using the extension from C
# that check their own results and timing and exit 0 when both are right. Built by the
# test firmware project into ${IPU_FIRMWARE_OUTPUT_DIR}/xipu; run through `ipusim run` by
# testbench/firmware/diff/xipu_test.cpp.
file(GLOB _ipu_xipu_sources CONFIGURE_DEPENDS ${CMAKE_CURRENT_LIST_DIR}/*.c)
foreach(_src ${_ipu_xipu_sources})
  get_filename_component(_name ${_src} NAME_WE)
  ipu_add_firmware(${_name} SOURCES ${_src} OUTPUT_DIR ${IPU_FIRMWARE_OUTPUT_DIR}/xipu)
endforeach()
