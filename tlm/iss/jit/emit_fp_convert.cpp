// The float <-> int conversions of a region: the interpreter's native cases (interp.cpp,
// docs/iss.md "Floating point"), natively; every other mode and operand calls
// loop_fp_convert, as the interpreter does.
//
// Native where the host's conversion is RISC-V's: integer -> f32 in RNE (cvtsi2ss: one
// IEEE rounding, inexact in the host's sticky flags like the interpreter's C cast), and
// f32 -> integer in RTZ (cvttss2si) for an operand whose biased exponent keeps it in
// range, tested on the bits before the host converts: NaN, overflow and (wu) negatives
// and -0 never reach cvttss2si, whose saturation and invalid flag differ from RISC-V's.
#include "iss/fpu.h"
#include "iss/jit/region_emitter.h"

namespace ipusim::iss::jit {

void RegionEmitter::fp_convert(uint32_t i, Op op) {
  const DecodedInsn& d = *at(i);
  const bool to_float = op == Op::fcvt_s_w || op == Op::fcvt_s_wu;
  const uint32_t native_rm = to_float ? fpu::RNE : fpu::RTZ;
  const auto rm = static_cast<uint32_t>(d.imm);
  if (rm != fpu::DYN && rm != native_rm) {  // a static mode the host does not have
    service(i, Service::fp_convert);
    return;
  }
  Label& exact = new_label();
  Label& result = new_label();  // eax holds rd's new value
  // The operand first, then the dyn frm check: one cache state where the exact path starts.
  const Reg32 a = read(d.rs1);
  if (rm == fpu::DYN) {
    g_.cmp(g_.dword[rbp + 4 * kFrmReg], native_rm);
    g_.jne(exact);
  }
  switch (op) {
    case Op::fcvt_s_w:
      g_.xorps(xmm0, xmm0);  // cvtsi2ss writes only the low lane: no false dependence
      g_.cvtsi2ss(xmm0, a);
      g_.movd(eax, xmm0);
      break;
    case Op::fcvt_s_wu:
      g_.mov(eax, a);  // zero-extended to 64 bits: the unsigned value, exactly
      g_.xorps(xmm0, xmm0);
      g_.cvtsi2ss(xmm0, rax);
      g_.movd(eax, xmm0);
      break;
    case Op::fcvt_w_s:  // |x| < 2^31: biased exponent below 127 + 31
      g_.mov(eax, a);
      g_.shr(eax, 23);
      g_.movzx(eax, al);
      g_.cmp(eax, 158);
      g_.jae(exact);
      g_.movd(xmm0, a);
      g_.cvttss2si(eax, xmm0);
      break;
    default:  // fcvt_wu_s, +0 <= x < 2^32: sign clear, biased exponent below 127 + 32
      g_.mov(eax, a);
      g_.shr(eax, 23);
      g_.cmp(eax, 159);
      g_.jae(exact);
      g_.movd(xmm0, a);
      g_.cvttss2si(rax, xmm0);  // in range: the 64-bit conversion's low half
      break;
  }
  g_.L(result);
  const Snapshot snap = snapshot();  // the cache at the exact path's start and where it rejoins
  write(d.rd, eax);
  stubs_.push_back([this, &exact, &result, i, rd = d.rd, snap] {
    g_.L(exact);
    stub_call(i, reinterpret_cast<const void*>(&loop_fp_convert), snap, true);
    g_.mov(eax, guest_mem(rd));
    g_.jmp(result);
  });
}

}  // namespace ipusim::iss::jit
