/* stream_xform: tile 0 of IPU 0 reads `stream_job.bytes` bytes from host stream 0 in chunks of
 * `stream_job.chunk` (both multiples of 4, chunk <= 16 KiB), one chunk per superstep,
 * adds the word index (w -> w + i) and writes each chunk to host stream 1 in the next
 * superstep. Every other tile only syncs along. */
#include <stdint.h>

#include "ipu/xipu.h"

#define STREAM_CHUNK_MAX 16384u

struct stream_job {
  uint32_t bytes, chunk, steps_done, words;
};
volatile struct stream_job stream_job = {65536u, 4096u, 0, 0};
static uint32_t buf[STREAM_CHUNK_MAX / 4];

int main(void) {
  const int me = ipu_global_tile_id() == 0; /* one reader per board: tile 0 of IPU 0 */
  uint32_t word = 0, steps = 0;
  for (uint32_t at = 0; at < stream_job.bytes; at += stream_job.chunk) {
    const uint32_t n = stream_job.bytes - at < stream_job.chunk ? stream_job.bytes - at : stream_job.chunk;
    ipu_sync(IPU_SYNC_IPU);
    if (me) ipu_stream_read(0, buf, n);
    ipu_xwait();
    if (me)
      for (uint32_t i = 0; i < n / 4; ++i) buf[i] += word + i;
    word += n / 4;
    ipu_sync(IPU_SYNC_IPU);
    if (me) ipu_stream_write(1, buf, n);
    ipu_xwait();
    ++steps;
  }
  stream_job.steps_done = steps;
  stream_job.words = word;
  return 0;
}
