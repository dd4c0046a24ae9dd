# Fault test programs (testbench/firmware/faults/*.c): each stops on one fault at its
# `fault_site` symbol. Built by the firmware project into ${IPU_FIRMWARE_OUTPUT_DIR}/faults;
# run through `ipusim run` by testbench/firmware/diff/fault_test.cpp.
file(GLOB _ipu_fault_sources CONFIGURE_DEPENDS ${CMAKE_CURRENT_LIST_DIR}/*.c)
foreach(_src ${_ipu_fault_sources})
  get_filename_component(_name ${_src} NAME_WE)
  ipu_add_firmware(${_name} SOURCES ${_src} INCLUDES ${CMAKE_CURRENT_LIST_DIR}
                   OUTPUT_DIR ${IPU_FIRMWARE_OUTPUT_DIR}/faults)
endforeach()
