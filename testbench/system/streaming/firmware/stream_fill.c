/* stream_fill: every tile writes 16 KiB to host stream 3 (device to host) in each
 * superstep's exchange phase, and nothing drains it (`ipusim run` has no host), so the
 * stream's 1 MiB FIFO fills: on tiny4 x 2 (8 tiles) the ninth superstep's copies do not
 * fit (IPU_ERR_STREAM_OVERFLOW, exit status 3). Tile 0 of each IPU prints each superstep.
 * A checkpoint taken before then must hold the FIFO's bytes for the restored run to fail
 * where this one does (testbench/system/cli/checkpoint_test.cpp). */
#include <stdint.h>
#include <stdio.h>

#include "ipu/xipu.h"

static uint8_t chunk[16384];

int main(void) {
  const uint32_t me = ipu_global_tile_id();
  for (uint32_t s = 0;; ++s) {
    for (uint32_t i = 0; i < sizeof chunk; ++i) chunk[i] = (uint8_t)(me * 31u + s * 7u + i);
    if (ipu_tile_id() == 0) printf("ipu %lu superstep %lu\n", (unsigned long)ipu_id(), (unsigned long)s);
    ipu_sync(IPU_SYNC_IPU);
    ipu_stream_write(3, chunk, sizeof chunk);
    ipu_xwait();
  }
  return 0;
}
