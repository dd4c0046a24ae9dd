/* Streaming memory round trip across supersteps: in round r every tile writes
 * SMEM_COPIES random spans (lengths and offsets from the shared plan, smem_common.h) of
 * its own region in one exchange phase, then, after a sync of the group, reads back the
 * spans its right-hand neighbour (global id + 1, wrapping: on two IPUs the last tile of
 * IPU 0 reads IPU 1's first) wrote and checks every word. Exit code: the number of wrong
 * words, at most 255 (0: all good). */
#include "smem_common.h"

static uint32_t out[SMEM_COPIES][SMEM_MAX_WORDS];
static uint32_t in[SMEM_COPIES][SMEM_MAX_WORDS];

int main(void) {
  const uint32_t tiles = ipu_num_tiles() * ipu_num_ipus();
  const uint32_t me = ipu_global_tile_id();
  const uint32_t peer = (me + 1) % tiles;
  uint32_t wrong = 0;
  for (uint32_t r = 0; r < SMEM_ROUNDS; ++r) {
    for (uint32_t k = 0; k < SMEM_COPIES; ++k)
      for (uint32_t i = 0; i < smem_words(me, r, k); ++i) out[k][i] = smem_word(me, r, k, i);
    ipu_sync(IPU_SYNC_GROUP);
    for (uint32_t k = 0; k < SMEM_COPIES; ++k) ipu_smem_write(out[k], smem_offset(me, r, k), 4 * smem_words(me, r, k));
    ipu_xwait();
    ipu_sync(IPU_SYNC_GROUP);
    for (uint32_t k = 0; k < SMEM_COPIES; ++k) ipu_smem_read(in[k], smem_offset(peer, r, k), 4 * smem_words(peer, r, k));
    ipu_xwait();
    for (uint32_t k = 0; k < SMEM_COPIES; ++k)
      for (uint32_t i = 0; i < smem_words(peer, r, k); ++i)
        if (in[k][i] != smem_word(peer, r, k, i)) ++wrong;
  }
  if (wrong) printf("tile %lu: %lu wrong words\n", (unsigned long)me, (unsigned long)wrong);
  return wrong > 255 ? 255 : (int)wrong;
}
