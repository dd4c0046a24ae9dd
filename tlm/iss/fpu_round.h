// Internal to the exact F-extension arithmetic (fpu_*.cpp): binary32 field access and the
// one rounding step every arithmetic result goes through.
//
// Everything here is integer code. The arithmetic never executes a host floating-point
// instruction, so it cannot disturb (or depend on) the host's rounding mode and sticky
// exception flags, and the compiler has nothing to constant-fold or contract.
//
// A value in flight is (-1)^sign * sig * 2^exp with an integer sig. The producers make sig
// either exact or "round-to-odd": truncated, with the lowest bit forced to 1 when anything
// nonzero was dropped. Rounding such a value to fewer bits (at least two fewer) gives the
// same result and the same inexact/tiny decisions as rounding the exact value would, in
// every rounding mode (docs/fpu.md explains why).
#pragma once

#include <bit>
#include <cstdint>

#include "iss/fpu.h"

namespace ipusim::iss::fpu::detail {

inline constexpr uint32_t kSignBit = 0x8000'0000u;
inline constexpr uint32_t kMagMask = 0x7fff'ffffu;
inline constexpr uint32_t kFracMask = 0x007f'ffffu;
inline constexpr uint32_t kHiddenBit = 0x0080'0000u;
inline constexpr uint32_t kQuietBit = 0x0040'0000u;
inline constexpr uint32_t kInf = 0x7f80'0000u;
inline constexpr uint32_t kMaxFinite = 0x7f7f'ffffu;
inline constexpr int kMinExp = -149;  // exponent of the lowest significand bit of a subnormal

inline bool sign_of(uint32_t a) { return (a >> 31) != 0; }
inline bool is_nan(uint32_t a) { return (a & kMagMask) > kInf; }
inline bool is_snan(uint32_t a) { return is_nan(a) && (a & kQuietBit) == 0; }
inline bool is_inf(uint32_t a) { return (a & kMagMask) == kInf; }
inline bool is_zero(uint32_t a) { return (a & kMagMask) == 0; }
inline uint32_t signed_zero(bool sign) { return sign ? kSignBit : 0u; }
inline uint32_t signed_inf(bool sign) { return signed_zero(sign) | kInf; }

// The magnitude of a finite nonzero binary32 as sig * 2^exp, exactly (sig < 2^24).
struct Magnitude {
  uint64_t sig;
  int exp;
};

inline Magnitude unpack(uint32_t a) {
  const uint32_t biased = (a >> 23) & 0xffu;
  const uint32_t frac = a & kFracMask;
  if (biased == 0) return {frac, kMinExp};
  return {frac | kHiddenBit, static_cast<int>(biased) - 150};
}

// As unpack(), with sig shifted so its top bit is bit 23 (subnormals renormalised).
inline Magnitude unpack_normalised(uint32_t a) {
  Magnitude m = unpack(a);
  const int shift = std::countl_zero(m.sig) - 40;
  return {m.sig << shift, m.exp - shift};
}

inline int top_bit(uint64_t v) { return 63 - std::countl_zero(v); }

// sig >> n, with the lowest bit set if any dropped bit was nonzero (n >= 1, any size).
inline uint64_t shift_right_jam(uint64_t sig, int n) {
  if (n >= 64) return sig != 0;
  return (sig >> n) | ((sig & ((uint64_t{1} << n) - 1)) != 0);
}

// Drops the low `shift` (>= 1) bits of sig, rounding per rm for a value of the given sign.
// `inexact` tells whether anything nonzero was dropped. Requires sig < 2^62.
inline uint64_t shift_round(uint64_t sig, int shift, bool sign, uint32_t rm, bool& inexact) {
  if (shift > 62) {
    // The whole value is below half a unit of the kept lsb: only its stickiness matters.
    sig = sig != 0;
    shift = 2;
  }
  const uint64_t kept = sig >> shift;
  const uint64_t rest = sig & ((uint64_t{1} << shift) - 1);
  const uint64_t half = uint64_t{1} << (shift - 1);
  inexact = rest != 0;
  bool up;
  switch (rm) {
    case RTZ: up = false; break;
    case RDN: up = sign && rest != 0; break;
    case RUP: up = !sign && rest != 0; break;
    case RMM: up = rest >= half; break;
    default: up = rest > half || (rest == half && (kept & 1) != 0); break;  // RNE
  }
  return kept + up;
}

// The overflowed result: infinity, or the largest finite value when the mode rounds
// towards zero for this sign.
inline uint32_t overflow_result(bool sign, uint32_t rm, uint32_t& flags) {
  flags |= OF | NX;
  const bool to_max = rm == RTZ || (rm == RDN && !sign) || (rm == RUP && sign);
  return signed_zero(sign) | (to_max ? kMaxFinite : kInf);
}

// Rounds (-1)^sign * sig * 2^exp (sig nonzero, < 2^62, exact or round-to-odd with at least
// two bits beyond what is kept) to binary32 in mode rm, raising NX/UF/OF as RISC-V does:
// tininess is detected after rounding (as if the exponent range were unbounded), and UF
// is raised only for a tiny inexact result.
inline uint32_t round_pack(bool sign, uint64_t sig, int exp, uint32_t rm, uint32_t& flags) {
  const int msb = top_bit(sig);
  int top = msb + exp;  // the value lies in [2^top, 2^(top+1))
  if (top >= -126) {
    bool inexact = false;
    uint64_t m = msb <= 23 ? sig << (23 - msb) : shift_round(sig, msb - 23, sign, rm, inexact);
    if (m >> 24) {  // rounded up to the next power of two
      m >>= 1;
      ++top;
    }
    if (top > 127) return overflow_result(sign, rm, flags);
    if (inexact) flags |= NX;
    return signed_zero(sign) | (static_cast<uint32_t>(top + 127) << 23) |
           (static_cast<uint32_t>(m) & kFracMask);
  }
  // Below the normal range. Tiny unless rounding to 24 bits with an unbounded exponent
  // carries the value up to 2^-126.
  bool tiny = true;
  if (top == -127 && msb > 23) {
    bool unused;
    tiny = shift_round(sig, msb - 23, sign, rm, unused) < (uint64_t{1} << 24);
  }
  bool inexact = false;
  const int shift = kMinExp - exp;
  const uint64_t m = shift <= 0 ? sig << -shift : shift_round(sig, shift, sign, rm, inexact);
  if (inexact) flags |= tiny ? (NX | UF) : NX;
  return signed_zero(sign) | static_cast<uint32_t>(m);  // m == 2^23 encodes 2^-126
}

}  // namespace ipusim::iss::fpu::detail
