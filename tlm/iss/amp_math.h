// The AMP's arithmetic (docs/xipu.md, custom-1), ISS-internal and bit-exact:
//   f16 -> f32 exactly (subnormals, infinities, NaNs); every product W[i][j] * x[j] in f32
//   (exact for f16 operands, rounded to nearest even for f32); then, per row,
//   acc = (((acc + p0) + p1) + p2) + p3, each addition one f32 operation in round to
//   nearest even. NaNs are made canonical when the accumulators are stored (a NaN
//   accumulator stays a NaN through any later addition, so that is the same result).
//
// Written with GCC vector extensions so amp.mac is straight-line SIMD: eight (or four)
// rows per vector, the four columns' products added one after another, which keeps the
// order of additions of every row. Only amp.cpp includes this header; it is compiled with the run
// loop's flags (-ffp-contract=off -frounding-math -fno-fast-math, see CMakeLists.txt): a
// fused multiply-add or a reassociated sum would break the rule.
//
// AMP never changes fflags, but native float operations raise the host's sticky flags,
// which the tile harvests into the running thread's fflags. amp.mac raises them, and the
// f16 conversion may (F16C, on a signalling NaN), so amp.cpp brackets amp.mac and
// amp.ldw.f16 with host_fp_status.h's save and restore.
//
// Plain SSE / AVX adds (2-cycle latency on the build host) beat AVX-512's embedded
// "round to nearest, suppress exceptions" forms (which need no restore, but take ~5
// cycles per add: the four dependent adds of a row are amp.mac's critical path).
#pragma once

#include <cstdint>
#include <cstring>

#include "iss/amp_state.h"

#ifdef __F16C__
#include <immintrin.h>
#endif

