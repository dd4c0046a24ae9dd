# ipusim_fpu: exact RISC-V F-extension arithmetic (fpu.h), a separate small library so the
# ISS (ipusim_iss) and the FPU unit tests link the same code. Included from
# tlm/iss/CMakeLists.txt. The arithmetic is integer-only (it never executes a host FP
# instruction), so it needs no special floating-point compile flags.
add_library(ipusim_fpu STATIC
  ${CMAKE_CURRENT_LIST_DIR}/fpu.cpp
  ${CMAKE_CURRENT_LIST_DIR}/fpu_compare.cpp
  ${CMAKE_CURRENT_LIST_DIR}/fpu_convert.cpp
  ${CMAKE_CURRENT_LIST_DIR}/fpu_host_flags.cpp)
ipusim_export_folder(ipusim_fpu)
