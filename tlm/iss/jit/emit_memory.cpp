// The loads and stores of a region: the fast loop's one-compare checks, the slow paths.
#include "iss/jit/region_emitter.h"

namespace ipusim::iss::jit {

void RegionEmitter::load(uint32_t i, Op op) {
  const DecodedInsn& d = *at(i);
  const Reg32 a = read(d.rs1);
  const unsigned lg = (op == Op::lb || op == Op::lbu) ? 0 : (op == Op::lh || op == Op::lhu) ? 1 : 2;
  g_.mov(eax, a);
  g_.add(eax, static_cast<uint32_t>(d.imm));
  if (lg == 0) {
    g_.cmp(eax, g_.dword[rbx + offsetof(Context, load_limit)]);
  } else {
    g_.mov(ecx, eax);
    g_.ror(ecx, lg);
    g_.cmp(ecx, g_.dword[rbx + offsetof(Context, load_limit) + 4 * lg]);
  }
  g_.jae(fault_stub(i));
  switch (op) {
    case Op::lb: g_.movsx(edx, g_.byte[r12 + rax]); break;
    case Op::lbu: g_.movzx(edx, g_.byte[r12 + rax]); break;
    case Op::lh: g_.movsx(edx, g_.word[r12 + rax]); break;
    case Op::lhu: g_.movzx(edx, g_.word[r12 + rax]); break;
    default: g_.mov(edx, g_.dword[r12 + rax]); break;  // lw, flw
  }
  write(d.rd, edx);
}

// Stores test the store range [store_lo, SRAM end); anything else is loop_store_slow's
// (a store below the code is allowed, one into code or out of SRAM faults).
void RegionEmitter::store(uint32_t i, Op op) {
  const DecodedInsn& d = *at(i);
  const Reg32 v = read(d.rs2);
  const Reg32 a = read(d.rs1);
  const unsigned lg = op == Op::sb ? 0 : op == Op::sh ? 1 : 2;
  g_.mov(eax, a);
  g_.add(eax, static_cast<uint32_t>(d.imm));
  if (lg == 0) {
    g_.cmp(eax, g_.dword[rbx + offsetof(Context, store_limit)]);
  } else {
    g_.mov(ecx, eax);
    g_.ror(ecx, lg);
    g_.cmp(ecx, g_.dword[rbx + offsetof(Context, store_limit) + 4 * lg]);
  }
  Label& slow = new_label();
  Label& back = new_label();
  g_.jae(slow);
  switch (lg) {
    case 0: g_.mov(g_.byte[r13 + rax], v.cvt8()); break;
    case 1: g_.mov(g_.word[r13 + rax], v.cvt16()); break;
    default: g_.mov(g_.dword[r13 + rax], v); break;
  }
  g_.L(back);
  stubs_.push_back([this, &slow, &back, i, snap = snapshot()] {
    g_.L(slow);
    call_service(i, reinterpret_cast<const void*>(&loop_store_slow));
    leave_if_failed(i);
    reload(snap);
    g_.jmp(back);
  });
}

// Native single-precision arithmetic, exactly the fast loop's: RNE (static, or dyn with
// frm = RNE; any other dyn mode goes to loop_fp_exact), the host's sticky flags as the

}  // namespace ipusim::iss::jit
