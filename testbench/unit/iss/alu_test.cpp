// Integer instructions: ALU immediate / register, shifts, lui / auipc, M (including
// division by zero and overflow), branches, jal / jalr.
#include "iss_harness.h"

namespace {

using namespace isstest;
using namespace rvasm;

TEST(IssAlu, ImmediateAndRegisterOps) {
  Asm a;
  a.li(s0, 0x80000000u);
  a.li(s1, 0x7fffffffu);
  a.addi(a0, s1, 1);          // wraps
  a.slti(a1, s0, 0);          // INT_MIN < 0
  a.sltiu(a2, s0, -1);        // 0x80000000 < 0xffffffff unsigned
  a.xori(a3, s1, -1);         // ~x
  a.ori(a4, zero, 0x7ff);
  a.andi(a5, s1, -16);
  a.add(a6, s0, s1);
  a.sub(a7, s0, s1);          // 1
  a.slt(s2, s0, s1);
  a.sltu(s3, s0, s1);
  a.xor_(s4, s0, s1);
  a.or_(s5, s0, s1);
  a.and_(s6, s0, s1);
  a.addi(zero, s1, 5);        // writes to x0 vanish
  a.lui(s7, 0xfffff);
  a.label("auipc");
  a.auipc(s8, 1);             // pc of this instruction + 0x1000
  a.halt(zero);
  Harness h(a);
  h.run_ok();
  EXPECT_EQ(h.x(a0), 0x80000000u);
  EXPECT_EQ(h.x(a1), 1u);
  EXPECT_EQ(h.x(a2), 1u);
  EXPECT_EQ(h.x(a3), 0x80000000u);
  EXPECT_EQ(h.x(a4), 0x7ffu);
  EXPECT_EQ(h.x(a5), 0x7ffffff0u);
  EXPECT_EQ(h.x(a6), 0xffffffffu);
  EXPECT_EQ(h.x(a7), 1u);
  EXPECT_EQ(h.x(s2), 1u);
  EXPECT_EQ(h.x(s3), 0u);
  EXPECT_EQ(h.x(s4), 0xffffffffu);
  EXPECT_EQ(h.x(s5), 0xffffffffu);
  EXPECT_EQ(h.x(s6), 0u);
  EXPECT_EQ(h.x(zero), 0u);
  EXPECT_EQ(h.x(s7), 0xfffff000u);
  EXPECT_EQ(h.x(s8), a.addr("auipc") + 0x1000u);
}

TEST(IssAlu, Shifts) {
  Asm a;
  a.li(s0, 0x80000001u);
  a.addi(s1, zero, 33);  // register shift amounts use the low 5 bits
  a.slli(a0, s0, 31);
  a.srli(a1, s0, 31);
  a.srai(a2, s0, 31);
  a.srai(a3, s0, 0);
  a.sll(a4, s0, s1);
  a.srl(a5, s0, s1);
  a.sra(a6, s0, s1);
  a.halt(zero);
  Harness h(a);
  h.run_ok();
  EXPECT_EQ(h.x(a0), 0x80000000u);
  EXPECT_EQ(h.x(a1), 1u);
  EXPECT_EQ(h.x(a2), 0xffffffffu);
  EXPECT_EQ(h.x(a3), 0x80000001u);
  EXPECT_EQ(h.x(a4), 0x00000002u);
  EXPECT_EQ(h.x(a5), 0x40000000u);
  EXPECT_EQ(h.x(a6), 0xc0000000u);
}

TEST(IssAlu, MultiplyDivide) {
  Asm a;
  a.li(s0, 0x80000000u);  // INT_MIN
  a.li(s1, 0xffffffffu);  // -1
  a.li(s2, 7);
  a.li(s3, 0xfffffffdu);  // -3
  a.mul(a0, s2, s3);      // -21
  a.mulh(a1, s0, s0);     // 2^62 >> 32 = 0x40000000
  a.mulhu(a2, s1, s1);    // 0xfffffffe
  a.mulhsu(a3, s1, s1);   // -1 * 0xffffffff = -0xffffffff -> high word 0xffffffff
  a.div(a4, s3, s2);      // -3 / 7 = 0 (toward zero)
  a.rem(a5, s3, s2);      // -3
  a.div(a6, s0, s1);      // overflow: INT_MIN
  a.rem(a7, s0, s1);      // overflow: 0
  a.div(s4, s2, zero);    // by zero: -1
  a.divu(s5, s2, zero);   // by zero: 0xffffffff
  a.rem(s6, s3, zero);    // by zero: dividend
  a.remu(s7, s2, zero);   // by zero: dividend
  a.divu(s8, s1, s2);     // 0xffffffff / 7
  a.remu(s9, s1, s2);
  a.halt(zero);
  Harness h(a);
  h.run_ok();
  EXPECT_EQ(h.x(a0), static_cast<uint32_t>(-21));
  EXPECT_EQ(h.x(a1), 0x40000000u);
  EXPECT_EQ(h.x(a2), 0xfffffffeu);
  EXPECT_EQ(h.x(a3), 0xffffffffu);
  EXPECT_EQ(h.x(a4), 0u);
  EXPECT_EQ(h.x(a5), static_cast<uint32_t>(-3));
  EXPECT_EQ(h.x(a6), 0x80000000u);
  EXPECT_EQ(h.x(a7), 0u);
  EXPECT_EQ(h.x(s4), 0xffffffffu);
  EXPECT_EQ(h.x(s5), 0xffffffffu);
  EXPECT_EQ(h.x(s6), static_cast<uint32_t>(-3));
  EXPECT_EQ(h.x(s7), 7u);
  EXPECT_EQ(h.x(s8), 0xffffffffu / 7);
  EXPECT_EQ(h.x(s9), 0xffffffffu % 7);
}

// Each branch kind, taken and not taken: a1 counts the correct outcomes.
TEST(IssAlu, Branches) {
  Asm a;
  a.li(s0, 0xffffffffu);  // -1
  a.li(s1, 1);
  a.addi(a1, zero, 0);
  int bit = 0;
  auto check = [&](void (Asm::*br)(Reg, Reg, const std::string&), Reg x, Reg y, bool taken) {
    const std::string t = "t" + std::to_string(bit), done = "d" + std::to_string(bit);
    (a.*br)(x, y, t);
    if (!taken) a.addi(a1, a1, 1);
    a.j(done);
    a.label(t);
    if (taken) a.addi(a1, a1, 1);
    a.label(done);
    ++bit;
  };
  check(&Asm::beq, s0, s0, true);
  check(&Asm::beq, s0, s1, false);
  check(&Asm::bne, s0, s1, true);
  check(&Asm::bne, s1, s1, false);
  check(&Asm::blt, s0, s1, true);    // -1 < 1 signed
  check(&Asm::blt, s1, s0, false);
  check(&Asm::bge, s1, s0, true);
  check(&Asm::bge, s0, s1, false);
  check(&Asm::bge, s1, s1, true);
  check(&Asm::bltu, s1, s0, true);   // 1 < 0xffffffff unsigned
  check(&Asm::bltu, s0, s1, false);
  check(&Asm::bgeu, s0, s1, true);
  check(&Asm::bgeu, s1, s0, false);
  a.halt(zero);
  Harness h(a);
  h.run_ok();
  EXPECT_EQ(h.x(a1), static_cast<uint32_t>(bit));
}

TEST(IssAlu, LoopAndJumps) {
  Asm a;
  a.addi(a0, zero, 0);
  a.addi(t0, zero, 100);
  a.label("loop");
  a.addi(a0, a0, 3);
  a.addi(t0, t0, -1);
  a.bne(t0, zero, "loop");
  a.jal(ra, "func");     // link = pc + 4
  a.label("after");
  a.la(t1, "func2");
  a.addi(t1, t1, 1);     // jalr clears bit 0 of the target
  a.jalr(s1, t1, 0);
  a.label("after2");
  a.halt(zero);
  a.label("func");
  a.addi(a1, zero, 42);
  a.jalr(zero, ra, 0);
  a.label("func2");
  a.addi(a2, zero, 43);
  a.jalr(zero, s1, 0);
  Harness h(a);
  h.run_ok();
  EXPECT_EQ(h.x(a0), 300u);
  EXPECT_EQ(h.x(a1), 42u);
  EXPECT_EQ(h.x(a2), 43u);
  EXPECT_EQ(h.x(ra), a.addr("after"));
  EXPECT_EQ(h.x(s1), a.addr("after2"));
  // 2 + 3*100 + jal + func(2) + la(2) + addi + jalr + func2(2) + halt
  EXPECT_EQ(h.core.instret(), 2u + 300 + 1 + 2 + 2 + 1 + 1 + 2 + 1);
}

TEST(IssAlu, JalrWritesLinkAfterReadingItsSource) {
  Asm a;
  a.la(ra, "f");
  a.jalr(ra, ra, 0);  // rd == rs1
  a.label("back");
  a.halt(zero);
  a.label("f");
  a.addi(a0, ra, 0);
  a.halt(zero);
  Harness h(a);
  h.run_ok();
  EXPECT_EQ(h.x(a0), a.addr("back"));
}

}  // namespace
