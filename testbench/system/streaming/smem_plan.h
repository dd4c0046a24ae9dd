// The plan of firmware/smem_common.h replayed in C++: which spans each tile writes, so the
// tests can count bytes and check the streaming memory's contents after a run.
#pragma once

#include <cstdint>

namespace smemplan {

constexpr uint32_t kBase = 0x100000u, kRegion = 0x40000u, kMaxWords = 2048u;

inline uint32_t mix(uint32_t x) {
  x ^= x >> 16;
  x *= 0x7feb352du;
  x ^= x >> 15;
  x *= 0x846ca68bu;
  x ^= x >> 16;
  return x;
}

struct Plan {
  uint32_t seed, copies;
  uint32_t slice() const { return (kRegion / copies) & ~3u; }
  uint32_t words(uint32_t t, uint32_t r, uint32_t k) const {
    return 1 + mix(t * 7919u + r * 104729u + k * 31u + seed) % kMaxWords;
  }
  uint64_t offset(uint32_t t, uint32_t r, uint32_t k) const {
    const uint32_t slack = slice() / 4 - words(t, r, k);
    return kBase + uint64_t(t) * kRegion + uint64_t(k) * slice() +
           4ull * (mix(t ^ (r << 20) ^ (k << 26) ^ seed) % slack);
  }
  static uint32_t word(uint32_t t, uint32_t r, uint32_t k, uint32_t i) { return mix(t << 24 ^ r << 16 ^ k << 13 ^ i); }
};

}  // namespace smemplan
