/* The C API's structs that are generated from hw/host_if/records.yaml keep the layout
 * they had when they were written by hand (ipudrv 0.1): a program built against an older
 * ipudrv.h still reads the right bytes. Compiled as C, so it pins what a C compiler lays
 * out; a change fails the build. The figures are what gcc gave for the hand-written
 * structs before the generator took them over. */
#include <stddef.h>
#include <stdint.h>

#include "ipudrv/ipudrv.h"

#define PIN(s, f, at, type)                                            \
  _Static_assert(offsetof(s, f) == (at), #s "." #f " offset");         \
  _Static_assert(sizeof(((s*)0)->f) == sizeof(type), #s "." #f " size")

PIN(ipudrv_device_error, code, 0, uint32_t);
PIN(ipudrv_device_error, ipu, 4, uint32_t);
PIN(ipudrv_device_error, tile, 8, uint32_t);
PIN(ipudrv_device_error, thread, 12, uint32_t);
PIN(ipudrv_device_error, pc, 16, uint32_t);
PIN(ipudrv_device_error, count, 20, uint32_t);
PIN(ipudrv_device_error, addr, 24, uint64_t);
PIN(ipudrv_device_error, cycle, 32, uint64_t);
PIN(ipudrv_device_error, text, 40, char[256]);
PIN(ipudrv_device_error, kind, 296, char[32]);
PIN(ipudrv_device_error, superstep, 328, uint32_t);
PIN(ipudrv_device_error, peer_ipu, 332, uint32_t);
PIN(ipudrv_device_error, peer_tile, 336, uint32_t);
PIN(ipudrv_device_error, peer_pc, 340, uint32_t);
PIN(ipudrv_device_error, waiting, 344, uint32_t);
PIN(ipudrv_device_error, absent_count, 348, uint32_t);
PIN(ipudrv_device_error, absent_ipu, 352, uint32_t[8]);
PIN(ipudrv_device_error, absent_tile, 384, uint32_t[8]);
_Static_assert(sizeof(ipudrv_device_error) == 416, "ipudrv_device_error size");

PIN(ipudrv_run_result, halted, 0, int32_t);
PIN(ipudrv_run_result, exit_code, 4, int32_t);
PIN(ipudrv_run_result, cycles, 8, uint64_t);
PIN(ipudrv_run_result, instructions, 16, uint64_t);
PIN(ipudrv_run_result, exchange_bytes, 24, uint64_t);
PIN(ipudrv_run_result, sim_time_ns, 32, uint64_t);
PIN(ipudrv_run_result, supersteps, 40, uint32_t);
PIN(ipudrv_run_result, stream_services, 44, uint32_t);
_Static_assert(sizeof(ipudrv_run_result) == 48, "ipudrv_run_result size");

/* c_api_test.cpp's CApi.GeneratedStructsKeepTheirLayout calls it, so that this file is
 * part of a test that ctest runs. */
size_t ipudrv_abi_pinned_bytes(void) { return sizeof(ipudrv_device_error) + sizeof(ipudrv_run_result); }
