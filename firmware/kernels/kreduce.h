/*
 * kreduce.h: the on-chip reduce-scatter that the all-reduce kernels share.
 *
 * Every tile t of the IPU holds a vector of C * T floats (chunk c = elements c*C ..
 * c*C+C-1, T tiles); tile c owns chunk c. One superstep (sync over the IPU, then the
 * exchange): every tile sends chunk c to tile c (T-1 sends, rotated so each round pairs
 * tile t with t+d), and the owner sums the T copies of its chunk in tile order,
 * y = ((x_0 + x_1) + x_2) + ... + x_{T-1}, on up to six workers, into its own chunk of
 * `vec`. `copies` is scratch of C * T floats.
 */
#ifndef KERNELS_KREDUCE_H
#define KERNELS_KREDUCE_H

#include <stdint.h>

/* Cycles of the phases, for the kernels' reports. */
struct kc_reduce_cycles {
  uint32_t post, exchange, reduce;
};

/* The chunk of the all-reduce kernels: the largest of 64, 32, 16, 8, 4 floats with
 * 8 * C * T bytes (the vector and the copies) + 128 KiB (code, stacks) <= SRAM; 0 if none fits. */
uint32_t kc_reduce_chunk(uint32_t tiles, uint32_t sram_bytes);

/* Whether a chunk of any size (a host's choice) fits: C >= 1 and 8 * C * T + 128 KiB <= SRAM. */
int kc_reduce_chunk_fits(uint32_t chunk, uint32_t tiles, uint32_t sram_bytes);

/* The largest chunk that fits (for messages); 0 if not even C = 1 does. */
uint32_t kc_reduce_chunk_max(uint32_t tiles, uint32_t sram_bytes);

/* Every tile of the IPU must call it. A chunk that is a multiple of 4 (with `copies`
 * 16-aligned: kc_alloc16) is summed in f32v2 lanes, four elements a load; any other
 * (>= 1) by the scalar loop, unrolled for 4, 8, 16, 32 or 64 and with a variable stride
 * otherwise, slower. */
void kc_reduce_scatter(float *vec, float *copies, uint32_t chunk, struct kc_reduce_cycles *cycles);

#endif /* KERNELS_KREDUCE_H */
