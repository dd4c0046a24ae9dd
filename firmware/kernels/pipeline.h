/*
 * pipeline.h: the shapes and the host interface of the `pipeline` kernel (pipeline.c,
 * docs/kernels.md), plain C shared with the host reference and the host program so that
 * all three cut the model the same way.
 *
 * Two dense layers of width D over micro-batches of PIPE_BATCH samples:
 *   y1 = relu(W1 x + b1) on IPU 0,  y2 = W2 y1 + b2 on IPU 1.
 * Each of the T tiles of an IPU owns R = pipe_rows(T) consecutive rows (D = R T): the
 * smallest R with R T >= PIPE_MIN_DIM, so even a 4-tile test chip has a 64-wide model.
 * A tile's slice of a D-vector for a micro-batch is the block [sample][row], R rows per
 * sample; the whole vector on a tile is the T blocks in tile order.
 */
#ifndef KERNELS_PIPELINE_H
#define KERNELS_PIPELINE_H

#include <stdint.h>

#define PIPE_BATCH 6u               /* samples per micro-batch: one per worker */
#define PIPE_MIN_DIM 64u            /* the narrowest model */
#define PIPE_MAX_ROWS 64u           /* R for a single tile */
#define PIPE_MAX_MICRO_BATCHES 8u   /* what pipeline_x / pipeline_y hold */
#define PIPE_DEFAULT_MICRO_BATCHES 4u
/* Floats of a tile's slices over every micro-batch, [micro-batch][sample][row]: its
 * inputs x on IPU 0 (pipeline_x) and its layer's outputs on IPUs 0 and 1 (pipeline_y). */
#define PIPE_IO_FLOATS (PIPE_MAX_MICRO_BATCHES * PIPE_BATCH * PIPE_MAX_ROWS)

/* pipeline_params.host_inputs: the host wrote every IPU-0 tile's pipeline_x. */
#define PIPE_HOST_INPUTS 0x50495058u /* 'PIPX' */

/* What a host program may write (by symbol, on every tile, before the run) to change the
 * defaults; the loader leaves it zero, which means: PIPE_DEFAULT_MICRO_BATCHES, inputs
 * made by the kernel from KIN_SEED_PIPE_X. */
struct pipeline_params {
  uint32_t micro_batches; /* 1 .. PIPE_MAX_MICRO_BATCHES, 0: the default */
  uint32_t host_inputs;   /* PIPE_HOST_INPUTS: use pipeline_x as written */
};

/* Cycles of one step on a tile (pipeline_steps[s], s = 0 .. N; tile 0's are printed):
 * the zone-1 all-gather of the layer's input, the workers' compute, the wait from the
 * end of compute to the zone-2 sync's release (the other IPU's step and the sync), and
 * the link transfer. Zero where the IPU has nothing to do in that step. */
struct pipeline_step {
  uint32_t gather, compute, sync, link;
};

/* Rows per tile for T tiles. */
static inline uint32_t pipe_rows(uint32_t tiles) { return (PIPE_MIN_DIM + tiles - 1) / tiles; }

/* Index of (micro-batch s, sample m, row r) in a tile's slices of R rows. */
static inline uint32_t pipe_io_index(uint32_t rows, uint32_t s, uint32_t m, uint32_t r) {
  return (s * PIPE_BATCH + m) * rows + r;
}

#endif /* KERNELS_PIPELINE_H */
