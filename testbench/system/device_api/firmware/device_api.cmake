# Firmware of the device-API system tests (testbench/system/device_api), built by the
# firmware project into ${IPU_FIRMWARE_OUTPUT_DIR}/device_api.
foreach(_name endless_sync smem_xform stream_xform pod_stream pod_fault console_chatter)
  ipu_add_firmware(${_name} SOURCES ${CMAKE_CURRENT_LIST_DIR}/${_name}.c
                   OUTPUT_DIR ${IPU_FIRMWARE_OUTPUT_DIR}/device_api)
endforeach()
