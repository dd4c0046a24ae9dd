/*
 * Exchange errors on every IPU of a system at once: after an IPU sync, tile 0 of each IPU
 * sends 4 * (ipu + 1) bytes to its IPU's tile 1, which posts no receive. Every IPU's
 * phase fails in the same cycle with a problem of its own, so a run shows which one is
 * reported first (testbench/system/kernels/kernels_ipus_test.cpp).
 */
#include <stdint.h>

#include "ipu/xipu.h"

uint32_t tx[16];

int main(void) {
  const uint32_t base = ipu_global_tile_id() - ipu_tile_id();
  ipu_sync(IPU_SYNC_IPU);
  if (ipu_tile_id() == 0) {
    ipu_xdst(base + 1, 1);
    ipu_send(tx, 4 * (ipu_id() + 1));
  }
  ipu_xwait();
  return 0;
}
