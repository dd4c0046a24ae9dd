/*
 * stream_opt.c: STREAM's four operations written with the C intrinsics of ipu/xipu.h,
 * the wide loads / stores (IPU_LD64_PI, IPU_ST64_PI; ipu_ld128_pi, ipu_st128_pi for the
 * copy) and the paired-f32 / quad-f16 arithmetic (IPU_F32V2_*, IPU_F16V4_*), as a
 * programmer would write them: one loop per operation, two f32 or four f16 elements per
 * instruction, compiled at -O2 by GCC. The loops' pairs are variables bound to even
 * register pairs, the form of the intrinsics that GCC compiles without moves (ipu/xipu.h
 * says why), so each loop is its instructions, the pointer advances and the loop test.
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
  register ipu_f32x2 x __asm__("fa0"), y __asm__("fa2"), s __asm__("fa4");
  IPU_PAIR_SET(s, ipu_f32x2_make(j->s, j->s));
  for (uint32_t i = 0; i < j->n; i += 2) {
    IPU_LD64_PI(x, b);
    IPU_F32V2_MUL(y, x, s);
    IPU_ST64_PI(y, a);
  }
  return 0;
}

/* a = b + c. */
int stream_add_opt(void *arg) {
  const struct stream_job *j = arg;
  float *a = j->a;
  const float *b = j->b, *c = j->c;
  register ipu_f32x2 x __asm__("fa0"), y __asm__("fa2");
  for (uint32_t i = 0; i < j->n; i += 2) {
    IPU_LD64_PI(x, b);
    IPU_LD64_PI(y, c);
    IPU_F32V2_ADD(x, x, y);
    IPU_ST64_PI(x, a);
  }
  return 0;
}

/* a = b + s c (f32v2.axpy: fused). */
int stream_triad_opt(void *arg) {
  const struct stream_job *j = arg;
  float *a = j->a;
  const float *b = j->b, *c = j->c;
  const float s = j->s;
  register ipu_f32x2 x __asm__("fa0"), y __asm__("fa2");
  for (uint32_t i = 0; i < j->n; i += 2) {
    IPU_LD64_PI(x, b);
    IPU_LD64_PI(y, c);
    IPU_F32V2_AXPY(x, y, s);
    IPU_ST64_PI(x, a);
  }
  return 0;
}

/* ---- f16: 2n halves per slice, four per pair ---------------------------------------- */
/* The arrays are f16 bits; the pair macros move and compute them as the two 32-bit words
 * a register pair holds, so the pointers are to those words. */

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
  register ipu_f16x4 x __asm__("fa0"), y __asm__("fa2"), s __asm__("fa4");
  IPU_PAIR_SET(s, ipu_f16x4_make(s1, s1, s1, s1));
  for (uint32_t i = 0; i < 2u * j->n; i += 4) {
    IPU_LD64_PI(x, b);
    IPU_F16V4_MUL(y, x, s);
    IPU_ST64_PI(y, a);
  }
  return 0;
}

/* a = b + c. */
int stream_add_f16(void *arg) {
  const struct stream_job *j = arg;
  float *a = (float *)(void *)j->a16;
  const float *b = (const float *)(const void *)j->b16, *c = (const float *)(const void *)j->c16;
  register ipu_f16x4 x __asm__("fa0"), y __asm__("fa2");
  for (uint32_t i = 0; i < 2u * j->n; i += 4) {
    IPU_LD64_PI(x, b);
    IPU_LD64_PI(y, c);
    IPU_F16V4_ADD(x, x, y);
    IPU_ST64_PI(x, a);
  }
  return 0;
}

/* a = b + s c (f16v4.axpy: fused). */
int stream_triad_f16(void *arg) {
  const struct stream_job *j = arg;
  float *a = (float *)(void *)j->a16;
  const float *b = (const float *)(const void *)j->b16, *c = (const float *)(const void *)j->c16;
  const float s = ipu_f16_scalar((uint16_t)j->s16x2);
  register ipu_f16x4 x __asm__("fa0"), y __asm__("fa2");
  for (uint32_t i = 0; i < 2u * j->n; i += 4) {
    IPU_LD64_PI(x, b);
    IPU_LD64_PI(y, c);
    IPU_F16V4_AXPY(x, y, s);
    IPU_ST64_PI(x, a);
  }
  return 0;
}
