// The plan of firmware/smem_plan_c.h (the one the streaming test firmware follows) for
// the C++ tests: which spans each tile writes, to count bytes and check memory contents.
#pragma once

#include <cstdint>

extern "C" {
#include "smem_plan_c.h"
}

namespace smemplan {

constexpr uint32_t kBase = 0x100000u, kRegion = SMEM_PLAN_REGION, kMaxWords = SMEM_PLAN_MAX_WORDS;

struct Plan {
  uint32_t seed, copies;
  uint32_t slice() const { return smem_plan_slice(copies); }
  uint32_t words(uint32_t t, uint32_t r, uint32_t k) const { return smem_plan_words(seed, t, r, k); }
  uint64_t offset(uint32_t t, uint32_t r, uint32_t k) const { return smem_plan_offset(kBase, seed, copies, t, r, k); }
  static uint32_t word(uint32_t t, uint32_t r, uint32_t k, uint32_t i) { return smem_plan_word(t, r, k, i); }
};

}  // namespace smemplan
