/*
 * stream_opt.c: STREAM's four operations written with the C intrinsics of ipu/xipu.h,
 * the wide loads / stores (ipu_ld64_pi, ipu_ld128_pi, ipu_st64_pi, ipu_st128_pi) and the
 * paired-f32 / quad-f16 arithmetic (ipu_f32v2_*, ipu_f16v4_*), as a programmer would
 * write them: one loop per operation, two f32 or four f16 elements per instruction,
 * compiled at -O2 by GCC. The intrinsics pin their operands to fixed registers, so GCC
 * adds moves between them (docs/kernels.md counts the slots). Folding each step's store
 * into the next step's load (ipu_ld64st64_pi) carries a pair from one iteration to the
 * next, which GCC keeps in memory with these vector types: 17 instructions per pair for
 * the triad against 11 written plainly, so it is written plainly.
 */
#include "kcommon.h"
#include "stream.h"

/* ---- f32: n floats per slice, n a multiple of 8, 16-byte aligned ------------------- */

/* a = b, 16 bytes per load and store. */
int stream_copy_opt(void *arg) {
  const struct stream_job *j = arg;
  float *a = j->a;
  const float *b = j->b;
  for (uint32_t i = 0; i < j->n; i += 4) ipu_st128_pi(&a, ipu_ld128_pi(&b));
  return 0;
}

/* a = s b. */
int stream_scale_opt(void *arg) {
  const struct stream_job *j = arg;
  float *a = j->a;
  const float *b = j->b;
  const ipu_f32x2 s = {j->s, j->s};
  for (uint32_t i = 0; i < j->n; i += 2) ipu_st64_pi(&a, ipu_f32v2_mul(ipu_ld64_pi(&b), s));
  return 0;
}

/* a = b + c. */
int stream_add_opt(void *arg) {
  const struct stream_job *j = arg;
  float *a = j->a;
  const float *b = j->b, *c = j->c;
  for (uint32_t i = 0; i < j->n; i += 2)
    ipu_st64_pi(&a, ipu_f32v2_add(ipu_ld64_pi(&b), ipu_ld64_pi(&c)));
  return 0;
}

/* a = b + s c (f32v2.axpy: fused). */
int stream_triad_opt(void *arg) {
  const struct stream_job *j = arg;
  float *a = j->a;
  const float *b = j->b, *c = j->c;
  const float s = j->s;
  for (uint32_t i = 0; i < j->n; i += 2)
    ipu_st64_pi(&a, ipu_f32v2_axpy(ipu_ld64_pi(&b), ipu_ld64_pi(&c), s));
  return 0;
}

/* ---- f16: 2n halves per slice, four per pair ---------------------------------------- */
/* The wide intrinsics move f32 pairs; an f16x4 is the same 8 bytes (a vector cast is a
 * reinterpretation, no conversion). */
#define F16(v) ((ipu_f16x4)(v))
#define PAIR(v) ((ipu_f32x2)(v))

/* a = b: the same bytes as the f32 copy, moved the same way. */
int stream_copy_f16(void *arg) {
  const struct stream_job *j = arg;
  float *a = (float *)(void *)j->a16;
  const float *b = (const float *)(const void *)j->b16;
  for (uint32_t i = 0; i < 2u * j->n; i += 8) ipu_st128_pi(&a, ipu_ld128_pi(&b));
  return 0;
}

/* a = s b. */
int stream_scale_f16(void *arg) {
  const struct stream_job *j = arg;
  float *a = (float *)(void *)j->a16;
  const float *b = (const float *)(const void *)j->b16;
  const uint16_t s1 = (uint16_t)j->s16x2;
  const ipu_f16x4 s = {s1, s1, s1, s1};
  for (uint32_t i = 0; i < 2u * j->n; i += 4)
    ipu_st64_pi(&a, PAIR(ipu_f16v4_mul(F16(ipu_ld64_pi(&b)), s)));
  return 0;
}

/* a = b + c. */
int stream_add_f16(void *arg) {
  const struct stream_job *j = arg;
  float *a = (float *)(void *)j->a16;
  const float *b = (const float *)(const void *)j->b16, *c = (const float *)(const void *)j->c16;
  for (uint32_t i = 0; i < 2u * j->n; i += 4)
    ipu_st64_pi(&a, PAIR(ipu_f16v4_add(F16(ipu_ld64_pi(&b)), F16(ipu_ld64_pi(&c)))));
  return 0;
}

/* a = b + s c (f16v4.axpy: fused). */
int stream_triad_f16(void *arg) {
  const struct stream_job *j = arg;
  float *a = (float *)(void *)j->a16;
  const float *b = (const float *)(const void *)j->b16, *c = (const float *)(const void *)j->c16;
  const uint16_t s = (uint16_t)j->s16x2;
  for (uint32_t i = 0; i < 2u * j->n; i += 4)
    ipu_st64_pi(&a, PAIR(ipu_f16v4_axpy(F16(ipu_ld64_pi(&b)), F16(ipu_ld64_pi(&c)), s)));
  return 0;
}
