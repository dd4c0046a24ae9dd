/* Host streams through the device (testbench/system/host_if): in each of STREAM_ROUNDS
 * rounds every tile reads STREAM_CHUNK bytes of host stream STREAM_IN, turns each word w
 * into w * 3 + (its global tile id), and writes them to host stream STREAM_OUT. The
 * gateway serves a stream's copies in (ipu, tile) order, so round r of tile t consumes
 * input words [(r * T + t) * C, (r * T + t + 1) * C) (T tiles, C words a chunk) and its
 * output lands at the same place of the output stream: the host checks every word.
 * More than a FIFO (1 MiB) in total in each direction makes the run stop in STREAM_WAIT
 * both ways when nobody serves the streams in between. */
#include <stdint.h>

#include "ipu/xipu.h"

#define WORDS (STREAM_CHUNK / 4)

static uint32_t buf[WORDS];

int main(void) {
  const uint32_t me = ipu_global_tile_id();
  for (uint32_t r = 0; r < STREAM_ROUNDS; ++r) {
    ipu_sync(IPU_SYNC_IPU);
    ipu_stream_read(STREAM_IN, buf, sizeof buf);
    ipu_xwait();
    for (uint32_t i = 0; i < WORDS; ++i) buf[i] = buf[i] * 3u + me;
    ipu_sync(IPU_SYNC_IPU);
    ipu_stream_write(STREAM_OUT, buf, sizeof buf);
    ipu_xwait();
  }
  return 0;
}