namespace ipusim::iss::amp {

using v8f = float __attribute__((vector_size(32)));
using v4f = float __attribute__((vector_size(16)));
using v4u = uint32_t __attribute__((vector_size(16)));
using v4i = int32_t __attribute__((vector_size(16)));
using v4h = uint16_t __attribute__((vector_size(8)));

inline constexpr uint32_t kCanonicalNan = 0x7fc00000u;

template <typename V>
inline V load(const float* p) {
  V v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
inline v4f load4(const float* p) { return load<v4f>(p); }
template <typename V>
inline void store(float* p, V v) { std::memcpy(p, &v, sizeof v); }
inline void store4(float* p, v4f v) { store(p, v); }
template <typename To, typename From>
inline To bits(From v) {
  static_assert(sizeof(To) == sizeof(From));
  To t;
  std::memcpy(&t, &v, sizeof t);
  return t;
}

// Four IEEE binary16 values (in the low halves of h) to binary32, exactly: rebias the
// exponent; infinities and NaNs keep an all-ones exponent (and their payload); zeros and
// subnormals are renormalised by one exact subtraction of 2^-14. The other lanes subtract
// 2^-14 from itself, so no lane raises a host flag (a signalling NaN meets no arithmetic).
inline v4f half_to_float(v4u h) {
  const v4u exp_mask = v4u{} + (0x7c00u << 13);
  const v4u two_m14 = v4u{} + (113u << 23);  // 2^-14 as f32
  const v4u mag = (h & 0x7fffu) << 13;
  const v4u exp = mag & exp_mask;
  const v4u infnan = reinterpret_cast<v4u>(exp == exp_mask);
  const v4u small = reinterpret_cast<v4u>(exp == 0u);
  v4u o = mag + ((127u - 15u) << 23);
  o += infnan & ((128u - 16u) << 23);
  o += small & (1u << 23);
  const v4u minuend = (small & o) | (~small & two_m14);
  const v4f renormalised = bits<v4f>(minuend) - bits<v4f>(two_m14);
  o = (small & bits<v4u>(renormalised)) | (~small & o);
  o |= (h & 0x8000u) << 16;
  return bits<v4f>(o);
}

// Four f16 at p as f32. With F16C one instruction (exact too; it raises the host's
// invalid flag for a signalling NaN, so amp.cpp brackets amp.ldw.f16 like amp.mac).
inline v4f load_half4(const uint8_t* p) {
#ifdef __F16C__
  return _mm_cvtph_ps(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(p)));
#else
  v4h h;
  std::memcpy(&h, p, sizeof h);
  return half_to_float(__builtin_convertvector(h, v4u));
#endif
}

// Rows r0..r3 of W (4 values each) stored as columns: w[j][i..i+3] = (r0[j], r1[j], r2[j], r3[j]).
inline void store_transposed(AmpState& s, uint32_t i, v4f r0, v4f r1, v4f r2, v4f r3) {
  const v4f t0 = __builtin_shuffle(r0, r1, v4i{0, 4, 1, 5});
  const v4f t1 = __builtin_shuffle(r0, r1, v4i{2, 6, 3, 7});
  const v4f t2 = __builtin_shuffle(r2, r3, v4i{0, 4, 1, 5});
  const v4f t3 = __builtin_shuffle(r2, r3, v4i{2, 6, 3, 7});
  store4(s.w[0] + i, __builtin_shuffle(t0, t2, v4i{0, 1, 4, 5}));
  store4(s.w[1] + i, __builtin_shuffle(t0, t2, v4i{2, 3, 6, 7}));
  store4(s.w[2] + i, __builtin_shuffle(t1, t3, v4i{0, 1, 4, 5}));
  store4(s.w[3] + i, __builtin_shuffle(t1, t3, v4i{2, 3, 6, 7}));
}

// amp.ldw: `rows` rows of 4 weights, row-major, at src (f16: 8 bytes a row, f32: 16).
template <bool F16>
inline void load_weights(AmpState& s, const uint8_t* src, uint32_t rows) {
  constexpr uint32_t kRowBytes = F16 ? 8 : 16;
  auto row = [&](uint32_t i) {
    if constexpr (F16) return load_half4(src + i * kRowBytes);
    else {
      v4f v;
      std::memcpy(&v, src + i * kRowBytes, sizeof v);  // bits as they are (NaN payloads too)
      return v;
    }
  };
  uint32_t i = 0;
  for (; i + 4 <= rows; i += 4) store_transposed(s, i, row(i), row(i + 1), row(i + 2), row(i + 3));
  for (; i < rows; ++i) {
    const v4f r = row(i);
    for (unsigned j = 0; j < 4; ++j) s.w[j][i] = r[j];
  }
  s.type = F16 ? AmpType::F16 : AmpType::F32;
  s.rows = rows;
}

// Rows i .. i + lanes - 1 of amp.mac: acc += W[.][0]*x0, then W[.][1]*x1, W[.][2]*x2,
// W[.][3]*x3, each product and each sum rounded to f32 in turn.
template <typename V>
inline void mac_rows(AmpState& s, float* acc, uint32_t i, float x0, float x1, float x2, float x3) {
  V a = load<V>(acc + i);
  a = a + load<V>(s.w[0] + i) * x0;
  a = a + load<V>(s.w[1] + i) * x1;
  a = a + load<V>(s.w[2] + i) * x2;
  a = a + load<V>(s.w[3] + i) * x3;
  store(acc + i, a);
}

// amp.mac on inputs x into accumulator bank `bank` (< kAmpBanks, checked by the decoder):
// 8 rows per step (one AVX register, or two SSE ones), then 4, then single rows (R need
// not be a multiple of 4: GC2's R32 is 2).
inline void multiply_accumulate(AmpState& s, uint32_t bank, v4f x) {
  const uint32_t rows = s.rows;
  float* const acc = s.acc[bank];
  uint32_t i = 0;
  for (; i + 8 <= rows; i += 8) mac_rows<v8f>(s, acc, i, x[0], x[1], x[2], x[3]);
  if (i + 4 <= rows) {
    mac_rows<v4f>(s, acc, i, x[0], x[1], x[2], x[3]);
    i += 4;
  }
  for (; i < rows; ++i) {  // R not a multiple of 4 (e.g. GC2's R32 = 2)
    float a = acc[i];
    a = a + s.w[0][i] * x[0];
    a = a + s.w[1][i] * x[1];
    a = a + s.w[2][i] * x[2];
    a = a + s.w[3][i] * x[3];
    acc[i] = a;
  }
}

// amp.ldw's arithmetic, operand already checked: raises no host flag.
inline void ldw_f16(AmpState& s, const uint8_t* src) { load_weights<true>(s, src, s.rows16); }
inline void ldw_f32(AmpState& s, const uint8_t* src) { load_weights<false>(s, src, s.rows32); }
// amp.mac's inputs as f32 (exact, no host flag).
template <bool F16>
inline v4f load_inputs(const uint8_t* x) {
  if constexpr (F16) return load_half4(x);
  v4f v;
  std::memcpy(&v, x, sizeof v);
  return v;
}

// amp.st: acc[bank][0..rows-1] as f32, NaNs canonical (integer operations only: no flags).
inline void store_accumulators(const AmpState& s, uint32_t bank, uint8_t* dst, uint32_t rows) {
  for (uint32_t i = 0; i < rows; ++i) {
    uint32_t b = bits<uint32_t>(s.acc[bank][i]);
    if ((b & 0x7fffffffu) > 0x7f800000u) b = kCanonicalNan;
    std::memcpy(dst + 4 * i, &b, 4);
  }
}
// amp.clr: every bank (the rows any amp.mac / amp.st of this tile can reach).
inline void clear_accumulators(AmpState& s) {
  for (auto& bank : s.acc)
    for (uint32_t i = 0; i < s.clr_rows; i += 8) store(bank + i, v8f{});
}

}  // namespace ipusim::iss::amp
