/* The streaming system tests' random plan, pure C: the firmware (smem_common.h) and the
 * C++ tests (smem_plan.h) both compute it with these functions, so a test knows exactly
 * which spans every tile wrote. Tile t owns SMEM_PLAN_REGION bytes from `base`; in round
 * r its copy k (of `copies`) lies in slice k of that region. */
#ifndef SMEM_PLAN_C_H
#define SMEM_PLAN_C_H

#include <stdint.h>

#include "kinputs.h" /* kin_mix (firmware/kernels) */

#define SMEM_PLAN_REGION 0x40000u
#define SMEM_PLAN_MAX_WORDS 2048u /* 8 KiB per copy at most */

static inline uint32_t smem_plan_slice(uint32_t copies) { return (SMEM_PLAN_REGION / copies) & ~3u; }
/* Copy k of tile t in round r: its length in words (1 .. SMEM_PLAN_MAX_WORDS). */
static inline uint32_t smem_plan_words(uint32_t seed, uint32_t t, uint32_t r, uint32_t k) {
  return 1 + kin_mix(t * 7919u + r * 104729u + k * 31u + seed) % SMEM_PLAN_MAX_WORDS;
}
/* ... and its streaming-memory offset. */
static inline uint64_t smem_plan_offset(uint64_t base, uint32_t seed, uint32_t copies, uint32_t t,
                                        uint32_t r, uint32_t k) {
  const uint32_t slack = smem_plan_slice(copies) / 4 - smem_plan_words(seed, t, r, k);
  return base + (uint64_t)t * SMEM_PLAN_REGION + (uint64_t)k * smem_plan_slice(copies) +
         4ull * (kin_mix(t ^ (r << 20) ^ (k << 26) ^ seed) % slack);
}
/* Word i of that copy. */
static inline uint32_t smem_plan_word(uint32_t t, uint32_t r, uint32_t k, uint32_t i) {
  return kin_mix(t << 24 ^ r << 16 ^ k << 13 ^ i);
}

#endif
