// Exact IEEE-754 binary16 arithmetic for the quad-f16 vector instructions and the f16/f32
// vector conversions (vector_fp.cpp; docs/xipu.md "Vector arithmetic"), ISS-internal.
//
// Round to nearest even only (the vector instructions ignore frm), RISC-V flags (tininess
// after rounding, UF only when tiny and inexact, NV on signalling NaN operands and invalid
// operations), canonical NaN results (0x7e00), subnormals kept.
//
// Integer code only, like fpu_round.h, for the same reasons: no host FP instruction runs,
// so nothing touches (or depends on) the host's rounding mode and sticky flags, and no
// compiler flag changes the results. Exactness needs no argument about double rounding:
// every f16 value is an integer multiple of 2^-24 and every product of two of them a
// multiple of 2^-48, with magnitude below 2^33 (65504^2 < 2^32). So a*b + c, a + b and
// a * b are held exactly as signed 128-bit integers in units of 2^-48 (at most 83 bits)
// and rounded once, by round_half() below.
#pragma once

#include <bit>
#include <cstdint>

#include "iss/fpu.h"
#include "iss/fpu_round.h"

namespace ipusim::iss::f16 {

__extension__ typedef unsigned __int128 u128;  // GCC/Clang; quiet under -Wpedantic
__extension__ typedef __int128 i128;

inline constexpr uint16_t kSignBit = 0x8000u;
inline constexpr uint16_t kMagMask = 0x7fffu;
inline constexpr uint16_t kInf = 0x7c00u;
inline constexpr uint16_t kQuietBit = 0x0200u;
inline constexpr uint16_t kCanonicalNan = 0x7e00u;
inline constexpr int kMinExp = -24;  // exponent of a subnormal's lowest significand bit
inline constexpr int kFixedExp = -48;  // the unit of the exact sums: 2^-48

inline bool sign_of(uint16_t a) { return (a >> 15) != 0; }
inline bool is_nan(uint16_t a) { return (a & kMagMask) > kInf; }
inline bool is_snan(uint16_t a) { return is_nan(a) && (a & kQuietBit) == 0; }
inline bool is_inf(uint16_t a) { return (a & kMagMask) == kInf; }
inline bool is_zero(uint16_t a) { return (a & kMagMask) == 0; }
inline uint16_t signed_zero(bool sign) { return sign ? kSignBit : uint16_t{0}; }
inline uint16_t signed_inf(bool sign) { return static_cast<uint16_t>(signed_zero(sign) | kInf); }

// A finite binary16 (zero included) as sig * 2^exp exactly: sig < 2^11, exp in [-24, 5].
struct Magnitude {
  uint64_t sig;
  int exp;
};
inline Magnitude unpack(uint16_t a) {
  const uint32_t biased = (a >> 10) & 0x1fu;
  const uint32_t frac = a & 0x3ffu;
  if (biased == 0) return {frac, kMinExp};
  return {frac | 0x400u, static_cast<int>(biased) - 25};
}

inline int top_bit(u128 v) {
  const uint64_t hi = static_cast<uint64_t>(v >> 64);
  return hi != 0 ? 127 - std::countl_zero(hi) : 63 - std::countl_zero(static_cast<uint64_t>(v));
}

// sig >> shift (shift >= 1) rounded to nearest even; `inexact` tells whether anything
// nonzero was dropped. The result fits 12 bits wherever it is used.
inline uint64_t shift_round_rne(u128 sig, int shift, bool& inexact) {
  if (shift > 126) {  // below half a unit of the kept lsb: only its stickiness matters
    sig = sig != 0;
    shift = 2;
  }
  const u128 kept = sig >> shift;
  const u128 rest = sig & ((u128{1} << shift) - 1);
  const u128 half = u128{1} << (shift - 1);
  inexact = rest != 0;
  const bool up = rest > half || (rest == half && (kept & 1) != 0);
  return static_cast<uint64_t>(kept) + up;
}

// Rounds (-1)^sign * sig * 2^exp (sig nonzero) to binary16, nearest even, with RISC-V's
// NX/UF/OF: the structure of fpu::detail::round_pack with binary16's 11-bit significand,
// exponent range [-14, 15] and subnormal step 2^-24.
inline uint16_t round_half(bool sign, u128 sig, int exp, uint32_t& flags) {
  const int msb = top_bit(sig);
  int top = msb + exp;  // the value lies in [2^top, 2^(top+1))
  if (top >= -14) {
    bool inexact = false;
    uint64_t m = msb <= 10 ? static_cast<uint64_t>(sig) << (10 - msb) : shift_round_rne(sig, msb - 10, inexact);
    if (m >> 11) {  // rounded up to the next power of two
      m >>= 1;
      ++top;
    }
    if (top > 15) {
      flags |= fpu::OF | fpu::NX;
      return signed_inf(sign);
    }
    if (inexact) flags |= fpu::NX;
    return static_cast<uint16_t>(signed_zero(sign) | static_cast<uint32_t>(top + 15) << 10 | (m & 0x3ffu));
  }
  // Below the normal range: tiny unless rounding to 11 bits with an unbounded exponent
  // carries the value up to 2^-14.
  bool tiny = true;
  if (top == -15 && msb > 10) {
    bool unused;
    tiny = shift_round_rne(sig, msb - 10, unused) < (uint64_t{1} << 11);
  }
  bool inexact = false;
  const int shift = kMinExp - exp;
  const uint64_t m = shift <= 0 ? static_cast<uint64_t>(sig) << -shift : shift_round_rne(sig, shift, inexact);
  if (inexact) flags |= tiny ? (fpu::NX | fpu::UF) : fpu::NX;
  return static_cast<uint16_t>(signed_zero(sign) | m);  // m == 2^10 encodes 2^-14
}

inline uint16_t nan_result(bool signalling, uint32_t& flags) {
  if (signalling) flags |= fpu::NV;
  return kCanonicalNan;
}
inline uint16_t invalid(uint32_t& flags) {
  flags |= fpu::NV;
  return kCanonicalNan;
}

// (-1)^s1 * sig1 * 2^e1 + (-1)^s2 * sig2 * 2^e2 (e1, e2 >= -48, values below 2^33), rounded
// once. An exact zero sum is +0 unless both terms are zeros of sign -, as IEEE 754 6.3
// says for round to nearest.
inline uint16_t sum_terms(bool s1, uint64_t sig1, int e1, bool s2, uint64_t sig2, int e2, uint32_t& flags) {
  const i128 t1 = static_cast<i128>(u128{sig1} << (e1 - kFixedExp));
  const i128 t2 = static_cast<i128>(u128{sig2} << (e2 - kFixedExp));
  const i128 sum = (s1 ? -t1 : t1) + (s2 ? -t2 : t2);
  if (sum == 0) return signed_zero(sig1 == 0 && sig2 == 0 && s1 && s2);
  return sum < 0 ? round_half(true, static_cast<u128>(-sum), kFixedExp, flags)
                 : round_half(false, static_cast<u128>(sum), kFixedExp, flags);
}

inline uint16_t add(uint16_t a, uint16_t b, uint32_t& flags) {
  if (is_nan(a) || is_nan(b)) return nan_result(is_snan(a) || is_snan(b), flags);
  if (is_inf(a)) return is_inf(b) && sign_of(a) != sign_of(b) ? invalid(flags) : a;
  if (is_inf(b)) return b;
  const Magnitude ma = unpack(a), mb = unpack(b);
  return sum_terms(sign_of(a), ma.sig, ma.exp, sign_of(b), mb.sig, mb.exp, flags);
}

inline uint16_t sub(uint16_t a, uint16_t b, uint32_t& flags) {
  // A NaN b keeps being a NaN of the same kind: the sign bit plays no part in it.
  return add(a, static_cast<uint16_t>(b ^ kSignBit), flags);
}

inline uint16_t mul(uint16_t a, uint16_t b, uint32_t& flags) {
  if (is_nan(a) || is_nan(b)) return nan_result(is_snan(a) || is_snan(b), flags);
  const bool sign = sign_of(a) != sign_of(b);
  if (is_inf(a) || is_inf(b)) return is_zero(a) || is_zero(b) ? invalid(flags) : signed_inf(sign);
  if (is_zero(a) || is_zero(b)) return signed_zero(sign);
  const Magnitude ma = unpack(a), mb = unpack(b);
  return round_half(sign, ma.sig * mb.sig, ma.exp + mb.exp, flags);
}

// a * b + c with one rounding.
inline uint16_t fma(uint16_t a, uint16_t b, uint16_t c, uint32_t& flags) {
  // 0 * inf is invalid even when c is a quiet NaN (RISC-V F, "Fused multiply-add").
  if ((is_inf(a) && is_zero(b)) || (is_zero(a) && is_inf(b))) return invalid(flags);
  if (is_nan(a) || is_nan(b) || is_nan(c)) return nan_result(is_snan(a) || is_snan(b) || is_snan(c), flags);
  const bool sp = sign_of(a) != sign_of(b);
  if (is_inf(a) || is_inf(b)) return is_inf(c) && sign_of(c) != sp ? invalid(flags) : signed_inf(sp);
  if (is_inf(c)) return c;
  const Magnitude ma = unpack(a), mb = unpack(b), mc = unpack(c);
  return sum_terms(sp, ma.sig * mb.sig, ma.exp + mb.exp, sign_of(c), mc.sig, mc.exp, flags);
}

// binary32 -> binary16, nearest even: OF / UF / NX as for arithmetic, NV for a sNaN.
inline uint16_t from_f32(uint32_t a, uint32_t& flags) {
  namespace d = fpu::detail;
  const bool sign = d::sign_of(a);
  if (d::is_nan(a)) return nan_result(d::is_snan(a), flags);
  if (d::is_inf(a)) return signed_inf(sign);
  if (d::is_zero(a)) return signed_zero(sign);
  const d::Magnitude m = d::unpack(a);  // sig < 2^24, exp >= -149
  return round_half(sign, m.sig, m.exp, flags);
}

// binary16 -> binary32: exact (every binary16 is a binary32); NV for a sNaN.
inline uint32_t to_f32(uint16_t a, uint32_t& flags) {
  namespace d = fpu::detail;
  const bool sign = sign_of(a);
  if (is_nan(a)) {
    if (is_snan(a)) flags |= fpu::NV;
    return fpu::kCanonicalNan;
  }
  if (is_inf(a)) return d::signed_inf(sign);
  if (is_zero(a)) return d::signed_zero(sign);
  const Magnitude m = unpack(a);
  return d::round_pack(sign, m.sig, m.exp, fpu::RNE, flags);  // exact: raises nothing
}

}  // namespace ipusim::iss::f16
