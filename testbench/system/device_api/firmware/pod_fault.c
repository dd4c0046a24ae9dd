/* pod_fault: every tile computes a while, then syncs zone 2 (across every board) and
 * halts, except tile 1 of IPU `pod_fault_ipu`, which loads from address 0x10 (outside its
 * SRAM) after a shorter compute: a tile fault on that board, reported as the device's
 * error naming the device IPU (the device-API system tests). */
#include <stdint.h>

#include "ipu/xipu.h"

volatile uint32_t pod_fault_ipu = 13u;
volatile uint32_t pod_fault_addr = 0x10u; /* read at run time: no constant address for the compiler to judge */
volatile uint32_t pod_sink;

int main(void) {
  const int faulty = ipu_id() == pod_fault_ipu && ipu_tile_id() == 1;
  uint32_t h = ipu_global_tile_id();
  for (uint32_t i = 0; i < (faulty ? 50u : 5000u); ++i) h = h * 16777619u + i;
  if (faulty) h += *(volatile uint32_t *)(uintptr_t)pod_fault_addr;
  pod_sink = h;
  ipu_sync(IPU_SYNC_GROUP);
  return 0;
}
