/* One bad streaming copy, chosen by SMEM_CASE, on tile 1 (every other tile posts a good
 * copy in the same phase, so the failure is the whole exchange's):
 *   1  smread beyond the end of streaming memory (the gateway: IPU_ERR_SMEM_RANGE)
 *   2  smwrite at a streaming offset that is not 4-aligned (the ISS: misaligned access)
 *   3  hsid 64: no such stream (the ISS: exchange misuse)
 *   4  hsread of stream 5 with no host connected (the gateway: IPU_ERR_STREAM)
 *   5  smwrite on a board without streaming memory (run on a chip config) */
#include <stdint.h>

#include "ipu/xipu.h"

static uint32_t buf[16];

int main(void) {
  const uint32_t me = ipu_tile_id();
  ipu_sync(IPU_SYNC_IPU);
  if (me != 1) {
#if SMEM_CASE == 5
    ipu_xwait();
#else
    ipu_smem_write(buf, 0x1000 + 64 * me, sizeof buf);
    ipu_xwait();
#endif
    return 0;
  }
#if SMEM_CASE == 1
  ipu_smem_read(buf, 0x7ffffffc0ull + 0x100000000ull, sizeof buf); /* far beyond 64 MiB */
#elif SMEM_CASE == 2
  ipu_smem_write(buf, 0x1002, sizeof buf);
#elif SMEM_CASE == 3
  ipu_stream_read(64, buf, sizeof buf);
#elif SMEM_CASE == 4
  ipu_stream_read(5, buf, sizeof buf);
#elif SMEM_CASE == 5
  ipu_smem_write(buf, 0, sizeof buf);
#endif
  ipu_xwait();
  return 0;
}
