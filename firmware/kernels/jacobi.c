/*
 * jacobi: a 5-point Jacobi stencil (f32) on a grid split into row strips, one strip per
 * tile, with a halo exchange every iteration. Design and numbers: docs/kernels.md.
 *
 * The global grid has G + 2 rows (G = JACOBI_ROWS * T) of JACOBI_NX columns; its
 * initial value at (row, col) is kin_f32(kin_word(KIN_SEED_JACOBI, row, col)). Rows 0 and
 * G + 1 and columns 0 and NX - 1 are fixed (the boundary); every other point becomes
 *   u'(r, c) = 0.25f * ((u(r-1, c) + u(r+1, c)) + (u(r, c-1) + u(r, c+1)))
 * each iteration, in exactly that operation order. Tile t owns global rows
 * t*ROWS + 1 .. t*ROWS + ROWS and keeps one halo row above and below.
 *
 * Each iteration is one superstep: the six workers update the strip (rows split between
 * them), sync, then each tile sends its first row up and its last row down and receives
 * its halos. After JACOBI_ITERS iterations each tile hashes its strip (row-major bit
 * patterns) and sums it (row-major, one f32 accumulator); tile 0 gathers them and
 * prints the hash of the tile hashes (tile order) and the sum of the tile sums (tile
 * order), with the cycles per iteration.
 */
#include <string.h>

#include "kcommon.h"

#ifndef JACOBI_NX
#define JACOBI_NX 64
#endif
#ifndef JACOBI_ROWS
#define JACOBI_ROWS 16
#endif
#ifndef JACOBI_ITERS
#define JACOBI_ITERS 50
#endif

#define NX JACOBI_NX
#define ROWS JACOBI_ROWS

struct sweep_job {
  const float *src; /* (ROWS + 2) x NX, with halos */
  float *dst;
  uint32_t first, count; /* strip rows 1.. */
};

/* One pointer into the source, so the four neighbours are immediate offsets of one
 * register (12 instructions a point; three pointers took 15). */
static int sweep_rows(void *arg) {
  const struct sweep_job *j = arg;
  for (uint32_t r = j->first; r < j->first + j->count; ++r) {
    const float *s = j->src + r * NX + 1;
    float *out = j->dst + r * NX + 1;
    for (const float *end = s + NX - 2; s != end; ++s, ++out)
      *out = 0.25f * ((s[-NX] + s[NX]) + (s[-1] + s[1]));
  }
  return 0;
}

struct tile_result {
  uint32_t hash;
  float sum;
};

int main(void) {
  const uint32_t me = ipu_tile_id(), tiles = ipu_num_tiles(), base = kc_ipu_base();
  const uint32_t row_bytes = NX * 4u;
  float *grid[2];
  grid[0] = kc_alloc((ROWS + 2) * row_bytes, "grid 0");
  grid[1] = kc_alloc((ROWS + 2) * row_bytes, "grid 1");
  struct tile_result *all = me == 0 ? kc_alloc(tiles * sizeof(struct tile_result), "results") : NULL;
  if (!grid[0] || !grid[1] || (me == 0 && !all)) return 1;

  /* Both buffers start as the initial grid, halos included: the boundary (fixed rows and
   * columns) is then right in both for every iteration. */
  for (uint32_t r = 0; r < ROWS + 2; ++r)
    for (uint32_t c = 0; c < NX; ++c)
      grid[0][r * NX + c] = kin_f32(kin_word(KIN_SEED_JACOBI, me * ROWS + r, c));
  memcpy(grid[1], grid[0], (ROWS + 2) * row_bytes);

  struct sweep_job jobs[6];
  const uint32_t workers = ipu_num_workers() < 6 ? ipu_num_workers() : 6;
  uint64_t compute_cycles = 0, exchange_cycles = 0;
  ipu_sync(IPU_SYNC_IPU);
  const uint32_t start = kc_cycle32();
  for (uint32_t it = 0; it < JACOBI_ITERS; ++it) {
    const float *src = grid[it & 1];
    float *dst = grid[(it & 1) ^ 1];
    const uint32_t c0 = kc_cycle32();
    for (uint32_t w = 0, first = 1; w < workers; ++w) {
      const uint32_t count = ROWS / workers + (w < ROWS % workers ? 1u : 0u);
      jobs[w] = (struct sweep_job){src, dst, first, count};
      first += count;
      if (count) ipu_run(sweep_rows, &jobs[w]);
    }
    ipu_join();
    const uint32_t c1 = kc_cycle32();
    ipu_sync(IPU_SYNC_IPU);
    const uint32_t c2 = kc_cycle32();
    if (me > 0) {
      ipu_xdst(base + me - 1, 1);
      ipu_send(dst + 1 * NX, row_bytes);
      ipu_xsrc(base + me - 1);
      ipu_recv(dst, row_bytes);
    }
    if (me + 1 < tiles) {
      ipu_xdst(base + me + 1, 1);
      ipu_send(dst + ROWS * NX, row_bytes);
      ipu_xsrc(base + me + 1);
      ipu_recv(dst + (ROWS + 1) * NX, row_bytes);
    }
    ipu_xwait();
    const uint32_t c3 = kc_cycle32();
    compute_cycles += c1 - c0;
    exchange_cycles += c3 - c2;
  }
  const uint32_t total = kc_cycle32() - start;

  const float *u = grid[JACOBI_ITERS & 1];
  struct tile_result mine = {KIN_HASH_INIT, 0.0f};
  for (uint32_t r = 1; r <= ROWS; ++r)
    for (uint32_t c = 0; c < NX; ++c) {
      mine.hash = kin_hash_word(mine.hash, kc_bits(u[r * NX + c]));
      mine.sum += u[r * NX + c];
    }
  kc_gather_to_tile0(&mine, sizeof mine, all);
  if (me != 0) return 0;

  uint32_t hash = KIN_HASH_INIT;
  float sum = 0.0f;
  for (uint32_t t = 0; t < tiles; ++t) {
    hash = kin_hash_word(hash, all[t].hash);
    sum += all[t].sum;
  }
  const uint32_t sum_bits = kc_bits(sum);
  kprintf("jacobi: tiles %lu grid %lux%lu iterations %lu hash 0x%08lx sum 0x%08lx sum_value %.6f\n",
          (unsigned long)tiles, (unsigned long)(ROWS * tiles + 2), (unsigned long)NX,
          (unsigned long)JACOBI_ITERS, (unsigned long)hash, (unsigned long)sum_bits,
          (double)sum);
  kprintf("jacobi: cycles total %lu per_iteration %lu compute %lu exchange %lu\n",
          (unsigned long)total, (unsigned long)(total / JACOBI_ITERS),
          (unsigned long)(compute_cycles / JACOBI_ITERS),
          (unsigned long)(exchange_cycles / JACOBI_ITERS));
  kc_report(hash, sum_bits, tiles, (uint32_t)total, JACOBI_ITERS);
  return 0;
}
