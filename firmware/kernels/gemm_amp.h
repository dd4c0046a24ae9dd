/*
 * gemm_amp.h: the AMP product loop and the tile grid that gemm.c and gemm_host.c share
 * (docs/kernels.md). Include once per kernel, after kcommon.h; GEMM_KS and GEMM_NT may
 * be set before.
 *
 * A worker computes an R-row block of C for all NT columns of its tile: per block of CB
 * columns, KS weight loads and KS x CB macs, each column accumulating in its own bank.
 * Weights: KS blocks of R x 4 f16 (the AMP weight layout), wstride bytes apart. B_q is
 * packed [column block][k-step][column][4] (BT_INDEX); C is column n, then row i, f32.
 */
#ifndef KERNELS_GEMM_AMP_H
#define KERNELS_GEMM_AMP_H

#include "kcommon.h"

#ifndef GEMM_KS
#define GEMM_KS 24 /* k-slices of 4: K = 96. KS weight pointers must fit in registers */
#endif
#ifndef GEMM_NT
#define GEMM_NT 512 /* C columns per tile */
#endif
#define KS GEMM_KS
#define K (4 * KS)
#define NT GEMM_NT
#define WORKERS 6
#define CB 8 /* columns per block = the AMP's accumulator banks */
#if NT % CB != 0
#error "GEMM_NT must be a multiple of 8 (one accumulator bank per column of a block)"
#endif
/* Where B[k][n] (n a column of this tile) lives in the packed B_q: column blocks of
 * K x CB values are contiguous, so column n0 .. (a multiple of CB) starts at n0 * K. */
#define BT_INDEX(k, n) \
  ((size_t)((n) / CB) * (K * CB) + (size_t)((k) / 4) * (4 * CB) + ((n) % CB) * 4u + (k) % 4u)

struct gemm_job {
  const uint8_t *w; /* KS weight blocks of R x 4 f16, each wstride bytes */
  uint32_t wstride;
  const uint16_t *bt; /* NT columns of K f16, packed (BT_INDEX) */
  float *c;           /* NT x R f32: column n, then row i */
  uint32_t rows;      /* R */
};

/* One R-row block of C, all NT columns: per block of CB columns, KS weight loads and
 * KS x CB macs. With `rows` a constant the loop needs 27 registers (24 weight pointers,
 * x, end, c) plus one for the amp.st addresses: GCC 12 reloads `end` from the stack once
 * per block of 192 macs and keeps everything else in registers. */
static inline __attribute__((always_inline)) void gemm_rows_body(const struct gemm_job *j,
                                                                 const uint32_t rows) {
  const uint8_t *w = j->w;
  const uint32_t s = j->wstride;
#define W_PTR(i) const void *const w##i = w + (i) * s;
#define STEP(i)                                                                      \
  ipu_amp_ldw_f16(w##i);                                                             \
  x = IPU_AMP_MAC_F16(x, 0); x = IPU_AMP_MAC_F16(x, 1); x = IPU_AMP_MAC_F16(x, 2);   \
  x = IPU_AMP_MAC_F16(x, 3); x = IPU_AMP_MAC_F16(x, 4); x = IPU_AMP_MAC_F16(x, 5);   \
  x = IPU_AMP_MAC_F16(x, 6); x = IPU_AMP_MAC_F16(x, 7);
#define STORE(b) IPU_AMP_ST_F16(c, b); c += rows;
#if KS != 24
#error "gemm_rows is unrolled for GEMM_KS = 24"
#endif
#if CB != 8
#error "gemm_rows is unrolled for 8 accumulator banks"
#endif
  W_PTR(0) W_PTR(1) W_PTR(2) W_PTR(3) W_PTR(4) W_PTR(5) W_PTR(6) W_PTR(7)
  W_PTR(8) W_PTR(9) W_PTR(10) W_PTR(11) W_PTR(12) W_PTR(13) W_PTR(14) W_PTR(15)
  W_PTR(16) W_PTR(17) W_PTR(18) W_PTR(19) W_PTR(20) W_PTR(21) W_PTR(22) W_PTR(23)
  const void *x = j->bt;
  const void *const end = j->bt + (size_t)NT * K;
  float *c = j->c;
  do {
    ipu_amp_clr();
    STEP(0) STEP(1) STEP(2) STEP(3) STEP(4) STEP(5) STEP(6) STEP(7)
    STEP(8) STEP(9) STEP(10) STEP(11) STEP(12) STEP(13) STEP(14) STEP(15)
    STEP(16) STEP(17) STEP(18) STEP(19) STEP(20) STEP(21) STEP(22) STEP(23)
    STORE(0) STORE(1) STORE(2) STORE(3) STORE(4) STORE(5) STORE(6) STORE(7)
  } while (x != end);
#undef W_PTR
#undef STEP
#undef STORE
}

/* Worker entry points: R = 16 (GC200, Bow), R = 8 (GC2), any other R. */
static inline int gemm_rows16(void *arg) { gemm_rows_body(arg, 16); return 0; }
static inline int gemm_rows8(void *arg) { gemm_rows_body(arg, 8); return 0; }
static inline int gemm_rows_any(void *arg) {
  const struct gemm_job *j = arg;
  gemm_rows_body(j, j->rows);
  return 0;
}

/* The worker entry point for R AMP rows. */
static inline ipu_worker_fn gemm_rows_fn(uint32_t r) {
  return r == 16 ? gemm_rows16 : r == 8 ? gemm_rows8 : gemm_rows_any;
}

/* The tile's product on its six workers: worker w takes weight block w of `a` (blocks
 * ablock_bytes apart) and writes its R rows x NT columns at c + w * NT * R. */
static inline void gemm_product(const uint16_t *a, uint32_t ablock_bytes, const uint16_t *bt,
                                float *c, uint32_t r) {
  struct gemm_job jobs[WORKERS];
  const ipu_worker_fn body = gemm_rows_fn(r);
  for (uint32_t w = 0; w < WORKERS; ++w) {
    jobs[w] = (struct gemm_job){(const uint8_t *)a + (size_t)w * ablock_bytes, r * 8u, bt,
                                c + (size_t)w * NT * r, r};
    ipu_run(body, &jobs[w]);
  }
  ipu_join();
}

/* The largest divisor of n whose square is at most n. */
static inline uint32_t grid_rows(uint32_t n) {
  uint32_t best = 1;
  for (uint32_t p = 1; p * p <= n; ++p)
    if (n % p == 0) best = p;
  return best;
}

#endif /* KERNELS_GEMM_AMP_H */
