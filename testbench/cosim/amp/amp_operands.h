// Random operands for the AMP equivalence test: one amp.mac's W (rows x 4), x (4) and the
// bank's accumulators, drawn so the special cases come often: zeros of both signs,
// subnormals, infinities, quiet and signalling NaNs, values near the largest finite (sums
// that overflow), the smallest normals and subnormal accumulators (sums that underflow),
// and accumulators that cancel the first product exactly. Seeded: the same seed gives
// the same operands.
#pragma once

#include <cstdint>
#include <random>
#include <vector>

namespace ipusim::cosim::amp_test {

struct MacOperands {
  bool f16 = true;
  uint32_t rows = 0;
  std::vector<uint8_t> w;     // rows x 4, row-major: 2 (f16) or 4 (f32) bytes each
  std::vector<uint8_t> x;     // 4 values: 8 or 16 bytes
  std::vector<uint32_t> acc;  // rows f32 accumulators (bits)
};

class OperandSource {
 public:
  explicit OperandSource(uint64_t seed) : rng_(seed) {}
  MacOperands next(bool f16, uint32_t rows);

  uint32_t f32_value();  // one f32 (bits) from the mix
  uint16_t f16_value();  // one f16 (bits) from the mix

 private:
  uint32_t below(uint32_t n) { return static_cast<uint32_t>(rng_() % n); }
  std::mt19937_64 rng_;
};

}  // namespace ipusim::cosim::amp_test
