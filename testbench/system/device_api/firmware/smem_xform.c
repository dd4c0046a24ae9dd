/* smem_xform: each tile reads its slice of a streaming-memory input, transforms every word
 * (w -> ~w ^ (global tile id << 24)) and writes it to the output, one chunk of at most
 * XFORM_CHUNK bytes per superstep. The host writes `xform_job` by symbol on every tile:
 * input and output offsets and bytes per tile (multiples of 4); tile t uses
 * [in + t * bytes, in + (t + 1) * bytes) and the same slice of the output. */
#include <stdint.h>

#include "ipu/xipu.h"

#define XFORM_CHUNK 8192u

struct xform_job {
  uint64_t in, out;
  uint32_t bytes, steps_done;
};
volatile struct xform_job xform_job;
static uint32_t buf[XFORM_CHUNK / 4];

int main(void) {
  const uint32_t t = ipu_global_tile_id();
  const uint64_t in = xform_job.in + (uint64_t)t * xform_job.bytes;
  const uint64_t out = xform_job.out + (uint64_t)t * xform_job.bytes;
  uint32_t steps = 0;
  for (uint32_t at = 0; at < xform_job.bytes; at += XFORM_CHUNK) {
    const uint32_t n = xform_job.bytes - at < XFORM_CHUNK ? xform_job.bytes - at : XFORM_CHUNK;
    ipu_sync(IPU_SYNC_IPU);
    ipu_smem_read(buf, in + at, n);
    ipu_xwait();
    for (uint32_t i = 0; i < n / 4; ++i) buf[i] = ~buf[i] ^ (t << 24);
    ipu_sync(IPU_SYNC_IPU);
    ipu_smem_write(buf, out + at, n);
    ipu_xwait();
    ++steps;
  }
  xform_job.steps_done = steps;
  return 0;
}
