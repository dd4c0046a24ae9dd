/*
 * alltoall: every tile sends ALLTOALL_BYTES bytes to every other tile of its IPU (rotated
 * order: tile s sends to s+1, s+2, ...) and receives the same from each, in one exchange;
 * then checks every received word (each names its sender and position) and prints the
 * exchange's cycles from tile 0. Exercises the fabric at full scale (a GC200: 2.2 million
 * messages).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "ipu/xipu.h"

#ifndef ALLTOALL_BYTES
#define ALLTOALL_BYTES 64
#endif
#define WORDS (ALLTOALL_BYTES / 4)

int main(void) {
  const uint32_t tiles = ipu_num_tiles(), me = ipu_tile_id(), base = ipu_id() * tiles;
  uint32_t *out = malloc(ALLTOALL_BYTES);
  uint32_t *in = malloc((size_t)tiles * ALLTOALL_BYTES);
  if (!out || !in) {
    printf("alltoall: out of memory for %lu tiles\n", (unsigned long)tiles);
    return 1;
  }
  for (uint32_t w = 0; w < WORDS; ++w) out[w] = me << 16 | w;
  ipu_sync(IPU_SYNC_IPU);
  const uint64_t start = ipu_cycles();
  for (uint32_t k = 1; k < tiles; ++k) {
    const uint32_t to = (me + k) % tiles, from = (me + tiles - k) % tiles;
    ipu_xdst(base + to, 1);
    ipu_send(out, ALLTOALL_BYTES);
    ipu_xsrc(base + from);
    ipu_recv(in + from * WORDS, ALLTOALL_BYTES);
  }
  ipu_xwait();
  const uint64_t cycles = ipu_cycles() - start;
  uint32_t wrong = 0;
  for (uint32_t t = 0; t < tiles; ++t)
    for (uint32_t w = 0; w < WORDS && t != me; ++w) wrong += in[t * WORDS + w] != (t << 16 | w);
  if (wrong) printf("alltoall: tile %lu: %lu wrong words\n", (unsigned long)me, (unsigned long)wrong);
  if (me == 0)
    printf("alltoall: %lu tiles x %d bytes, exchange %lu cycles\n", (unsigned long)tiles, ALLTOALL_BYTES,
           (unsigned long)cycles);
  return wrong ? 1 : 0;
}
