/*
 * ipu_allreduce: all-reduce (sum) of an f32 vector across every IPU of the system, the
 * data-parallel pattern: reduce on chip, then a ring over the IPU-Links. Design and
 * numbers: docs/kernels.md.
 *
 * Tile t of IPU i holds x_{i,t}[0 .. V-1], V = C * T (T tiles, chunk C floats),
 * x_{i,t}[g] = kin_f32(kin_word(KIN_SEED_IPU_ALLREDUCE, i * T + t, g)).
 *   superstep 1 (zone 1), on-chip reduce-scatter (kreduce.h): tile c of IPU i owns
 *     s_i[c] = x_{i,0}[c] + x_{i,1}[c] + ... + x_{i,T-1}[c] (chunk c, in tile order);
 *   supersteps 2 .. N (zone 2), ring reduce-scatter: the N IPUs stand in a ring
 *     (ipu_ring_order); tile c's chunk is cut into N parts, part j = elements
 *     floor(j C / N) .. floor((j+1) C / N) - 1 (empty when C < N). In step s = 0 .. N-2
 *     the IPU at ring place p sends its partial sum of part (p - s) mod N to tile c of
 *     the next IPU, which adds its own: acc = received + own. Part j is thus summed in
 *     ring order from place j: r_j = ((s_{ring[j]} + s_{ring[j+1]}) + ...) + s_{ring[j-1]};
 *   supersteps N+1 .. 2N-1 (zone 2), ring all-gather: each reduced part goes round.
 * Afterwards tile c of every IPU holds chunk c of the sum (sharded, as a replica keeps
 * its gradients). Each IPU hashes its result on tile 0 (the hash of every tile's chunk
 * hash, in tile order) and prints it with the cycles of the parts: every IPU prints its
 * own line, so a test sees that all IPUs agree.
 *
 * C: the host's ipu_allreduce_params.chunk (ipu_allreduce.h), else (0) kc_reduce_chunk
 * (kreduce.h), as in allreduce.c. IPU_ALLREDUCE_CHUNK (a compile definition) bakes a
 * chunk into the ELF for `ipusim run`, which cannot write symbols.
 */
#include <string.h>

#include "ipu_allreduce.h"
#include "kcommon.h"
#include "kreduce.h"

#ifndef IPU_ALLREDUCE_CHUNK
#define IPU_ALLREDUCE_CHUNK 0u /* the default chunk */
#endif

/* Host interface (ipu_allreduce.h): written by a host program before the run. */
KTILE struct ipu_allreduce_params ipu_allreduce_params = {IPU_ALLREDUCE_CHUNK};

/* Where this tile's chunk of the sum is (chunk floats), for a host program to read. */
KTILE float *ipu_allreduce_result;

/* The IPU at ring place p. With IPUs in boards of four (N a multiple of 4, more than 4)
 * the ring snakes through the boards so that every step is one IPU-Link: down the
 * boards at board place 0, up at place 1, down at 2, up at 3, and back to the start
 * inside the first board (docs/links.md wires these). Otherwise IPU order. */
static uint32_t ipu_ring_order(uint32_t p, uint32_t ipus) {
  if (ipus <= 4 || ipus % 4 != 0) return p;
  const uint32_t boards = ipus / 4, column = p / boards, step = p % boards;
  const uint32_t board = column % 2 == 0 ? step : boards - 1 - step;
  return board * 4 + column;
}

static uint32_t ring_place(uint32_t ipu, uint32_t ipus) {
  for (uint32_t p = 0; p < ipus; ++p)
    if (ipu_ring_order(p, ipus) == ipu) return p;
  return 0;
}

/* Elements of part j of a chunk of C floats cut into n parts. */
static uint32_t part_begin(uint32_t j, uint32_t chunk, uint32_t n) { return (uint32_t)((uint64_t)j * chunk / n); }

/* own[e] = received[e] + own[e], e < n. With both 8-aligned and n even, in f32v2.add
 * lanes under a rpt: per two elements an ld64.pi of the received pair, an ld64st64.pi
 * that loads the next own pair and stores the previous sum, and the add, co-issued with
 * the load: 2 slots, where the scalar loop took 7 instructions an element. The lanes
 * round to nearest even like fadd.s under the default frm: the same bits. */
static void add_received(float *own, const float *received, uint32_t n) {
#ifndef KERNELS_HOST
  if (n >= 2 && n % 2u == 0 && ((uintptr_t)own | (uintptr_t)received) % 8u == 0) {
    const float *r = received, *m = own;
    float *o = own;
    const uint32_t runs = n / 2u - 1u;
    __asm__ volatile(IPU_OP_LD64_PI_INSN ", f0, %[r], x0\n\t"
                     IPU_OP_LD64_PI_INSN ", f2, %[m], x0\n\t"
                     IPU_RPT("%[n]", 3) "\n\t"
                     IPU_OP_F32V2_ADD_INSN ", f4, f0, f2\n\t"
                     IPU_OP_LD64_PI_INSN ", f0, %[r], x0\n\t"
                     IPU_OP_LD64ST64_PI_INSN ", f2, %[m], %[o], f4\n\t"
                     IPU_OP_F32V2_ADD_INSN ", f4, f0, f2\n\t"
                     IPU_OP_ST64_PI_INSN ", x0, %[o], f4"
                     : [r] "+r"(r), [m] "+r"(m), [o] "+r"(o)
                     : [n] "r"(runs)
                     : "f0", "f1", "f2", "f3", "f4", "f5", "memory");
    return;
  }
#endif
  for (uint32_t e = 0; e < n; ++e) own[e] = received[e] + own[e];
}

