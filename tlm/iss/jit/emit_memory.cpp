// The loads and stores of a region: the fast loop's one-compare checks, the slow paths.
#include "iss/jit/region_emitter.h"

#include <xbyak/xbyak_util.h>

namespace ipusim::iss::jit {

namespace {

bool host_has_bmi2() {
  static const bool has = Xbyak::util::Cpu().has(Xbyak::util::Cpu::tBMI2);
  return has;
}

}  // namespace

// The offset rs1 + imm (wrapping at 32 bits, as the interpreter's uint32_t) as a 64-bit
// index register, and the fast loop's one-compare check of it against `limits` (the
// cache's load or store limits by log2 size, emitted as immediates): rotr(off, log2 size)
// < limit catches a misaligned or out-of-range access in one compare. Jumps to `fail` when it fails. The cache registers
// hold zero-extended values (every write to them is a 32-bit operation), so with no
// immediate rs1's own register is the index.
Xbyak::Reg64 RegionEmitter::emit_range_check(const Reg32& base, int32_t imm, unsigned lg, const uint32_t* limits,
                                              Label& fail) {
  Reg32 off = base;
  if (imm != 0) {
    g_.lea(eax, g_.ptr[base + imm]);  // 32-bit address arithmetic: wraps as uint32_t does
    off = eax;
  }
  const uint32_t limit = limits[lg];  // an immediate: no load in the check
  if (lg == 0) {
    g_.cmp(off, limit);
  } else if (host_has_bmi2()) {
    g_.rorx(ecx, off, lg);
    g_.cmp(ecx, limit);
  } else {
    g_.mov(ecx, off);
    g_.ror(ecx, lg);
    g_.cmp(ecx, limit);
  }
  g_.jae(fail);
  return Xbyak::Reg64(off.getIdx());
}

// In a loop's fast body an access the preheader checked (loop_hoist.cpp) has no check:
// its base register is in range for every iteration the body runs, and holds the exact
// (unwrapped) address, so the host address is load base + base + imm.
void RegionEmitter::load(uint32_t i, Op op) {
  const DecodedInsn& d = *at(i);
  const Reg32 a = read(d.rs1);
  Xbyak::RegExp addr = r12 + Xbyak::Reg64(a.getIdx()) + d.imm;
  if (!fast_ || !hoisted(i))
    addr = r12 + emit_range_check(a, d.imm, scalar_access_log2(op), site_.limits.load, fault_stub(i));
  const Reg32 r = slot_reg(dest(d.rd));  // after the check: a fault sees the registers before it
  switch (op) {
    case Op::lb: g_.movsx(r, g_.byte[addr]); break;
    case Op::lbu: g_.movzx(r, g_.byte[addr]); break;
    case Op::lh: g_.movsx(r, g_.word[addr]); break;
    case Op::lhu: g_.movzx(r, g_.word[addr]); break;
    default: g_.mov(r, g_.dword[addr]); break;  // lw, flw
  }
}

// Stores test the store range [store_lo, SRAM end); anything else is loop_store_slow's
// (a store below the code is allowed, one into code or out of SRAM faults).
void RegionEmitter::store(uint32_t i, Op op) {
  const DecodedInsn& d = *at(i);
  const Reg32 v = read(d.rs2);
  const Reg32 a = read(d.rs1);
  const unsigned lg = scalar_access_log2(op);
  const bool checked = !fast_ || !hoisted(i);  // else checked in the preheader, as load()
  Label* slow = checked ? &new_label() : nullptr;
  Xbyak::RegExp addr = r13 + Xbyak::Reg64(a.getIdx()) + d.imm;
  if (checked) addr = r13 + emit_range_check(a, d.imm, lg, site_.limits.store, *slow);
  switch (lg) {
    case 0: g_.mov(g_.byte[addr], v.cvt8()); break;
    case 1: g_.mov(g_.word[addr], v.cvt16()); break;
    default: g_.mov(g_.dword[addr], v); break;
  }
  if (!checked) return;
  Label& back = new_label();
  g_.L(back);
  stubs_.push_back([this, slow, &back, i, snap = snapshot()] {
    g_.L(*slow);
    stub_call(i, reinterpret_cast<const void*>(&loop_store_slow), snap, true);
    g_.jmp(back);
  });
}

}  // namespace ipusim::iss::jit
