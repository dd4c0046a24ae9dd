/*
 * allreduce: on-chip all-reduce (sum) of an f32 vector across every tile of the IPU, as
 * reduce-scatter + all-gather over the exchange. Design and numbers: docs/kernels.md.
 *
 * Tile t holds x_t[0 .. V-1], V = C * T (T tiles, chunk C floats); x_t[g] =
 * kin_f32(kin_word(KIN_SEED_ALLREDUCE, t, g)). Chunk c (elements c*C .. c*C+C-1) is
 * owned by tile c.
 *   superstep 1, reduce-scatter: every tile sends chunk c to tile c (T-1 sends, rotated
 *     so each round pairs tile t with t+d); the owner sums the T copies of its chunk in
 *     tile order: y = ((x_0 + x_1) + x_2) + ... + x_{T-1}, on six workers;
 *   superstep 2, all-gather: the owner multicasts y_c to every other tile.
 * Then every tile hashes its whole result vector; tile 0 gathers the hashes, checks they
 * agree and prints the hash, the first elements and the phase cycles on tile 0 (posting,
 * which is supervisor instructions at 6 cycles each, apart from the transfer in `xwait`).
 * Exit 1 if the tiles disagree.
 *
 * C is the largest of 64, 32, 16, 8, 4 with 8 * C * T bytes + 128 KiB <= SRAM (input /
 * result vector + receive buffer, and room for code and stacks): 64 on the test chips,
 * 32 on GC200 / Bow, 8 on GC2.
 */
#include <stdlib.h>
#include <string.h>

#include "kcommon.h"
#include "kreduce.h"

int main(void) {
  const uint32_t me = ipu_tile_id(), tiles = ipu_num_tiles(), base = kc_ipu_base();
  const uint32_t chunk = kc_reduce_chunk(tiles, ipu_sram_size());
  if (chunk == 0) {
    if (me == 0) kprintf("allreduce: %lu tiles do not fit the SRAM\n", (unsigned long)tiles);
    return 1;
  }
  const uint32_t len = chunk * 4u;
  const size_t vlen = (size_t)chunk * tiles;
  float *vec = kc_alloc(vlen * 4, "the vector");
  float *copies = kc_alloc16(vlen * 4, "the chunk copies");
  uint32_t *hashes = me == 0 ? kc_alloc(tiles * 4u, "the hashes") : NULL;
  if (!vec || !copies || (me == 0 && !hashes)) return 1;
  for (size_t g = 0; g < vlen; ++g) vec[g] = kin_f32(kin_word(KIN_SEED_ALLREDUCE, me, (uint32_t)g));

  /* Superstep 1: reduce-scatter. */
  struct kc_reduce_cycles rs;
  kc_reduce_scatter(vec, copies, chunk, &rs);

  /* Superstep 2: all-gather (one multicast per tile). */
  ipu_sync(IPU_SYNC_IPU);
  const uint32_t t3 = kc_cycle32();
  if (me > 0) ipu_xdst(base, me);
  if (me + 1 < tiles) ipu_xdst(base + me + 1, tiles - me - 1);
  if (tiles > 1) ipu_send(vec + (size_t)me * chunk, len);
  for (uint32_t d = 1; d < tiles; ++d) {
    const uint32_t from = (me + tiles - d) % tiles;
    ipu_xsrc(base + from);
    ipu_recv(vec + (size_t)from * chunk, len);
  }
  const uint32_t t3x = kc_cycle32();
  ipu_xwait();
  const uint32_t t4 = kc_cycle32();

  const uint32_t h = kc_hash_words(KIN_HASH_INIT, vec, (uint32_t)vlen);
  kc_gather_to_tile0(&h, 4, hashes);
  if (me != 0) return 0;

  uint32_t disagree = 0;
  for (uint32_t t = 1; t < tiles; ++t) disagree += hashes[t] != hashes[0];
  uint32_t first4[4] = {0, 0, 0, 0};
  memcpy(first4, vec, vlen < 4 ? vlen * 4 : 16);
  kprintf("allreduce: tiles %lu chunk %lu elements %lu hash 0x%08lx tiles_disagreeing %lu\n",
          (unsigned long)tiles, (unsigned long)chunk, (unsigned long)vlen, (unsigned long)h,
          (unsigned long)disagree);
  kprintf("allreduce: first 0x%08lx 0x%08lx 0x%08lx 0x%08lx\n", (unsigned long)first4[0],
          (unsigned long)first4[1], (unsigned long)first4[2], (unsigned long)first4[3]);
  kprintf("allreduce: cycles reduce_scatter_post %lu reduce_scatter_exchange %lu reduce %lu "
          "all_gather_post %lu all_gather_exchange %lu\n",
          (unsigned long)rs.post, (unsigned long)rs.exchange, (unsigned long)rs.reduce,
          (unsigned long)(t3x - t3), (unsigned long)(t4 - t3x));
  kc_report(h, tiles, chunk, vlen, disagree);
  return disagree ? 1 : 0;
}
