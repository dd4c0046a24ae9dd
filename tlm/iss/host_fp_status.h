// The host's floating-point status (sticky exception flags), saved and put back exactly
// (ISS-internal). The run loop collects native float flags into the running thread's
// fflags (fpu.h, host_flags_*); the AMP's arithmetic must not leave flags behind, so a
// run of AMP instructions saves the status first and restores it after (amp.cpp, and
// the scheduler if a quantum ends inside such a run).
#pragma once

#include <cstdint>

#if defined(__SSE__) && (defined(__x86_64__) || defined(__i386__))
#define IPUSIM_HOST_FP_MXCSR 1
#else
#include <cfenv>
#endif

namespace ipusim::iss {

// The asm statements clobber memory: float operations whose operands are loaded after a
// save and whose results are stored before a restore stay between the two.
inline uint32_t host_fp_status_save() {
#ifdef IPUSIM_HOST_FP_MXCSR
  uint32_t csr;
  __asm__ volatile("stmxcsr %0" : "=m"(csr) : : "memory");
  return csr;
#else
  return static_cast<uint32_t>(std::fetestexcept(FE_ALL_EXCEPT));
#endif
}

// LDMXCSR is slow (~3 ns, serialising, on the build host): once per run of AMP
// instructions, not once per instruction.
inline void host_fp_status_restore(uint32_t saved) {
#ifdef IPUSIM_HOST_FP_MXCSR
  __asm__ volatile("ldmxcsr %0" : : "m"(saved) : "memory");
#else
  std::feclearexcept(FE_ALL_EXCEPT);
  if (saved != 0) std::feraiseexcept(static_cast<int>(saved));  // traps are off: sets the flags only
#endif
}

}  // namespace ipusim::iss
