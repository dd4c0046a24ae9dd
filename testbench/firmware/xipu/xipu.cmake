# Xipu extension test programs (testbench/firmware/xipu/*.c): firmware that checks its own
# results (and, rpt_sum, its timing). Built by the firmware project into
# ${IPU_FIRMWARE_OUTPUT_DIR}/xipu; run through `ipusim run` by
# testbench/firmware/diff/xipu_firmware_test.cpp.
file(GLOB _ipu_xipu_sources CONFIGURE_DEPENDS ${CMAKE_CURRENT_LIST_DIR}/*.c)
foreach(_src ${_ipu_xipu_sources})
  get_filename_component(_name ${_src} NAME_WE)
  ipu_add_firmware(${_name} SOURCES ${_src} INCLUDES ${CMAKE_CURRENT_LIST_DIR}
                   OUTPUT_DIR ${IPU_FIRMWARE_OUTPUT_DIR}/xipu)
endforeach()
