# Firmware of the host-interface system tests (testbench/system/host_if), built by the
# firmware project into ${IPU_FIRMWARE_OUTPUT_DIR}/host_if.
set(_hif_dir ${IPU_FIRMWARE_OUTPUT_DIR}/host_if)
set(_hif_src ${CMAKE_CURRENT_LIST_DIR})
# 16 tiles x 16 KiB x 6 rounds = 1.5 MiB each way: more than a stream FIFO holds.
ipu_add_firmware(stream_echo SOURCES ${_hif_src}/stream_echo.c
                 DEFINES STREAM_ROUNDS=6 STREAM_CHUNK=16384 STREAM_IN=3 STREAM_OUT=7
                 OUTPUT_DIR ${_hif_dir})
