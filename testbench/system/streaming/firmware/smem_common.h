/* Shared by the streaming system-test programs: the random plan every tile can replay for
 * any other tile (so a reader knows what a writer wrote), and the word pattern. The C++
 * tests replay the same plan (smem_plan.h) to check byte counts and memory contents. */
#ifndef SMEM_COMMON_H
#define SMEM_COMMON_H

#include <stdint.h>
#include <stdio.h>

#include "ipu/xipu.h"

/* Each global tile owns SMEM_REGION bytes of streaming memory from SMEM_BASE. */
#ifndef SMEM_BASE
#define SMEM_BASE 0x100000u
#endif
#define SMEM_REGION 0x40000u
#define SMEM_MAX_WORDS 2048u /* 8 KiB per copy at most */
#ifndef SMEM_COPIES
#define SMEM_COPIES 1 /* copies per tile per phase, each in its own slice of the region */
#endif
#define SMEM_SLICE ((SMEM_REGION / SMEM_COPIES) & ~3u)

static inline uint32_t smem_mix(uint32_t x) {
  x ^= x >> 16;
  x *= 0x7feb352du;
  x ^= x >> 15;
  x *= 0x846ca68bu;
  x ^= x >> 16;
  return x;
}

/* Copy k of tile t in round r: length (words, 1..SMEM_MAX_WORDS) and offset in its region. */
static inline uint32_t smem_words(uint32_t t, uint32_t r, uint32_t k) {
  return 1 + smem_mix(t * 7919u + r * 104729u + k * 31u + SMEM_SEED) % SMEM_MAX_WORDS;
}
static inline uint64_t smem_offset(uint32_t t, uint32_t r, uint32_t k) {
  const uint32_t words = smem_words(t, r, k);
  const uint32_t slack = SMEM_SLICE / 4 - words;
  return SMEM_BASE + (uint64_t)t * SMEM_REGION + (uint64_t)k * SMEM_SLICE +
         4ull * (smem_mix(t ^ (r << 20) ^ (k << 26) ^ SMEM_SEED) % slack);
}
static inline uint32_t smem_word(uint32_t t, uint32_t r, uint32_t k, uint32_t i) {
  return smem_mix(t << 24 ^ r << 16 ^ k << 13 ^ i);
}

#endif
