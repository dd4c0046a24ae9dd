/* 1 GiB of streaming memory touched all over the board's range: every loaded tile writes
 * SCATTER_CHUNKS chunks of 64 KiB, SCATTER_PER_PHASE per exchange phase, each at a slot
 * of the whole memory given by a bijection of (tile, chunk) (an odd multiplier modulo the
 * number of 64 KiB slots, a power of two), each chunk stamped with its index; then reads
 * back its first and last chunk and checks the stamps. Slots: smem_bytes / 64 KiB, from
 * SCATTER_SLOTS_LOG2 (22 for 256 GiB). Exit code: 1 if a stamp is wrong. */
#include <stdint.h>
#include <stdio.h>

#include "ipu/xipu.h"

#define CHUNK 65536u
static uint32_t buf[SCATTER_PER_PHASE][CHUNK / 4];

static uint64_t slot_of(uint32_t index) {
  return ((uint64_t)index * 0x9E3779B1u) & ((1ull << SCATTER_SLOTS_LOG2) - 1);
}

int main(void) {
  /* Loaded tiles are 0 .. SCATTER_TILES-1 of each IPU. */
  const uint32_t me = ipu_id() * SCATTER_TILES + ipu_tile_id();
  for (uint32_t c = 0; c < SCATTER_CHUNKS; c += SCATTER_PER_PHASE) {
    for (uint32_t k = 0; k < SCATTER_PER_PHASE; ++k) {
      buf[k][0] = me * SCATTER_CHUNKS + c + k;
      buf[k][CHUNK / 4 - 1] = ~(me * SCATTER_CHUNKS + c + k);
    }
    ipu_sync(IPU_SYNC_GROUP);
    for (uint32_t k = 0; k < SCATTER_PER_PHASE; ++k)
      ipu_smem_write(buf[k], slot_of(me * SCATTER_CHUNKS + c + k) * CHUNK, CHUNK);
    ipu_xwait();
  }
  int bad = 0;
  const uint32_t probes[2] = {0, SCATTER_CHUNKS - 1};
  for (int p = 0; p < 2; ++p) {
    const uint32_t index = me * SCATTER_CHUNKS + probes[p];
    ipu_sync(IPU_SYNC_GROUP);
    ipu_smem_read(buf[0], slot_of(index) * CHUNK, CHUNK);
    ipu_xwait();
    if (buf[0][0] != index || buf[0][CHUNK / 4 - 1] != ~index) bad = 1;
  }
  if (bad) printf("tile %lu: wrong stamp\n", (unsigned long)me);
  return bad;
}
