// Exact RISC-V single-precision floating point (the F extension's arithmetic),
// for every rounding mode and with the exact fflags of the RISC-V spec: canonical NaN
// results, tininess detected after rounding, fcvt saturation, fmin/fmax of F 2.2.
//
// Values are passed as raw IEEE-754 bit patterns. Every function here is exact for
// rm in {RNE, RTZ, RDN, RUP, RMM}, ORs the flags it raises into `flags`, and leaves
// the host's floating-point environment (rounding mode and exception flags) exactly as
// it found it.
//
// The interpreter's fast path does RNE arithmetic with native host floats and collects
// the host's sticky exception flags (HostFlags below); the functions here are the exact
// reference and the slow path for the other rounding modes.
#pragma once

#include <cstdint>

namespace ipusim::iss::fpu {

enum Flag : uint32_t { NX = 1, UF = 2, OF = 4, DZ = 8, NV = 16 };
enum RoundingMode : uint32_t { RNE = 0, RTZ = 1, RDN = 2, RUP = 3, RMM = 4, DYN = 7 };
inline constexpr uint32_t kCanonicalNan = 0x7fc00000u;

uint32_t add(uint32_t a, uint32_t b, uint32_t rm, uint32_t& flags);
uint32_t sub(uint32_t a, uint32_t b, uint32_t rm, uint32_t& flags);
uint32_t mul(uint32_t a, uint32_t b, uint32_t rm, uint32_t& flags);
uint32_t div(uint32_t a, uint32_t b, uint32_t rm, uint32_t& flags);
uint32_t sqrt(uint32_t a, uint32_t rm, uint32_t& flags);
uint32_t madd(uint32_t a, uint32_t b, uint32_t c, uint32_t rm, uint32_t& flags);   //  a*b+c
uint32_t msub(uint32_t a, uint32_t b, uint32_t c, uint32_t rm, uint32_t& flags);   //  a*b-c
uint32_t nmsub(uint32_t a, uint32_t b, uint32_t c, uint32_t rm, uint32_t& flags);  // -a*b+c
uint32_t nmadd(uint32_t a, uint32_t b, uint32_t c, uint32_t rm, uint32_t& flags);  // -a*b-c

uint32_t min(uint32_t a, uint32_t b, uint32_t& flags);
uint32_t max(uint32_t a, uint32_t b, uint32_t& flags);
uint32_t eq(uint32_t a, uint32_t b, uint32_t& flags);  // quiet: NV only on sNaN
uint32_t lt(uint32_t a, uint32_t b, uint32_t& flags);  // signalling: NV on any NaN
uint32_t le(uint32_t a, uint32_t b, uint32_t& flags);
uint32_t classify(uint32_t a);                         // fclass.s bit mask

int32_t cvt_w_s(uint32_t a, uint32_t rm, uint32_t& flags);    // fcvt.w.s (saturating)
uint32_t cvt_wu_s(uint32_t a, uint32_t rm, uint32_t& flags);  // fcvt.wu.s (saturating)
uint32_t cvt_s_w(int32_t a, uint32_t rm, uint32_t& flags);    // fcvt.s.w
uint32_t cvt_s_wu(uint32_t a, uint32_t rm, uint32_t& flags);  // fcvt.s.wu

// The host FPU's sticky exception flags, as RISC-V fflags bits. The interpreter clears
// them before running a thread's quantum and harvests them after (and before any read
// of fflags / fcsr), so native RNE arithmetic yields exact RISC-V flags.
void host_flags_clear();
uint32_t host_flags_read();  // RISC-V NX/UF/OF/DZ/NV bits raised since the last clear

}  // namespace ipusim::iss::fpu
