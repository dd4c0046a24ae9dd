// Exact F-extension arithmetic: add, sub, mul, div, sqrt and the four fused multiply-adds.
//
// Each operation handles NaN / infinity / zero operands by the RISC-V rules, then forms
// the exact result (or its round-to-odd truncation) as an integer significand and hands it
// to round_pack(), which does the rounding and the NX/UF/OF flags for every mode.
#include "iss/fpu.h"

#include <utility>

#include "iss/fpu_round.h"

namespace ipusim::iss::fpu {
namespace {

using namespace detail;
__extension__ typedef unsigned __int128 u128;  // GCC/Clang; quiet under -Wpedantic

// A NaN result: always the canonical NaN; NV when an operand is signalling.
uint32_t nan_result(bool signalling, uint32_t& flags) {
  if (signalling) flags |= NV;
  return kCanonicalNan;
}

uint32_t invalid(uint32_t& flags) {
  flags |= NV;
  return kCanonicalNan;
}

// The sign of an exact zero sum of operands with opposite signs (IEEE 754 6.3).
uint32_t cancelled_zero(uint32_t rm) { return signed_zero(rm == RDN); }

// Rounds (-1)^sx * sigx * 2^ex + (-1)^sy * sigy * 2^ey exactly (both sigs nonzero,
// < 2^48). The term with the larger magnitude order is put at the top of a 128-bit integer;
// the other is shifted into place, and only when it reaches below bit 0 (so it is tiny next
// to the first) are its lost bits jammed into bit 0. The first term is even there (its low
// 78 bits are zero), so a jammed sum or difference is odd: a round-to-odd truncation.
uint32_t add_terms(bool sx, uint64_t sigx, int ex, bool sy, uint64_t sigy, int ey, uint32_t rm,
                   uint32_t& flags) {
  if (top_bit(sigx) + ex < top_bit(sigy) + ey) {
    std::swap(sx, sy);
    std::swap(sigx, sigy);
    std::swap(ex, ey);
  }
  const int lift = 125 - top_bit(sigx);
  const u128 x = u128{sigx} << lift;
  const int base = ex - lift;  // the exponent of bit 0
  const int pos = ey - base;   // where y's lowest bit lands (pos + top_bit(sigy) <= 125)
  const u128 y = pos >= 0 ? u128{sigy} << pos : u128{shift_right_jam(sigy, -pos)};
  u128 sum;
  bool sign = sx;
  if (sx == sy) {
    sum = x + y;
  } else if (x >= y) {
    sum = x - y;
  } else {
    sum = y - x;
    sign = sy;
  }
  if (sum == 0) return cancelled_zero(rm);
  // Narrow to 62 bits for round_pack, keeping the round-to-odd property.
  int exp = base;
  const uint64_t hi = static_cast<uint64_t>(sum >> 64);
  const int msb = hi != 0 ? 64 + top_bit(hi) : top_bit(static_cast<uint64_t>(sum));
  if (msb > 61) {
    const int drop = msb - 61;
    const u128 lost = sum & ((u128{1} << drop) - 1);
    sum = (sum >> drop) | (lost != 0);
    exp += drop;
  }
  return round_pack(sign, static_cast<uint64_t>(sum), exp, rm, flags);
}

uint32_t add_signed(uint32_t a, uint32_t b, uint32_t rm, uint32_t& flags) {
  if (is_nan(a) || is_nan(b)) return nan_result(is_snan(a) || is_snan(b), flags);
  if (is_inf(a)) return is_inf(b) && sign_of(a) != sign_of(b) ? invalid(flags) : a;
  if (is_inf(b)) return b;
  if (is_zero(a) && is_zero(b)) return sign_of(a) == sign_of(b) ? a : cancelled_zero(rm);
  if (is_zero(a)) return b;
  if (is_zero(b)) return a;
  const Magnitude ma = unpack(a), mb = unpack(b);
  return add_terms(sign_of(a), ma.sig, ma.exp, sign_of(b), mb.sig, mb.exp, rm, flags);
}

// (-1)^negate_product * a * b + (-1)^negate_addend * c, rounded once.
uint32_t fused(uint32_t a, uint32_t b, uint32_t c, bool negate_product, bool negate_addend,
               uint32_t rm, uint32_t& flags) {
  // 0 * inf is invalid even when c is a quiet NaN (RISC-V F, "Fused multiply-add").
  if ((is_inf(a) && is_zero(b)) || (is_zero(a) && is_inf(b))) return invalid(flags);
  if (is_nan(a) || is_nan(b) || is_nan(c))
    return nan_result(is_snan(a) || is_snan(b) || is_snan(c), flags);
  const bool sp = sign_of(a) != sign_of(b) ? !negate_product : negate_product;
  const bool sc = sign_of(c) != negate_addend;
  if (is_inf(a) || is_inf(b)) {
    if (is_inf(c) && sc != sp) return invalid(flags);
    return signed_inf(sp);
  }
  if (is_inf(c)) return signed_inf(sc);
  if (is_zero(a) || is_zero(b)) {
    if (is_zero(c)) return sp == sc ? signed_zero(sp) : cancelled_zero(rm);
    return c ^ (negate_addend ? kSignBit : 0u);
  }
  const Magnitude ma = unpack(a), mb = unpack(b);
  const uint64_t product = ma.sig * mb.sig;  // exact: < 2^48
  if (is_zero(c)) return round_pack(sp, product, ma.exp + mb.exp, rm, flags);
  const Magnitude mc = unpack(c);
  return add_terms(sp, product, ma.exp + mb.exp, sc, mc.sig, mc.exp, rm, flags);
}

// floor(sqrt(n)) by the binary digit-by-digit method, for n < 2^56; rest = n - root^2.
// Branch-free steps: on random operands a data-dependent branch here mispredicts half
// the time.
uint64_t integer_sqrt(uint64_t n, uint64_t& rest) {
  uint64_t root = 0;
  for (uint64_t bit = uint64_t{1} << 54; bit != 0; bit >>= 2) {
    const uint64_t trial = root + bit;
    const uint64_t take = uint64_t{0} - (n >= trial);  // all ones when the digit is 1
    n -= trial & take;
    root = (root >> 1) + (bit & take);
  }
  rest = n;
  return root;
}

}  // namespace

uint32_t add(uint32_t a, uint32_t b, uint32_t rm, uint32_t& flags) {
  return add_signed(a, b, rm, flags);
}

uint32_t sub(uint32_t a, uint32_t b, uint32_t rm, uint32_t& flags) {
  // A NaN b keeps its bits (its sign is irrelevant: NaN results are canonical).
  return add_signed(a, is_nan(b) ? b : b ^ kSignBit, rm, flags);
}

uint32_t mul(uint32_t a, uint32_t b, uint32_t rm, uint32_t& flags) {
  if (is_nan(a) || is_nan(b)) return nan_result(is_snan(a) || is_snan(b), flags);
  const bool sign = sign_of(a) != sign_of(b);
  if (is_inf(a) || is_inf(b)) return is_zero(a) || is_zero(b) ? invalid(flags) : signed_inf(sign);
  if (is_zero(a) || is_zero(b)) return signed_zero(sign);
  const Magnitude ma = unpack(a), mb = unpack(b);
  return round_pack(sign, ma.sig * mb.sig, ma.exp + mb.exp, rm, flags);
}

uint32_t div(uint32_t a, uint32_t b, uint32_t rm, uint32_t& flags) {
  if (is_nan(a) || is_nan(b)) return nan_result(is_snan(a) || is_snan(b), flags);
  const bool sign = sign_of(a) != sign_of(b);
  if (is_inf(a)) return is_inf(b) ? invalid(flags) : signed_inf(sign);
  if (is_inf(b)) return signed_zero(sign);
  if (is_zero(b)) {
    if (is_zero(a)) return invalid(flags);
    flags |= DZ;
    return signed_inf(sign);
  }
  if (is_zero(a)) return signed_zero(sign);
  const Magnitude ma = unpack_normalised(a), mb = unpack_normalised(b);
  // Both sigs are in [2^23, 2^24): the quotient has 39 or 40 bits, plenty to round to 24.
  const uint64_t dividend = ma.sig << 39;
  const uint64_t quotient = dividend / mb.sig;
  const uint64_t sticky = dividend % mb.sig != 0;
  return round_pack(sign, quotient | sticky, ma.exp - mb.exp - 39, rm, flags);
}

uint32_t sqrt(uint32_t a, uint32_t rm, uint32_t& flags) {
  if (is_nan(a)) return nan_result(is_snan(a), flags);
  if (is_zero(a)) return a;  // sqrt(-0) = -0
  if (sign_of(a)) return invalid(flags);
  if (is_inf(a)) return a;
  Magnitude m = unpack_normalised(a);
  if (m.exp & 1) {  // make the exponent even so it halves exactly
    m.sig <<= 1;
    m.exp -= 1;
  }
  // sig << 30 is in [2^53, 2^55): its root has 27 or 28 bits, enough to round to 24.
  uint64_t rest;
  const uint64_t root = integer_sqrt(m.sig << 30, rest);
  return round_pack(false, root | (rest != 0), (m.exp - 30) / 2, rm, flags);
}

uint32_t madd(uint32_t a, uint32_t b, uint32_t c, uint32_t rm, uint32_t& flags) {
  return fused(a, b, c, false, false, rm, flags);
}

uint32_t msub(uint32_t a, uint32_t b, uint32_t c, uint32_t rm, uint32_t& flags) {
  return fused(a, b, c, false, true, rm, flags);
}

uint32_t nmsub(uint32_t a, uint32_t b, uint32_t c, uint32_t rm, uint32_t& flags) {
  return fused(a, b, c, true, false, rm, flags);
}

uint32_t nmadd(uint32_t a, uint32_t b, uint32_t c, uint32_t rm, uint32_t& flags) {
  return fused(a, b, c, true, true, rm, flags);
}

}  // namespace ipusim::iss::fpu
