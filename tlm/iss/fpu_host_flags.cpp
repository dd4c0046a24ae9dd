// The host FPU's sticky exception flags as RISC-V fflags, for the interpreter's native
// RNE fast path.
//
// On x86 the interpreter's float arithmetic runs on SSE, whose sticky flags live in MXCSR:
// reading and rewriting that one register is a few cycles, where <cfenv>'s
// feclearexcept() also rewrites the whole x87 environment. x86 detects tininess after
// rounding and, with underflow masked, raises UE only for a tiny inexact result: exactly
// RISC-V's UF. The denormal-operand flag (DE) has no RISC-V counterpart and is ignored.
// Other hosts use <cfenv>.
#include "iss/fpu.h"

#if defined(__SSE2__)
#include <xmmintrin.h>
#else
#include <cfenv>
#endif

namespace ipusim::iss::fpu {

#if defined(__SSE2__)

namespace {
constexpr uint32_t kMxcsrIE = 1u << 0, kMxcsrZE = 1u << 2, kMxcsrOE = 1u << 3, kMxcsrUE = 1u << 4,
                   kMxcsrPE = 1u << 5;
constexpr uint32_t kMxcsrAllFlags = 0x3fu;  // IE DE ZE OE UE PE
}  // namespace

void host_flags_clear() { _mm_setcsr(_mm_getcsr() & ~kMxcsrAllFlags); }

uint32_t host_flags_read() {
  const uint32_t csr = _mm_getcsr();
  uint32_t flags = 0;
  if (csr & kMxcsrIE) flags |= NV;
  if (csr & kMxcsrZE) flags |= DZ;
  if (csr & kMxcsrOE) flags |= OF;
  if (csr & kMxcsrUE) flags |= UF;
  if (csr & kMxcsrPE) flags |= NX;
  return flags;
}

#else

void host_flags_clear() { std::feclearexcept(FE_ALL_EXCEPT); }

uint32_t host_flags_read() {
  const int raised = std::fetestexcept(FE_ALL_EXCEPT);
  uint32_t flags = 0;
  if (raised & FE_INVALID) flags |= NV;
  if (raised & FE_DIVBYZERO) flags |= DZ;
  if (raised & FE_OVERFLOW) flags |= OF;
  if (raised & FE_UNDERFLOW) flags |= UF;
  if (raised & FE_INEXACT) flags |= NX;
  return flags;
}

#endif

}  // namespace ipusim::iss::fpu
