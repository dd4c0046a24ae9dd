/* Shared by the streaming system-test programs: the random plan every tile can replay for
 * any other tile (so a reader knows what a writer wrote), and the word pattern. The C++
 * tests replay the same plan (smem_plan_c.h, through smem_plan.h) to check byte counts and memory contents. */
#ifndef SMEM_COMMON_H
#define SMEM_COMMON_H

#include <stdint.h>
#include <stdio.h>

#include "ipu/xipu.h"

#include "smem_plan_c.h"

/* Each global tile owns SMEM_PLAN_REGION bytes of streaming memory from SMEM_BASE. */
#ifndef SMEM_BASE
#define SMEM_BASE 0x100000u
#endif
#define SMEM_REGION SMEM_PLAN_REGION
#define SMEM_MAX_WORDS SMEM_PLAN_MAX_WORDS
#ifndef SMEM_COPIES
#define SMEM_COPIES 1 /* copies per tile per phase, each in its own slice of the region */
#endif

static inline uint32_t smem_words(uint32_t t, uint32_t r, uint32_t k) { return smem_plan_words(SMEM_SEED, t, r, k); }
static inline uint64_t smem_offset(uint32_t t, uint32_t r, uint32_t k) {
  return smem_plan_offset(SMEM_BASE, SMEM_SEED, SMEM_COPIES, t, r, k);
}
static inline uint32_t smem_word(uint32_t t, uint32_t r, uint32_t k, uint32_t i) { return smem_plan_word(t, r, k, i); }

#endif
