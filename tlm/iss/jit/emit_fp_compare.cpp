// The F comparisons and fmin / fmax of a region, natively where SSE's compare is RISC-V's.
//
// feq / flt / fle are exact on SSE for every operand: ucomiss raises invalid only for a
// signalling NaN (feq's NV), comiss for any NaN (flt / fle's NV), and an unordered compare
// reads as false; the flags reach fflags through the host's sticky flags like the fast
// path's arithmetic (the denormal-operand flag has no RISC-V counterpart and is ignored).
// fmin / fmax are native for two ordered operands (two zeros: min ORs the signs, max ANDs
// them, so -0 < +0 as F 2.2 wants); a NaN operand calls fpu::min / fpu::max, which the
// interpreter runs for every operand.
#include "iss/fpu.h"
#include "iss/jit/region_emitter.h"

namespace ipusim::iss::jit {

void RegionEmitter::fp_compare(Op op, const DecodedInsn& d) {
  const Reg32 a = read(d.rs1), b = read(d.rs2);
  g_.movd(xmm0, a);
  g_.movd(xmm1, b);
  g_.xor_(eax, eax);  // before the compare: xor writes the flags
  switch (op) {
    case Op::feq:  // equal and ordered
      g_.xor_(ecx, ecx);
      g_.ucomiss(xmm0, xmm1);
      g_.sete(al);
      g_.setnp(cl);
      g_.and_(eax, ecx);
      break;
    case Op::flt:  // b > a: false when unordered (CF = ZF = 1)
      g_.comiss(xmm1, xmm0);
      g_.seta(al);
      break;
    default:  // fle, b >= a: false when unordered (CF = 1)
      g_.comiss(xmm1, xmm0);
      g_.setae(al);
      break;
  }
  write(d.rd, eax);
}

void RegionEmitter::fp_min_max(uint32_t i, Op op) {
  const DecodedInsn& d = *at(i);
  const bool min = op == Op::fmin;
  const Reg32 a = read(d.rs1), b = read(d.rs2);
  Label& nan = new_label();
  Label& result = new_label();  // eax holds rd's new value
  Label& ordered = new_label();
  g_.movd(xmm0, a);
  g_.movd(xmm1, b);
  g_.ucomiss(xmm0, xmm1);  // invalid for a signalling NaN: fpu::min / max raise it too
  g_.jp(nan);
  g_.mov(eax, a);
  g_.jne(ordered);
  if (min) g_.or_(eax, b); else g_.and_(eax, b);  // equal: the same bits, or two zeros
  g_.jmp(result);
  g_.L(ordered);
  if (min) g_.cmova(eax, b); else g_.cmovb(eax, b);
  g_.L(result);
  const Snapshot snap = snapshot();  // the cache where the NaN path starts and rejoins
  write(d.rd, eax);
  using Fn = uint32_t (*)(uint32_t, uint32_t, uint32_t&);
  const Fn fn = min ? static_cast<Fn>(&fpu::min) : static_cast<Fn>(&fpu::max);
  stubs_.push_back([this, &nan, &result, a, b, fn, snap] {
    g_.L(nan);
    write_back(snap);  // the call clobbers the cache registers: reloaded from the file after
    g_.mov(eax, a);  // a and b may be in esi / edi: through scratch registers
    g_.mov(ecx, b);
    g_.mov(edi, eax);
    g_.mov(esi, ecx);
    g_.lea(rdx, g_.ptr[rbp + 4 * kFflagsReg]);  // the exact flags, ORed into fflags
    g_.mov(rax, reinterpret_cast<uintptr_t>(fn));
    call(rax);
    reload(snap);
    g_.jmp(result);
  });
}

}  // namespace ipusim::iss::jit
