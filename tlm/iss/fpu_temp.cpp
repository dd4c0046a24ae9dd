// TEMPORARY stand-in for fpu.cpp (the exact FPU is written separately and replaces this
// file; tlm/iss/CMakeLists.txt picks the real one as soon as it exists). Host-float
// implementations: exact for RNE/RTZ/RDN/RUP on an IEEE host, RMM approximated by RNE.
#include <cfenv>
#include <cmath>
#include <cstring>

#include "iss/fpu.h"

#if defined(__SSE2__)
#include <xmmintrin.h>
#endif



namespace ipusim::iss::fpu {
namespace {

float F(uint32_t b) { float f; std::memcpy(&f, &b, 4); return f; }
uint32_t B(float f) { uint32_t b; std::memcpy(&b, &f, 4); return b; }
bool is_nan(uint32_t a) { return (a & 0x7f800000u) == 0x7f800000u && (a & 0x7fffffu); }
bool is_snan(uint32_t a) { return is_nan(a) && !(a & 0x400000u); }

uint32_t to_flags(int e) {
  uint32_t f = 0;
  if (e & FE_INEXACT) f |= NX;
  if (e & FE_UNDERFLOW) f |= UF;
  if (e & FE_OVERFLOW) f |= OF;
  if (e & FE_DIVBYZERO) f |= DZ;
  if (e & FE_INVALID) f |= NV;
  return f;
}
int host_rm(uint32_t rm) {
  switch (rm) {
    case RTZ: return FE_TOWARDZERO;
    case RDN: return FE_DOWNWARD;
    case RUP: return FE_UPWARD;
    default: return FE_TONEAREST;
  }
}

// Runs f() in rounding mode rm with clean flags; restores the caller's environment.
template <typename Fn>
uint32_t in_mode(uint32_t rm, uint32_t& flags, Fn fn) {
  std::fenv_t saved;
  std::feholdexcept(&saved);
  std::fesetround(host_rm(rm));
  volatile float r = fn();
  flags |= to_flags(std::fetestexcept(FE_ALL_EXCEPT));
  std::fesetenv(&saved);
  const uint32_t b = B(r);
  return is_nan(b) ? kCanonicalNan : b;
}

}  // namespace

uint32_t add(uint32_t a, uint32_t b, uint32_t rm, uint32_t& f) { return in_mode(rm, f, [&] { return F(a) + F(b); }); }
uint32_t sub(uint32_t a, uint32_t b, uint32_t rm, uint32_t& f) { return in_mode(rm, f, [&] { return F(a) - F(b); }); }
uint32_t mul(uint32_t a, uint32_t b, uint32_t rm, uint32_t& f) { return in_mode(rm, f, [&] { return F(a) * F(b); }); }
uint32_t div(uint32_t a, uint32_t b, uint32_t rm, uint32_t& f) { return in_mode(rm, f, [&] { return F(a) / F(b); }); }
uint32_t sqrt(uint32_t a, uint32_t rm, uint32_t& f) { return in_mode(rm, f, [&] { return std::sqrt(F(a)); }); }
uint32_t madd(uint32_t a, uint32_t b, uint32_t c, uint32_t rm, uint32_t& f) {
  return in_mode(rm, f, [&] { return std::fma(F(a), F(b), F(c)); });
}
uint32_t msub(uint32_t a, uint32_t b, uint32_t c, uint32_t rm, uint32_t& f) {
  return in_mode(rm, f, [&] { return std::fma(F(a), F(b), -F(c)); });
}
uint32_t nmsub(uint32_t a, uint32_t b, uint32_t c, uint32_t rm, uint32_t& f) {
  return in_mode(rm, f, [&] { return std::fma(-F(a), F(b), F(c)); });
}
uint32_t nmadd(uint32_t a, uint32_t b, uint32_t c, uint32_t rm, uint32_t& f) {
  return in_mode(rm, f, [&] { return std::fma(-F(a), F(b), -F(c)); });
}

uint32_t min(uint32_t a, uint32_t b, uint32_t& f) {
  if (is_snan(a) || is_snan(b)) f |= NV;
  if (is_nan(a) && is_nan(b)) return kCanonicalNan;
  if (is_nan(a)) return b;
  if (is_nan(b)) return a;
  if ((a | b) == 0x80000000u) return 0x80000000u;  // -0 < +0
  return F(a) < F(b) ? a : b;
}
uint32_t max(uint32_t a, uint32_t b, uint32_t& f) {
  if (is_snan(a) || is_snan(b)) f |= NV;
  if (is_nan(a) && is_nan(b)) return kCanonicalNan;
  if (is_nan(a)) return b;
  if (is_nan(b)) return a;
  if ((a | b) == 0x80000000u) return (a & b);
  return F(a) > F(b) ? a : b;
}
uint32_t eq(uint32_t a, uint32_t b, uint32_t& f) {
  if (is_snan(a) || is_snan(b)) f |= NV;
  return F(a) == F(b);
}
uint32_t lt(uint32_t a, uint32_t b, uint32_t& f) {
  if (is_nan(a) || is_nan(b)) { f |= NV; return 0; }
  return F(a) < F(b);
}
uint32_t le(uint32_t a, uint32_t b, uint32_t& f) {
  if (is_nan(a) || is_nan(b)) { f |= NV; return 0; }
  return F(a) <= F(b);
}
uint32_t classify(uint32_t a) {
  const bool neg = a >> 31;
  const uint32_t exp = (a >> 23) & 0xff, man = a & 0x7fffff;
  if (exp == 0xff) return man ? (man & 0x400000 ? 1u << 9 : 1u << 8) : neg ? 1u << 0 : 1u << 7;
  if (exp == 0) return man ? (neg ? 1u << 2 : 1u << 5) : (neg ? 1u << 3 : 1u << 4);
  return neg ? 1u << 1 : 1u << 6;
}

int32_t cvt_w_s(uint32_t a, uint32_t rm, uint32_t& f) {
  if (is_nan(a)) { f |= NV; return INT32_MAX; }
  std::fenv_t saved;
  std::feholdexcept(&saved);
  std::fesetround(host_rm(rm));
  const double r = std::nearbyint(static_cast<double>(F(a)));
  std::fesetenv(&saved);
  if (r < -2147483648.0) { f |= NV; return INT32_MIN; }
  if (r > 2147483647.0) { f |= NV; return INT32_MAX; }
  if (r != F(a)) f |= NX;
  return static_cast<int32_t>(r);
}
uint32_t cvt_wu_s(uint32_t a, uint32_t rm, uint32_t& f) {
  if (is_nan(a)) { f |= NV; return UINT32_MAX; }
  std::fenv_t saved;
  std::feholdexcept(&saved);
  std::fesetround(host_rm(rm));
  const double r = std::nearbyint(static_cast<double>(F(a)));
  std::fesetenv(&saved);
  if (r < 0.0) { f |= NV; return 0; }
  if (r > 4294967295.0) { f |= NV; return UINT32_MAX; }
  if (r != F(a)) f |= NX;
  return static_cast<uint32_t>(r);
}
uint32_t cvt_s_w(int32_t a, uint32_t rm, uint32_t& f) { return in_mode(rm, f, [&] { return static_cast<float>(a); }); }
uint32_t cvt_s_wu(uint32_t a, uint32_t rm, uint32_t& f) { return in_mode(rm, f, [&] { return static_cast<float>(a); }); }

#if defined(__SSE2__)
// The fast path's flags live in MXCSR; <cfenv> would also rewrite the x87 environment.
void host_flags_clear() { _mm_setcsr(_mm_getcsr() & ~0x3fu); }
uint32_t host_flags_read() {
  const uint32_t csr = _mm_getcsr();
  return (csr & 1 ? NV : 0u) | (csr & 4 ? DZ : 0u) | (csr & 8 ? OF : 0u) | (csr & 16 ? UF : 0u) |
         (csr & 32 ? NX : 0u);
}
#else
void host_flags_clear() { std::feclearexcept(FE_ALL_EXCEPT); }
uint32_t host_flags_read() { return to_flags(std::fetestexcept(FE_ALL_EXCEPT)); }
#endif

}  // namespace ipusim::iss::fpu
