/*
 * stream.h: what stream.c (the driver and the naive f32 kernels), stream_opt.c (the f32
 * and f16 kernels written with the wide / vector intrinsics) and stream_asm.c (the
 * hand-written triad) share: one worker's slice of the arrays.
 */
#ifndef KERNELS_STREAM_H
#define KERNELS_STREAM_H

#include <stdint.h>

/* One worker's slice. The f32 kernels see n floats of each array from a, b, c; the f16
 * kernels the same bytes as 2n halves from a16, b16, c16. Every slice starts 16-byte
 * aligned and n is a multiple of 8 (stream.c sizes the arrays so). */
struct stream_job {
  float *a;
  const float *b, *c;
  uint16_t *a16;
  const uint16_t *b16, *c16;
  float s;           /* the scalar, 3 */
  uint32_t s16x2;    /* the scalar as f16 in both halves of a word */
  uint32_t n;        /* floats in the slice (2n halves) */
  uint32_t first;    /* global index (within the tile) of a[0]; a16[0] is 2 first */
  uint32_t tile;     /* global tile id: the inputs' row */
  uint32_t kernel;   /* for the check: index into stream.c's kernel table */
  uint32_t bad;      /* check: 1 + index of the first wrong element, or 0 */
  uint32_t got, want; /* check: its bits and the right ones */
};

/* stream_opt.c: the four operations with the intrinsics of ipu/xipu.h, f32 and f16. */
int stream_copy_opt(void *job);
int stream_scale_opt(void *job);
int stream_add_opt(void *job);
int stream_triad_opt(void *job);
int stream_copy_f16(void *job);
int stream_scale_f16(void *job);
int stream_add_f16(void *job);
int stream_triad_f16(void *job);

/* stream_asm.c: the hand-written f32 triad. */
int stream_triad_asm(void *job);

#endif /* KERNELS_STREAM_H */
