/*
 * gemm_host: the GEMM of gemm.c fed by a host program (host_driver/examples/gemm_demo,
 * the README's demo): the weights A come from streaming memory, the activations B from
 * host stream 0, and C goes back to streaming memory. Runs on one IPU (every tile).
 *
 * Shapes as gemm.c: R = amprows16, K = 4 * GEMM_KS, tiles as a P x Q grid, tile
 * (p, q) = p * Q + q computes rows p * Mt .. (Mt = 6 * R) and columns q * NT .. of C.
 *
 * The host's side of the contract (all offsets multiples of 4):
 *   gemm_host_params   written by the host on every tile before the run:
 *     a_offset  streaming-memory offset of A: grid row p's Mt x K block at
 *               a_offset + p * A_ROW_BYTES, as WORKERS worker blocks of KS weight blocks
 *               (R x 4 f16, row-major): worker w's block s holds A[p*Mt + w*R + i][4s + j]
 *     c_offset  where tile t puts its C: c_offset + t * C_TILE_BYTES, worker w's R rows
 *               at w * NT * R floats, column n then row i (C[p*Mt + w*R + i][q*NT + n])
 *   stream 0   for each tile t in order, B_q (q = t mod Q) packed as BT_INDEX (K x NT f16)
 *
 * Supersteps: 0 reads A (streaming memory) and B (stream); 1 the product (timed, as
 * gemm.c); 2 writes C. Tile 0 reports in kc_result: hash 0, M, N, the product's cycles,
 * the peak fraction x 10000.
 */
#include "gemm_amp.h"

struct gemm_host_params {
  uint64_t a_offset;
  uint64_t c_offset;
};
volatile struct gemm_host_params gemm_host_params;

int main(void) {
  const uint32_t me = ipu_tile_id(), tiles = ipu_num_tiles();
  const uint32_t r = ipu_amp_rows16();
  if (ipu_num_workers() < WORKERS || r == 0) {
    if (me == 0) kprintf("gemm_host: needs %d workers and an f16 AMP\n", WORKERS);
    return 1;
  }
  const uint32_t gp = grid_rows(tiles), gq = tiles / gp;
  const uint32_t p = me / gq;
  const uint32_t ablock_bytes = KS * r * 4u * 2u;
  const uint32_t a_row_bytes = WORKERS * ablock_bytes;
  const uint32_t b_bytes = NT * K * 2u;
  const uint32_t c_bytes = WORKERS * NT * r * 4u;
  uint16_t *a = kc_alloc(a_row_bytes, "A");
  uint16_t *bt = kc_alloc(b_bytes, "B");
  float *c = kc_alloc(c_bytes, "C");
  if (!a || !bt || !c) return 1;
  const uint64_t a_offset = gemm_host_params.a_offset, c_offset = gemm_host_params.c_offset;

  /* Superstep 0: the inputs, from the gateway. */
  ipu_sync(IPU_SYNC_IPU);
  ipu_smem_read(a, a_offset + (uint64_t)p * a_row_bytes, a_row_bytes);
  ipu_stream_read(0, bt, b_bytes);
  ipu_xwait();

  /* Superstep 1: the product, timed from one sync release to the next. */
  ipu_sync(IPU_SYNC_IPU);
  const uint32_t t_start = kc_cycle32();
  gemm_product(a, ablock_bytes, bt, c, r);
  ipu_sync(IPU_SYNC_IPU);
  const uint32_t cycles = kc_cycle32() - t_start;

  /* Superstep 2: C to streaming memory. */
  ipu_smem_write(c, c_offset + (uint64_t)me * c_bytes, c_bytes);
  ipu_xwait();

  if (me == 0) {
    const uint64_t m = (uint64_t)gp * WORKERS * r, n = (uint64_t)gq * NT;
    const uint64_t macs = m * n * K;
    const uint64_t peak_macs = cycles ? (uint64_t)cycles * tiles * 4u * r : 1;
    kprintf("gemm_host: tiles %lu grid %lux%lu M %lu N %lu K %lu cycles %lu\n",
            (unsigned long)tiles, (unsigned long)gp, (unsigned long)gq, (unsigned long)m,
            (unsigned long)n, (unsigned long)K, (unsigned long)cycles);
    kc_report(0, (uint32_t)m, (uint32_t)n, cycles, (uint32_t)(macs * 10000 / peak_macs));
  }
  return 0;
}
