/*
 * gemm: C = A x B, f16 inputs, f32 accumulation, on the AMP of every tile and all six
 * workers. Design, the AMP bound and measured numbers: docs/kernels.md.
 *
 * Shapes. R = amprows16 (AMP rows), K = 4 * GEMM_KS, tiles as a P x Q grid (P the
 * largest divisor of T with P * P <= T). Tile (p, q) = tile p * Q + q computes the
 * block of C with rows p * Mt .. + Mt - 1 (Mt = 6 * R: one R-row block per worker) and
 * columns q * Nt .. + Nt - 1 (Nt = GEMM_NT). So M = P * Mt, N = Q * Nt.
 * Inputs: A[m][k] = kin_f16(kin_word(KIN_SEED_GEMM_A, m, k)),
 *         B[k][n] = kin_f16(kin_word(KIN_SEED_GEMM_B, k, n)).
 *
 * Supersteps:
 *   0  every tile makes its share of the inputs: row-block b of A_p (R x K) is made by
 *      tile (p, b mod Q); the column blocks (8 columns) of B_q are split evenly over the
 *      P tiles of column q;
 *   1  exchange: A blocks multicast along tile rows, B slices along tile columns;
 *   2  the timed product: worker w computes C rows w*R .. w*R+R-1 for all Nt columns;
 *   3  tile 0 gathers the tiles' result hashes (into the space of B).
 *
 * The product loop. A worker's R x K slice of A is KS weight blocks W_s (R x 4, the AMP
 * weight layout) whose addresses stay in registers. B_q is packed for the AMP's 8
 * accumulator banks as [column block][k-step][column][4] (BT_INDEX), so one pointer walks
 * all of it with the post-incrementing amp.mac:
 *   for each block of 8 columns: amp.clr;
 *     KS x (amp.ldw W_s; 8 x amp.mac x into bank 0..7);  each W serves 8 columns
 *     8 x (amp.st c from bank b; c += R)
 * Column n0 + b accumulates in bank b alone, its K products in k order, so per the
 * rounding rule of docs/xipu.md C[m][n] = sum over k = 0 .. K-1 in order of
 * A[m][k] * B[k][n] (exact products, one f32 rounding per addition).
 *
 * Output (tile 0): shapes, the hash of the tiles' hashes (tile order; a tile's hash is
 * the hash of its six workers' hashes, worker w's of the bits of C[w*R+i][col] in order
 * column, i), the product superstep's cycles, the MACs and the fraction of the AMP peak
 * (clock-free: MACs / (cycles * T * 4 * R)); TFLOPS need the clock and are worked out
 * by the test and docs/kernels.md.
 */

#include "gemm_amp.h"

/* Columns lo .. hi-1 of B_q that grid row p makes: an even split of the NT / CB column
 * blocks over P, so each tile's slice of the packed B_q is contiguous. */
static uint32_t b_lo(uint32_t p, uint32_t grid_p) {
  return (uint32_t)((uint64_t)p * (NT / CB) / grid_p) * CB;
}

/* Makes A row-block b of grid row p in the AMP weight layout: block s = rows i, 4 k. */
static void make_a_block(uint16_t *out, uint32_t p, uint32_t b, uint32_t r) {
  const uint32_t row0 = p * WORKERS * r + b * r;
  for (uint32_t s = 0; s < KS; ++s)
    for (uint32_t i = 0; i < r; ++i)
      for (uint32_t j = 0; j < 4; ++j)
        *out++ = kin_f16(kin_word(KIN_SEED_GEMM_A, row0 + i, 4 * s + j));
}

/* Superstep 0 on one worker: every `workers`-th of this tile's A blocks and B columns. */
struct make_job {
  uint16_t *a, *bt;
  uint32_t p, q, gq, r, lo, hi, first, step;
};

static int make_inputs(void *arg) {
  const struct make_job *j = arg;
  const uint32_t ablock_halves = KS * j->r * 4u;
  uint32_t turn = 0;
  for (uint32_t b = j->q; b < WORKERS; b += j->gq, ++turn)
    if (turn % j->step == j->first) make_a_block(j->a + (size_t)b * ablock_halves, j->p, b, j->r);
  for (uint32_t n = j->lo + j->first; n < j->hi; n += j->step)
    for (uint32_t k = 0; k < K; ++k)
      j->bt[BT_INDEX(k, n)] = kin_f16(kin_word(KIN_SEED_GEMM_B, k, j->q * NT + n));
  return 0;
}

struct hash_job {
  const float *c;
  uint32_t n;
  uint32_t hash;
};

static int hash_rows(void *arg) {
  struct hash_job *j = arg;
  j->hash = kc_hash_words(KIN_HASH_INIT, j->c, j->n);
  return 0;
}

