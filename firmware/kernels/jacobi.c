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

#ifdef KERNELS_HOST
/* One pointer into the source, so the four neighbours are immediate offsets of one
 * register. */
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
#else
#if NX % 4 != 0 || NX > 500
#error "the wide sweep takes rows of a multiple of 4 floats (and flw offsets of NX floats)"
#endif
/* The sweep in f32v2 lanes: two points (c, c + 1), c even, per pair of instructions.
 * Up and down are aligned pairs (ld64.pi); left (c - 1, c) and right (c + 1, c + 2) are
 * not, so each "odd pair" (c + 1, c + 2) is two flw, and serves as the right of points
 * (c, c + 1) and the left of (c + 2, c + 3). A worker's rows are contiguous, so one walk
 * covers them all, boundary columns included (computed, then put back from src, which
 * holds the same fixed values). Per two points: 4 vector operations (up + down,
 * left + right, their sum, times 0.25) and 4 memory slots (ld64st64.pi: the up pair in,
 * an earlier result out; ld64.pi down; two flw), co-issued: 2 slots a point, where the
 * scalar loop took 12 instructions (9 slots). Every lane rounds to nearest even, as the scalar
 * code does under the default frm, in the same order: the same bits.
 *
 * One step (the rpt body) is pairs j, j + 1 (point columns 2j .. 2j + 3): at its start
 * U0, U1, D0, D1 hold their up and down pairs, O0, O1 their right odd pairs, S0 pair j's
 * left + right; V0, V1 the previous step's results. It loads pairs j + 2, j + 3 and
 * stores the previous results, each slot an FP operation and a memory one that does not
 * depend on it (a load may overwrite what its FP partner reads: the pair reads first).
 * The up pointer doubles as the middle row's: the flw offsets are from it. */
#define J_U0 f0
#define J_U1 f2
#define J_D0 f4
#define J_D1 f6
#define J_O0 f10
#define J_O1 f12
#define J_S0 f14
#define J_S1 f16
#define J_T0 f28
#define J_T1 f30
#define J_V0 f8
#define J_V1 f18
#define J_Q f20 /* 0.25, 0.25 */
#define J_STR_(x) #x
#define J_STR(x) J_STR_(x)
#define J_VOP(op, d, a, b) op ", " J_STR(d) ", " J_STR(a) ", " J_STR(b) "\n\t"
#define J_ADD(d, a, b) J_VOP(IPU_OP_F32V2_ADD_INSN, d, a, b)
#define J_MUL(d, a, b) J_VOP(IPU_OP_F32V2_MUL_INSN, d, a, b)
#define J_LD(d, p) IPU_OP_LD64_PI_INSN ", " J_STR(d) ", %[" #p "], x0\n\t"
#define J_LDST(d, v) IPU_OP_LD64ST64_PI_INSN ", " J_STR(d) ", %[u], %[o], " J_STR(v) "\n\t"
#define J_ST(v) IPU_OP_ST64_PI_INSN ", x0, %[o], " J_STR(v) "\n\t"
/* flw of the middle row's float k columns from the up pointer's column. */
#define J_FLW(reg, k) "flw " reg ", " J_STR(NX) "*4+" J_STR(k) "*4(%[u])\n\t"
/* The flw load the next odd pairs, O0 = (c + 5, c + 6) and O1 = (c + 7, c + 8) for
 * c = 2j, when the up pointer is at c + 8. */
#define J_BODY(U0LD, U1LD)                                                    \
  J_ADD(J_T0, J_U0, J_D0) U0LD                                                \
  J_ADD(J_T1, J_U1, J_D1) U1LD                                                \
  J_ADD(J_S1, J_O0, J_O1) J_LD(J_D0, d)                                       \
  J_ADD(J_T0, J_T0, J_S0) J_LD(J_D1, d)                                       \
  J_ADD(J_T1, J_T1, J_S1) J_FLW("f10", -3)                                    \
  J_MUL(J_V0, J_T0, J_Q) J_FLW("f11", -2)                                     \
  J_ADD(J_S0, J_O1, J_O0) J_FLW("f12", -1)                                    \
  J_MUL(J_V1, J_T1, J_Q) J_FLW("f13", 0)
/* The last step: no loads; it stores the previous results, then its own. */
#define J_LAST                                                                \
  J_ADD(J_T0, J_U0, J_D0) J_ST(J_V0)                                          \
  J_ADD(J_T1, J_U1, J_D1) J_ST(J_V1)                                          \
  J_ADD(J_S1, J_O0, J_O1)                                                     \
  J_ADD(J_T0, J_T0, J_S0)                                                     \
  J_ADD(J_T1, J_T1, J_S1)                                                     \
  J_MUL(J_V0, J_T0, J_Q)                                                      \
  J_MUL(J_V1, J_T1, J_Q) J_ST(J_V0)                                           \
  J_ST(J_V1)

static const float quarter[2] __attribute__((aligned(8))) = {0.25f, 0.25f};

static int sweep_rows(void *arg) {
  const struct sweep_job *j = arg;
  const float *u = j->src + (j->first - 1) * NX; /* up row of the first point */
  const float *d = u + 2 * NX;                   /* its down row */
  float *o = j->dst + j->first * NX;
  const float *q = quarter;
  /* count * NX / 4 steps: the first and the last written out, the rest repeated. */
  const uint32_t runs = j->count * (NX / 4u) - 2u;
  __asm__ volatile(
      /* pair 0's left (c - 1, c) into T0 for S0 = left + O0; step 0's inputs */
      J_LD(J_Q, q)
      J_FLW("f28", -1) J_FLW("f29", 0) J_FLW("f10", 1) J_FLW("f11", 2)
      J_FLW("f12", 3) J_FLW("f13", 4)
      J_ADD(J_S0, J_T0, J_O0)
      J_LD(J_U0, u) J_LD(J_U1, u) J_LD(J_D0, d) J_LD(J_D1, d)
      /* step 0: nothing to store yet */
      J_BODY(J_LD(J_U0, u), J_LD(J_U1, u))
      IPU_RPT("%[n]", 16) "\n\t"
      J_BODY(J_LDST(J_U0, J_V0), J_LDST(J_U1, J_V1))
      J_LAST
      : [u] "+r"(u), [d] "+r"(d), [o] "+r"(o), [q] "+r"(q)
      : [n] "r"(runs)
      : "f0", "f1", "f2", "f3", "f4", "f5", "f6", "f7", "f8", "f9", "f10", "f11", "f12",
        "f13", "f14", "f15", "f16", "f17", "f18", "f19", "f20", "f21", "f28", "f29", "f30",
        "f31", "memory");
  /* The boundary columns, as src has them (the walk computed them too). */
  for (uint32_t r = j->first; r < j->first + j->count; ++r) {
    j->dst[r * NX] = j->src[r * NX];
    j->dst[r * NX + NX - 1] = j->src[r * NX + NX - 1];
  }
  return 0;
}
#endif

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
