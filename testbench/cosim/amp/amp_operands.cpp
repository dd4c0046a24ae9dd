#include "amp_operands.h"

#include <cmath>
#include <cstring>

namespace ipusim::cosim::amp_test {

uint32_t OperandSource::f32_value() {
  const uint32_t sign = below(2) << 31;
  const uint32_t frac = static_cast<uint32_t>(rng_()) & 0x7fffffu;
  auto with_exp = [&](uint32_t e) { return sign | e << 23 | frac; };
  switch (below(16)) {
    case 0: return sign;                                    // +-0
    case 1: return sign | (frac == 0 ? 1 : frac);           // subnormal
    case 2: return sign | 0x7f800000u;                      // +-infinity
    case 3: return sign | 0x7fc00000u | (frac & 0x3fffffu);  // quiet NaN
    case 4: return sign | 0x7f800000u | ((frac & 0x3fffffu) | 1);  // signalling NaN
    case 5: return with_exp(250 + below(5));                // huge: sums overflow
    case 6: return with_exp(1 + below(8));                  // tiny normal: sums underflow
    case 7: return static_cast<uint32_t>(rng_());           // any bits
    default: return with_exp(112 + below(32));              // ordinary, +-2^16 around 1
  }
}

uint16_t OperandSource::f16_value() {
  const uint16_t sign = static_cast<uint16_t>(below(2) << 15);
  const uint16_t frac = static_cast<uint16_t>(rng_() & 0x3ffu);
  auto with_exp = [&](uint32_t e) { return static_cast<uint16_t>(sign | e << 10 | frac); };
  switch (below(16)) {
    case 0: return sign;
    case 1: return static_cast<uint16_t>(sign | (frac == 0 ? 1 : frac));  // subnormal
    case 2: return static_cast<uint16_t>(sign | 0x7c00u);                   // infinity
    case 3: return static_cast<uint16_t>(sign | 0x7e00u | (frac & 0x1ffu));  // quiet NaN
    case 4: return static_cast<uint16_t>(sign | 0x7c00u | ((frac & 0x1ffu) | 1));  // signalling
    case 5: return with_exp(28 + below(3));  // near 65504
    case 6: return with_exp(1 + below(3));   // smallest normals
    case 7: return static_cast<uint16_t>(rng_());
    default: return with_exp(8 + below(16));
  }
}

namespace {

float value_of(const uint8_t* p, bool f16) {
  if (!f16) {
    float f;
    std::memcpy(&f, p, 4);
    return f;
  }
  uint16_t h;
  std::memcpy(&h, p, 2);
  const int e = (h >> 10) & 0x1f;
  const int frac = h & 0x3ff;
  if (e == 0x1f) return frac ? NAN : INFINITY;
  const float mag = e == 0 ? std::ldexp(static_cast<float>(frac), -24)
                           : std::ldexp(static_cast<float>(1024 + frac), e - 25);
  return (h & 0x8000) ? -mag : mag;
}

}  // namespace

MacOperands OperandSource::next(bool f16, uint32_t rows) {
  MacOperands m;
  m.f16 = f16;
  m.rows = rows;
  const size_t bytes = f16 ? 2 : 4;
  m.w.resize(rows * 4 * bytes);
  m.x.resize(4 * bytes);
  m.acc.resize(rows);
  auto fill = [&](std::vector<uint8_t>& v) {
    for (size_t i = 0; i < v.size(); i += bytes) {
      if (f16) {
        const uint16_t h = f16_value();
        std::memcpy(v.data() + i, &h, 2);
      } else {
        const uint32_t f = f32_value();
        std::memcpy(v.data() + i, &f, 4);
      }
    }
  };
  fill(m.w);
  fill(m.x);
  for (uint32_t i = 0; i < rows; ++i) {
    m.acc[i] = f32_value();
    if (below(8) == 0) {  // acc = -(W[i][0] * x[0]): the first sum cancels exactly
      const float cancel = -(value_of(&m.w[i * 4 * bytes], f16) * value_of(m.x.data(), f16));
      std::memcpy(&m.acc[i], &cancel, 4);
    }
  }
  return m;
}

}  // namespace ipusim::cosim::amp_test