int main(void) {
  const uint32_t me = ipu_tile_id(), tiles = ipu_num_tiles(), base = kc_ipu_base();
  const uint32_t r = ipu_amp_rows16();
  if (ipu_num_workers() < WORKERS || r == 0) {
    if (me == 0) kprintf("gemm: needs %d workers and an f16 AMP\n", WORKERS);
    return 1;
  }
  const uint32_t gp = grid_rows(tiles), gq = tiles / gp;
  const uint32_t p = me / gq, q = me % gq;
  const uint32_t ablock_bytes = KS * r * 4u * 2u;
  const uint32_t col_bytes = K * 2u;

  uint16_t *a = kc_alloc((size_t)WORKERS * ablock_bytes, "A");
  uint16_t *bt = kc_alloc((size_t)NT * col_bytes, "B");
  float *c = kc_alloc((size_t)WORKERS * NT * r * 4u, "C");
  /* Tile 0 gathers the tile hashes into B, which is dead by then (saves GC2's tile 0
   * the few KiB that the unrolled product loop takes). */
  uint32_t *hashes = me != 0                                   ? NULL
                     : tiles * 4u <= (size_t)NT * col_bytes ? (uint32_t *)bt
                                                              : kc_alloc(tiles * 4u, "the hashes");
  if (!a || !bt || !c || (me == 0 && !hashes)) return 1;

  /* Superstep 0: this tile's share of the inputs, on the workers. */
  const uint32_t lo = b_lo(p, gp), hi = b_lo(p + 1, gp);
  struct make_job makers[WORKERS];
  for (uint32_t w = 0; w < WORKERS; ++w) {
    makers[w] = (struct make_job){a, bt, p, q, gq, r, lo, hi, w, WORKERS};
    ipu_run(make_inputs, &makers[w]);
  }
  ipu_join();

  /* Superstep 1: A along the tile row, B along the tile column. */
  ipu_sync(IPU_SYNC_IPU);
  const uint32_t t_dist = kc_cycle32();
  const uint32_t row_first = base + p * gq;
  for (uint32_t b = 0; b < WORKERS; ++b) {
    const uint32_t owner = b % gq;
    uint16_t *blk = a + (size_t)b * ablock_bytes / 2;
    if (owner == q) {
      if (q > 0) ipu_xdst(row_first, q);
      if (q + 1 < gq) ipu_xdst(row_first + q + 1, gq - q - 1);
      if (gq > 1) ipu_send(blk, ablock_bytes);
    } else {
      ipu_xsrc(row_first + owner);
      ipu_recv(blk, ablock_bytes);
    }
  }
  if (hi > lo && gp > 1) {
    for (uint32_t pp = 0; pp < gp; ++pp)
      if (pp != p) ipu_xdst(base + pp * gq + q, 1);
    ipu_send(bt + (size_t)lo * K, (hi - lo) * col_bytes);
  }
  for (uint32_t pp = 0; pp < gp; ++pp) {
    const uint32_t plo = b_lo(pp, gp), phi = b_lo(pp + 1, gp);
    if (pp == p || phi == plo) continue;
    ipu_xsrc(base + pp * gq + q);
    ipu_recv(bt + (size_t)plo * K, (phi - plo) * col_bytes);
  }
  ipu_xwait();

  /* Superstep 2: the product, timed from one sync release to the next. */
  ipu_sync(IPU_SYNC_IPU);
  const uint32_t t_start = kc_cycle32();
  gemm_product(a, ablock_bytes, bt, c, r);
  ipu_sync(IPU_SYNC_IPU);
  const uint32_t t_end = kc_cycle32();

  /* Each worker hashes its own rows; the tile hash is the hash of the six. */
  struct hash_job hjobs[WORKERS];
  for (uint32_t w = 0; w < WORKERS; ++w) {
    hjobs[w] = (struct hash_job){c + (size_t)w * NT * r, NT * r, 0};
    ipu_run(hash_rows, &hjobs[w]);
  }
  ipu_join();
  uint32_t h = KIN_HASH_INIT;
  for (uint32_t w = 0; w < WORKERS; ++w) h = kin_hash_word(h, hjobs[w].hash);
  kc_gather_to_tile0(&h, 4, hashes);
  if (me != 0) return 0;

  uint32_t hash = KIN_HASH_INIT;
  for (uint32_t t = 0; t < tiles; ++t) hash = kin_hash_word(hash, hashes[t]);
  const uint32_t cycles = t_end - t_start;
  const uint64_t m = (uint64_t)gp * WORKERS * r, n = (uint64_t)gq * NT;
  const uint64_t macs = m * n * K;
  const uint64_t peak_macs = cycles ? (uint64_t)cycles * tiles * 4u * r : 1;
  kprintf("gemm: tiles %lu grid %lux%lu amp_rows %lu M %lu N %lu K %lu hash 0x%08lx\n",
          (unsigned long)tiles, (unsigned long)gp, (unsigned long)gq, (unsigned long)r,
          (unsigned long)m, (unsigned long)n, (unsigned long)K, (unsigned long)hash);
  kprintf("gemm: macs %llu cycles %lu distribution_cycles %lu peak_fraction %lu.%04lu\n",
          (unsigned long long)macs, (unsigned long)cycles, (unsigned long)(t_start - t_dist),
          (unsigned long)(macs / peak_macs),
          (unsigned long)(macs % peak_macs * 10000 / peak_macs));
  kc_report(hash, (uint32_t)m, (uint32_t)n, cycles, (uint32_t)(macs * 10000 / peak_macs));
  return 0;
}
