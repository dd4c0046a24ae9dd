# Firmware of the streaming system tests (testbench/system/streaming), built by the
# firmware project into ${IPU_FIRMWARE_OUTPUT_DIR}/streaming.
set(_smem_dir ${IPU_FIRMWARE_OUTPUT_DIR}/streaming)
set(_smem_src ${CMAKE_CURRENT_LIST_DIR})
# Round trips: 6 rounds of one copy per tile per phase; 3 rounds of 3 copies (another seed).
ipu_add_firmware(smem_rw SOURCES ${_smem_src}/smem_rw.c DEFINES SMEM_ROUNDS=6 SMEM_SEED=1
                 INCLUDES ${_smem_src} ${_smem_src}/../../../../firmware/kernels OUTPUT_DIR ${_smem_dir})
ipu_add_firmware(smem_rw3 SOURCES ${_smem_src}/smem_rw.c DEFINES SMEM_ROUNDS=3 SMEM_SEED=77 SMEM_COPIES=3
                 INCLUDES ${_smem_src} ${_smem_src}/../../../../firmware/kernels OUTPUT_DIR ${_smem_dir})
foreach(_case 1 2 3 4 5)
  ipu_add_firmware(smem_error${_case} SOURCES ${_smem_src}/smem_error.c DEFINES SMEM_CASE=${_case}
                   OUTPUT_DIR ${_smem_dir})
endforeach()
# m2000 (256 GiB = 2^22 slots of 64 KiB): 16 tiles per IPU x 4 IPUs x 256 chunks = 1 GiB.
ipu_add_firmware(smem_scatter SOURCES ${_smem_src}/smem_scatter.c
                 DEFINES SCATTER_TILES=16 SCATTER_CHUNKS=256 SCATTER_PER_PHASE=2 SCATTER_SLOTS_LOG2=22
                 OUTPUT_DIR ${_smem_dir})
# A device-to-host stream filled and never drained: its FIFO overflows in superstep 9.
ipu_add_firmware(stream_fill SOURCES ${_smem_src}/stream_fill.c OUTPUT_DIR ${_smem_dir})
