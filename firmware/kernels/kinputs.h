/*
 * kinputs.h: the kernels' deterministic inputs and result hash, as pure C (no Xipu), so
 * the host-side tests (testbench/system/kernels) generate exactly the same inputs.
 *
 * Every input element is a function of (seed, i, j) only, never of the order it is made
 * in, so any tile can make any part of a global matrix. The values are chosen to be
 * exactly representable and exactly convertible (no rounding outside the kernels' own
 * arithmetic): f32 values are multiples of 2^-23 in [-1, 1); f16 values are normal
 * numbers of magnitude [2^-3, 2), with one in 64 a subnormal.
 */
#ifndef KERNELS_KINPUTS_H
#define KERNELS_KINPUTS_H

#include <stdint.h>

/* Seeds of the kernels' inputs (one per input array). */
#define KIN_SEED_ALLREDUCE 0x41524544u /* "ARED" */
#define KIN_SEED_JACOBI 0x4a41434fu    /* "JACO" */
#define KIN_SEED_GEMM_A 0x47454d41u    /* "GEMA" */
#define KIN_SEED_GEMM_B 0x47454d42u    /* "GEMB" */
#define KIN_SEED_IPU_ALLREDUCE 0x49415244u /* "IARD" */
#define KIN_SEED_PIPE_X 0x50495058u  /* "PIPX": pipeline inputs */
#define KIN_SEED_PIPE_W1 0x50495731u /* "PIW1" */
#define KIN_SEED_PIPE_B1 0x50494231u /* "PIB1" */
#define KIN_SEED_PIPE_W2 0x50495732u /* "PIW2" */
#define KIN_SEED_PIPE_B2 0x50494232u /* "PIB2" */

/* A 32-bit integer mix with good avalanche (Chris Wellons' lowbias32). */
static inline uint32_t kin_mix(uint32_t x) {
  x ^= x >> 16;
  x *= 0x7feb352du;
  x ^= x >> 15;
  x *= 0x846ca68bu;
  x ^= x >> 16;
  return x;
}

/* The random word of element (i, j) of the input named by seed. */
static inline uint32_t kin_word(uint32_t seed, uint32_t i, uint32_t j) {
  return kin_mix(kin_mix(seed ^ (i * 0x9e3779b9u)) ^ (j * 0x85ebca6bu));
}

/* An f32 in [-1, 1): a 24-bit integer times 2^-23, minus 1. Every step is exact. */
static inline float kin_f32(uint32_t word) {
  return (float)(word >> 8) * (1.0f / 8388608.0f) - 1.0f;
}

/* An f16 bit pattern: random sign and mantissa; exponent 2^-3 .. 2^0, or (1 in 64) a
 * subnormal, so the AMP's subnormal path is exercised. */
static inline uint16_t kin_f16(uint32_t word) {
  uint32_t sign = (word >> 31) << 15;
  uint32_t mant = (word >> 6) & 0x3ffu;
  if ((word & 0x3fu) == 0) return (uint16_t)(sign | mant | 1u); /* subnormal, not zero */
  uint32_t exp = 12u + ((word >> 16) & 3u);                      /* biased: 12..15 */
  return (uint16_t)(sign | (exp << 10) | mant);
}

/* Result hash: FNV-1a over 32-bit words (the bit patterns of the results). */
#define KIN_HASH_INIT 2166136261u
static inline uint32_t kin_hash_word(uint32_t h, uint32_t word) {
  return (h ^ word) * 16777619u;
}

#endif /* KERNELS_KINPUTS_H */