/* One ring step (a zone-2 superstep): send part `out` of this tile's chunk to `next`,
 * receive part `got` from `prev`; with `scratch`, add it to the own part (received +
 * own: the reduce-scatter), without, store it in place (the all-gather). Always inlined:
 * with add_received in it GCC made it a call, whose saves and restores cost every
 * all-gather step 46 instructions. */
static inline __attribute__((always_inline)) void ring_step(float *mine, float *scratch, uint32_t out,
                                                            uint32_t got, uint32_t chunk, uint32_t ipus,
                                                            uint32_t next, uint32_t prev) {
  const uint32_t ob = part_begin(out, chunk, ipus), oe = part_begin(out + 1, chunk, ipus);
  const uint32_t gb = part_begin(got, chunk, ipus), ge = part_begin(got + 1, chunk, ipus);
  ipu_sync(IPU_SYNC_GROUP);
  ipu_xdst(next, 1);
  ipu_send(mine + ob, (oe - ob) * 4u);
  ipu_xsrc(prev);
  ipu_recv(scratch ? scratch : mine + gb, (ge - gb) * 4u);
  ipu_xwait();
  if (scratch) add_received(mine + gb, scratch, ge - gb);
}

int main(void) {
  const uint32_t me = ipu_tile_id(), tiles = ipu_num_tiles();
  const uint32_t ipus = ipu_num_ipus(), ipu = ipu_id();
  const uint32_t asked = ipu_allreduce_params.chunk;
  const uint32_t chunk = asked ? asked : kc_reduce_chunk(tiles, ipu_sram_size());
  if (chunk == 0) {
    if (me == 0) kprintf("ipu_allreduce: %lu tiles do not fit the SRAM\n", (unsigned long)tiles);
    return 1;
  }
  if (asked && !kc_reduce_chunk_fits(asked, tiles, ipu_sram_size())) { /* every tile checks: none waits for the rest */
    if (me == 0 && ipu == 0)
      kprintf("ipu_allreduce: chunk %lu does not fit the SRAM: 8 x chunk x %lu tiles + 128 KiB > %lu bytes; "
              "at most %lu\n",
              (unsigned long)asked, (unsigned long)tiles, (unsigned long)ipu_sram_size(),
              (unsigned long)kc_reduce_chunk_max(tiles, ipu_sram_size()));
    return 1;
  }
  const size_t vlen = (size_t)chunk * tiles;
  float *vec = kc_alloc(vlen * 4, "the vector");
  float *copies = kc_alloc16(vlen * 4, "the chunk copies");
  uint32_t *hashes = me == 0 ? kc_alloc(tiles * 4u, "the hashes") : NULL;
  if (!vec || !copies || (me == 0 && !hashes)) return 1;
  const uint32_t global = ipu * tiles + me;
  for (size_t g = 0; g < vlen; ++g) vec[g] = kin_f32(kin_word(KIN_SEED_IPU_ALLREDUCE, global, (uint32_t)g));

  /* Superstep 1: on chip. */
  struct kc_reduce_cycles rs;
  kc_reduce_scatter(vec, copies, chunk, &rs);
  float *mine = vec + (size_t)me * chunk; /* this tile's chunk of the IPU's sum */
  ipu_allreduce_result = mine;
  float *in = copies;                     /* scratch from here on */

  /* Supersteps 2 .. 2N-1: the ring. */
  const uint32_t place = ring_place(ipu, ipus);
  const uint32_t next = ipu_ring_order((place + 1) % ipus, ipus) * tiles + me;
  const uint32_t prev = ipu_ring_order((place + ipus - 1) % ipus, ipus) * tiles + me;
  const uint32_t t0 = kc_cycle32();
  for (uint32_t s = 0; s + 1 < ipus; ++s)
    ring_step(mine, in, (place + ipus - s) % ipus, (place + 2 * ipus - 1 - s) % ipus, chunk, ipus, next, prev);
  const uint32_t t1 = kc_cycle32();
  for (uint32_t s = 0; s + 1 < ipus; ++s)
    ring_step(mine, NULL, (place + 1 + ipus - s) % ipus, (place + ipus - s) % ipus, chunk, ipus, next, prev);
  const uint32_t t2 = kc_cycle32();

  const uint32_t h = kc_hash_words(KIN_HASH_INIT, mine, chunk);
  kc_gather_to_tile0(&h, 4, hashes);
  if (me != 0) return 0;
  uint32_t all = KIN_HASH_INIT;
  for (uint32_t t = 0; t < tiles; ++t) all = kin_hash_word(all, hashes[t]);
  kprintf("ipu_allreduce: ipu %lu ipus %lu tiles %lu chunk %lu elements %lu hash 0x%08lx\n", (unsigned long)ipu,
          (unsigned long)ipus, (unsigned long)tiles, (unsigned long)chunk, (unsigned long)vlen, (unsigned long)all);
  kprintf("ipu_allreduce: ipu %lu cycles on_chip_exchange %lu on_chip_reduce %lu ring_reduce_scatter %lu "
          "ring_all_gather %lu\n",
          (unsigned long)ipu, (unsigned long)rs.exchange, (unsigned long)rs.reduce, (unsigned long)(t1 - t0),
          (unsigned long)(t2 - t1));
  kc_report(all, tiles, chunk, ipus, t2 - t0);
  return 0;
}
