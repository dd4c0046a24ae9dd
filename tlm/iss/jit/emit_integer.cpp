// The integer instructions of a region: RV32I ALU ops, the M extension, the branches.
#include "iss/jit/region_emitter.h"

namespace ipusim::iss::jit {

// Results go straight into the destination's cache register where the operands allow:
// `op rd, rs1, x` is `mov rd, rs1; op rd, x` (just `op rd, x` when rd is rs1). dest()
// evicts the least recently used slot, never the operands' (just read).
void RegionEmitter::alu_imm(Op op, const DecodedInsn& d) {
  const Reg32 a = read(d.rs1);
  const uint32_t imm = static_cast<uint32_t>(d.imm);
  if (op == Op::slti || op == Op::sltiu) {
    g_.xor_(eax, eax);
    g_.cmp(a, imm);
    if (op == Op::slti) g_.setl(al); else g_.setb(al);
    write(d.rd, eax);
    return;
  }
  const Reg32 r = slot_reg(dest(d.rd));
  if (r.getIdx() != a.getIdx()) g_.mov(r, a);
  switch (op) {
    case Op::addi: if (imm != 0) g_.add(r, imm); break;
    case Op::xori: g_.xor_(r, imm); break;
    case Op::ori: g_.or_(r, imm); break;
    case Op::andi: g_.and_(r, imm); break;
    case Op::slli: g_.shl(r, imm & 31); break;
    case Op::srli: g_.shr(r, imm & 31); break;
    default: g_.sar(r, imm & 31); break;  // srai
  }
}

void RegionEmitter::alu_reg(Op op, const DecodedInsn& d) {
  const Reg32 a = read(d.rs1), b = read(d.rs2);
  switch (op) {
    case Op::slt:
    case Op::sltu:
      g_.xor_(eax, eax);
      g_.cmp(a, b);
      if (op == Op::slt) g_.setl(al); else g_.setb(al);
      write(d.rd, eax);
      return;
    case Op::sll:
    case Op::srl:
    case Op::sra:
      g_.mov(ecx, b);  // x86 masks a 32-bit shift count to 5 bits, as RISC-V does
      g_.mov(eax, a);
      if (op == Op::sll) g_.shl(eax, cl); else if (op == Op::srl) g_.shr(eax, cl); else g_.sar(eax, cl);
      write(d.rd, eax);
      return;
    default: break;
  }
  // rd = rs2 (not rs1): a commutative op is `op rd, rs1`; sub goes through eax (the mov
  // into rd would overwrite rs2 first).
  const bool rd_is_b = d.rd == d.rs2 && d.rd != d.rs1;
  const bool via_scratch = rd_is_b && op == Op::sub;
  const Reg32 r = via_scratch ? eax : slot_reg(dest(d.rd));
  const Reg32 x = rd_is_b && !via_scratch ? b : a;  // r holds x, then r op= y
  const Reg32 y = rd_is_b && !via_scratch ? a : b;
  if (r.getIdx() != x.getIdx()) g_.mov(r, x);
  switch (op) {
    case Op::add: g_.add(r, y); break;
    case Op::sub: g_.sub(r, y); break;
    case Op::xor_: g_.xor_(r, y); break;
    case Op::or_: g_.or_(r, y); break;
    default: g_.and_(r, y); break;  // and
  }
  if (via_scratch) write(d.rd, eax);
}

// The M extension, with RISC-V's results for a zero divisor (quotient all ones, remainder
// the dividend) and for INT32_MIN / -1 (quotient the dividend, remainder 0): x86 would trap.
void RegionEmitter::muldiv(Op op, const DecodedInsn& d) {
  const Reg32 a = read(d.rs1), b = read(d.rs2);
  if (op == Op::mul) {  // into rd's register, as alu_reg (commutative)
    const Reg32 r = slot_reg(dest(d.rd));
    if (r.getIdx() == b.getIdx()) {
      g_.imul(r, a);
    } else {
      if (r.getIdx() != a.getIdx()) g_.mov(r, a);
      g_.imul(r, b);
    }
    return;
  }
  switch (op) {
    case Op::mulh:
      g_.movsxd(rax, a);
      g_.movsxd(rcx, b);
      g_.imul(rax, rcx);
      g_.sar(rax, 32);
      break;
    case Op::mulhsu:
      g_.movsxd(rax, a);
      g_.mov(ecx, b);  // zero-extends: the unsigned operand
      g_.imul(rax, rcx);
      g_.sar(rax, 32);
      break;
    case Op::mulhu:
      g_.mov(eax, a);
      g_.mov(ecx, b);
      g_.imul(rax, rcx);
      g_.shr(rax, 32);
      break;
    case Op::div:
    case Op::rem: {
      Label zero, ovf, done;
      g_.mov(eax, a);
      g_.mov(ecx, b);
      g_.test(ecx, ecx);
      g_.jz(zero);
      g_.cmp(ecx, -1);
      g_.jne(ovf);  // not -1: cannot overflow
      g_.cmp(eax, 0x80000000u);
      g_.jne(ovf);
      if (op == Op::rem) g_.xor_(eax, eax);  // div: the dividend, already in eax
      g_.jmp(done);
      g_.L(ovf);
      g_.cdq();
      g_.idiv(ecx);
      if (op == Op::rem) g_.mov(eax, edx);
      g_.jmp(done);
      g_.L(zero);
      if (op == Op::div) g_.mov(eax, ~0u);  // rem: the dividend, already in eax
      g_.L(done);
      break;
    }
    default: {  // divu, remu
      Label zero, done;
      g_.mov(eax, a);
      g_.mov(ecx, b);
      g_.test(ecx, ecx);
      g_.jz(zero);
      g_.xor_(edx, edx);
      g_.div(ecx);
      if (op == Op::remu) g_.mov(eax, edx);
      g_.jmp(done);
      g_.L(zero);
      if (op == Op::divu) g_.mov(eax, ~0u);
      g_.L(done);
    }
  }
  write(d.rd, eax);
}

namespace {

// After `cmp rs1, rs2`: jumps to `to` when the branch `op` (beq .. bgeu) is taken, or with
// `taken` false when it is not (the pairs beq / bne, blt / bge, bltu / bgeu invert each other).
void jump_if(Xbyak::CodeGenerator& g, Op op, bool taken, Label& to) {
  unsigned k = static_cast<unsigned>(op) - static_cast<unsigned>(Op::beq);
  if (!taken) k ^= 1;
  switch (k) {
    case 0: g.je(to); break;   // beq
    case 1: g.jne(to); break;  // bne
    case 2: g.jl(to); break;   // blt
    case 3: g.jge(to); break;  // bge
    case 4: g.jb(to); break;   // bltu
    default: g.jae(to); break; // bgeu
  }
}

}  // namespace

void RegionEmitter::branch(uint32_t i, Op op) {
  const DecodedInsn& d = *at(i);
  const uint32_t target = i + static_cast<uint32_t>(d.imm / static_cast<int32_t>(sizeof(DecodedInsn)));
  const Reg32 a = read(d.rs1), b = read(d.rs2);
  g_.cmp(a, b);
  const uint32_t n = i - start_ + 1;
  if (target == start_) {
    // A loop's back edge: the jump back is inline and the not-taken way jumps over it, so
    // an iteration takes one host branch (taken_exit's jg to the top), not two (to a
    // stub, and the stub's back to the top).
    Label& on = new_label();
    jump_if(g_, op, false, on);
    taken_exit(target, n, snapshot());
    g_.L(on);
    return;
  }
  Label& taken = new_label();
  jump_if(g_, op, true, taken);
  stubs_.push_back([this, &taken, target, n, now = snapshot()] {
    g_.L(taken);
    taken_exit(target, n, now);
  });
}

}  // namespace ipusim::iss::jit
