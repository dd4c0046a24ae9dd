// F-extension operations that never round: fmin/fmax (F 2.2: IEEE 754-2019
// minimumNumber / maximumNumber), the comparisons feq (quiet) / flt / fle (signalling),
// and fclass.
#include "iss/fpu.h"
#include "iss/fpu_round.h"

namespace ipusim::iss::fpu {
namespace {

using namespace detail;

// A key whose integer order is the numeric order of non-NaN values, with -0 below +0.
int64_t order_key(uint32_t a) {
  const int64_t magnitude = a & kMagMask;
  return sign_of(a) ? -magnitude - 1 : magnitude;
}

// minimumNumber / maximumNumber: a NaN operand gives way to the other one; two NaNs give
// the canonical NaN; a signalling NaN raises NV even when the result is not a NaN.
uint32_t min_max(uint32_t a, uint32_t b, bool want_max, uint32_t& flags) {
  if (is_snan(a) || is_snan(b)) flags |= NV;
  if (is_nan(a)) return is_nan(b) ? kCanonicalNan : b;
  if (is_nan(b)) return a;
  const bool a_below = order_key(a) < order_key(b);
  return a_below != want_max ? a : b;
}

}  // namespace

uint32_t min(uint32_t a, uint32_t b, uint32_t& flags) { return min_max(a, b, false, flags); }

uint32_t max(uint32_t a, uint32_t b, uint32_t& flags) { return min_max(a, b, true, flags); }

uint32_t eq(uint32_t a, uint32_t b, uint32_t& flags) {
  if (is_nan(a) || is_nan(b)) {
    if (is_snan(a) || is_snan(b)) flags |= NV;
    return 0;
  }
  return a == b || (is_zero(a) && is_zero(b));
}

uint32_t lt(uint32_t a, uint32_t b, uint32_t& flags) {
  if (is_nan(a) || is_nan(b)) {
    flags |= NV;
    return 0;
  }
  if (is_zero(a) && is_zero(b)) return 0;
  return order_key(a) < order_key(b);
}

uint32_t le(uint32_t a, uint32_t b, uint32_t& flags) {
  if (is_nan(a) || is_nan(b)) {
    flags |= NV;
    return 0;
  }
  if (is_zero(a) && is_zero(b)) return 1;
  return order_key(a) <= order_key(b);
}

uint32_t classify(uint32_t a) {
  const bool negative = sign_of(a);
  if (is_nan(a)) return is_snan(a) ? 1u << 8 : 1u << 9;
  if (is_inf(a)) return negative ? 1u << 0 : 1u << 7;
  if (is_zero(a)) return negative ? 1u << 3 : 1u << 4;
  if ((a & kInf) == 0) return negative ? 1u << 2 : 1u << 5;  // subnormal
  return negative ? 1u << 1 : 1u << 6;
}

}  // namespace ipusim::iss::fpu
