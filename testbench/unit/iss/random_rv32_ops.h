// The instruction choices the ISS's random program generators share (jit_lockstep_test.cpp's
// Generator, rv32imf_random_program.h's): one RV32IM ALU op, one load or store, one
// branch, each picked by the caller's index, and the loops around their straight code.
// Random values an op or a loop needs beyond its operands (a shift amount, an f register,
// a trip count) come from the caller's `pick`, at the point they are needed, so each
// generator's stream of choices stays its own.
#pragma once

#include <cstdint>
#include <string>

#include "rv_asm.h"

namespace isstest {

// The RV32I register / immediate ALU ops and the M extension: `which` in [0, kRandomAluOps).
inline constexpr uint32_t kRandomAluOps = 27;

template <typename Pick>
void random_alu_op(rvasm::Asm& a, uint32_t which, rvasm::Reg d, rvasm::Reg x, rvasm::Reg y, int32_t imm, Pick&& pick) {
  switch (which) {
    case 0: a.addi(d, x, imm); break;
    case 1: a.slti(d, x, imm); break;
    case 2: a.sltiu(d, x, imm); break;
    case 3: a.xori(d, x, imm); break;
    case 4: a.ori(d, x, imm); break;
    case 5: a.andi(d, x, imm); break;
    case 6: a.slli(d, x, pick(0, 31)); break;
    case 7: a.srli(d, x, pick(0, 31)); break;
    case 8: a.srai(d, x, pick(0, 31)); break;
    case 9: a.add(d, x, y); break;
    case 10: a.sub(d, x, y); break;
    case 11: a.sll(d, x, y); break;
    case 12: a.slt(d, x, y); break;
    case 13: a.sltu(d, x, y); break;
    case 14: a.xor_(d, x, y); break;
    case 15: a.srl(d, x, y); break;
    case 16: a.sra(d, x, y); break;
    case 17: a.or_(d, x, y); break;
    case 18: a.and_(d, x, y); break;
    case 19: a.mul(d, x, y); break;
    case 20: a.mulh(d, x, y); break;
    case 21: a.mulhsu(d, x, y); break;
    case 22: a.mulhu(d, x, y); break;
    case 23: a.div(d, x, y); break;
    case 24: a.divu(d, x, y); break;
    case 25: a.rem(d, x, y); break;
    default: a.remu(d, x, y); break;
  }
}

// The loads and stores, aligned (the offset rounded down to the access size): `which` in
// [0, kRandomMemoryOps); `freg()` picks the f register of flw / fsw.
inline constexpr uint32_t kRandomMemoryOps = 10;

template <typename FReg>
void random_memory_op(rvasm::Asm& a, uint32_t which, rvasm::Reg r, int32_t off, rvasm::Reg base, FReg&& freg) {
  switch (which) {
    case 0: a.lb(r, off, base); break;
    case 1: a.lbu(r, off, base); break;
    case 2: a.lh(r, off & ~1, base); break;
    case 3: a.lhu(r, off & ~1, base); break;
    case 4: a.lw(r, off & ~3, base); break;
    case 5: a.sb(r, off, base); break;
    case 6: a.sh(r, off & ~1, base); break;
    case 7: a.sw(r, off & ~3, base); break;
    case 8: a.flw(freg(), off & ~3, base); break;
    default: a.fsw(freg(), off & ~3, base); break;
  }
}

// The six conditional branches: `which` in [0, 6).
inline void random_branch(rvasm::Asm& a, uint32_t which, rvasm::Reg x, rvasm::Reg y, const std::string& to) {
  switch (which) {
    case 0: a.beq(x, y, to); break;
    case 1: a.bne(x, y, to); break;
    case 2: a.blt(x, y, to); break;
    case 3: a.bge(x, y, to); break;
    case 4: a.bltu(x, y, to); break;
    default: a.bgeu(x, y, to); break;
  }
}

// A counted loop (s1 counts 1..24) with a forward branch inside it: `straight(n)` writes n
// random instructions, `branch(label)` one random branch. With `tail`, more straight code
// between the branch's target and the loop's end.
template <typename Pick, typename Straight, typename Branch>
void random_counted_loop(rvasm::Asm& a, Pick&& pick, Straight&& straight, Branch&& branch, bool tail) {
  const std::string top = a.fresh_label("loop"), skip = a.fresh_label("skip");
  a.li(rvasm::s1, pick(1, 24));
  a.label(top);
  straight(pick(1, 8));
  branch(skip);
  straight(pick(0, 5));
  a.label(skip);
  if (tail) straight(pick(0, 3));
  a.addi(rvasm::s1, rvasm::s1, -1);
  a.bne(rvasm::s1, rvasm::zero, top);
}

// Two nested counted loops (s5 outer 1..6, s1 inner 1..10) around straight code.
template <typename Pick, typename Straight>
void random_nested_loops(rvasm::Asm& a, Pick&& pick, Straight&& straight) {
  using namespace rvasm;
  const std::string outer = a.fresh_label("outer"), inner = a.fresh_label("inner");
  a.li(s5, pick(1, 6));
  a.label(outer);
  a.li(s1, pick(1, 10));
  a.label(inner);
  straight(pick(1, 6));
  a.addi(s1, s1, -1);
  a.blt(zero, s1, inner);
  straight(pick(0, 3));
  a.addi(s5, s5, -1);
  a.bne(s5, zero, outer);
}

}  // namespace isstest
