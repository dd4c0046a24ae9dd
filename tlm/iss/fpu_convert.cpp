// F-extension conversions between binary32 and 32-bit integers: fcvt.w.s / fcvt.wu.s
// (round in the given mode, then saturate out-of-range and NaN inputs with NV and no NX,
// per the table in the spec's "Single-Precision Floating-Point Conversion" section) and
// fcvt.s.w / fcvt.s.wu (round in the given mode).
#include "iss/fpu.h"
#include "iss/fpu_round.h"

namespace ipusim::iss::fpu {
namespace {

using namespace detail;

// |a| (finite) rounded to an integer in mode rm, for a value of a's sign. Magnitudes of
// 2^40 and more are all out of range of any 32-bit result, so they are reported as 2^40.
uint64_t rounded_magnitude(uint32_t a, uint32_t rm, bool& inexact) {
  inexact = false;
  if (is_zero(a)) return 0;
  const Magnitude m = unpack(a);
  if (m.exp >= 0) return m.exp > 16 ? uint64_t{1} << 40 : m.sig << m.exp;
  return shift_round(m.sig, -m.exp, sign_of(a), rm, inexact);
}

}  // namespace

int32_t cvt_w_s(uint32_t a, uint32_t rm, uint32_t& flags) {
  constexpr uint32_t kMax = 0x7fff'ffffu, kMin = 0x8000'0000u;
  if (is_nan(a)) {
    flags |= NV;
    return static_cast<int32_t>(kMax);
  }
  const bool negative = sign_of(a);
  bool inexact = false;
  const uint64_t magnitude = is_inf(a) ? uint64_t{1} << 40 : rounded_magnitude(a, rm, inexact);
  if (magnitude > (negative ? uint64_t{kMin} : uint64_t{kMax})) {
    flags |= NV;
    return static_cast<int32_t>(negative ? kMin : kMax);
  }
  if (inexact) flags |= NX;
  const uint32_t bits = static_cast<uint32_t>(magnitude);
  return static_cast<int32_t>(negative ? 0u - bits : bits);
}

uint32_t cvt_wu_s(uint32_t a, uint32_t rm, uint32_t& flags) {
  if (is_nan(a)) {
    flags |= NV;
    return 0xffff'ffffu;
  }
  const bool negative = sign_of(a);
  bool inexact = false;
  const uint64_t magnitude = is_inf(a) ? uint64_t{1} << 40 : rounded_magnitude(a, rm, inexact);
  // A negative input is valid only when it rounds to zero (e.g. -0.3 in RTZ gives 0, NX).
  if (negative ? magnitude != 0 : magnitude > 0xffff'ffffu) {
    flags |= NV;
    return negative ? 0u : 0xffff'ffffu;
  }
  if (inexact) flags |= NX;
  return static_cast<uint32_t>(magnitude);
}

uint32_t cvt_s_w(int32_t a, uint32_t rm, uint32_t& flags) {
  if (a == 0) return 0;
  const bool negative = a < 0;
  const uint64_t magnitude = static_cast<uint64_t>(negative ? -int64_t{a} : int64_t{a});
  return round_pack(negative, magnitude, 0, rm, flags);
}

uint32_t cvt_s_wu(uint32_t a, uint32_t rm, uint32_t& flags) {
  if (a == 0) return 0;
  return round_pack(false, a, 0, rm, flags);
}

}  // namespace ipusim::iss::fpu
