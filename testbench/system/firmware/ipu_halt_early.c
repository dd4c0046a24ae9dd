/*
 * ipu_halt_early: the IPUs of a system halt one after another. IPU i runs 2 + 3 * i
 * supersteps of uneven work, syncing only itself (zone 1), tile 0 printing the IPU's
 * value after each, then every tile of it halts with exit code i. So an IPU's tiles stay
 * halted while the other IPUs run on: a checkpoint taken then holds halted tiles, their
 * exit codes and halt cycles (testbench/system/cli/checkpoint_test.cpp).
 */
#include <stdint.h>
#include <stdio.h>

#include "ipu/xipu.h"

int main(void) {
  const uint32_t ipu = ipu_id(), tile = ipu_tile_id();
  uint32_t value = ipu * 2654435761u + tile;
  for (uint32_t s = 0; s < 2 + 3 * ipu; ++s) {
    for (uint32_t r = 0; r < (tile + 1) * (s + 1) * 8; ++r) value = (value ^ (value >> 13)) * 0x5bd1e995u + r;
    if (tile == 0) printf("ipu %lu superstep %lu value %08lx\n", (unsigned long)ipu, (unsigned long)s, (unsigned long)value);
    ipu_sync(IPU_SYNC_IPU);
  }
  return (int)ipu;
}
