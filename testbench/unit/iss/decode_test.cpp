// Decoder and disassembler: objdump-style text for every instruction class, and the
// decoder and the disassembler agreeing on which words are instructions.
#include <gtest/gtest.h>

#include <random>

#include "iss/decode.h"
#include "iss/disasm.h"
#include "rv_asm.h"

namespace {

using namespace ipusim::iss;
using namespace rvasm;

uint32_t one(void (*emit)(Asm&)) {
  Asm a;
  emit(a);
  return a.finish()[0];
}

TEST(IssDisasm, ObjdumpStyleText) {
  struct Case {
    uint32_t word;
    uint32_t pc;
    const char* text;
  };
  const Case cases[] = {
      {0x0025a503, 0x40000, "lw a0, 2(a1)"},
      {one([](Asm& a) { a.addi(a0, a1, -5); }), 0, "addi a0, a1, -5"},
      {one([](Asm& a) { a.lui(t0, 0x12345); }), 0, "lui t0, 0x12345"},
      {one([](Asm& a) { a.auipc(gp, 1); }), 0, "auipc gp, 0x1"},
      {one([](Asm& a) { a.srai(s0, s1, 31); }), 0, "srai s0, s1, 31"},
      {one([](Asm& a) { a.sub(t6, s11, zero); }), 0, "sub t6, s11, zero"},
      {one([](Asm& a) { a.mulhsu(a0, a1, a2); }), 0, "mulhsu a0, a1, a2"},
      {one([](Asm& a) { a.remu(a0, a1, a2); }), 0, "remu a0, a1, a2"},
      {one([](Asm& a) { a.sb(a5, -1, sp); }), 0, "sb a5, -1(sp)"},
      {one([](Asm& a) { a.lhu(a5, 2046, sp); }), 0, "lhu a5, 2046(sp)"},
      {one([](Asm& a) { a.jalr(ra, t0, 8); }), 0, "jalr ra, 8(t0)"},
      {one([](Asm& a) { a.ecall(); }), 0, "ecall"},
      {one([](Asm& a) { a.ebreak(); }), 0, "ebreak"},
      {one([](Asm& a) { a.fence(); }), 0, "fence"},
      {one([](Asm& a) { a.csrr(a0, 0xc00); }), 0, "csrrs a0, cycle, zero"},
      {one([](Asm& a) { a.csrrwi(zero, 0x002, 3); }), 0, "csrrwi zero, frm, 3"},
      {one([](Asm& a) { a.csrr(a0, 0xcc2); }), 0, "csrrs a0, thread, zero"},
      {one([](Asm& a) { a.csrr(a0, 0x7c0); }), 0, "csrrs a0, 0x7c0, zero"},
      {one([](Asm& a) { a.flw(10, 8, a0); }), 0, "flw fa0, 8(a0)"},
      {one([](Asm& a) { a.fsw(31, -4, sp); }), 0, "fsw ft11, -4(sp)"},
      {one([](Asm& a) { a.fadd(1, 2, 3); }), 0, "fadd.s ft1, ft2, ft3"},
      {one([](Asm& a) { a.fmul(1, 2, 3, RTZ); }), 0, "fmul.s ft1, ft2, ft3, rtz"},
      {one([](Asm& a) { a.fmadd(15, 13, 14, 15); }), 0, "fmadd.s fa5, fa3, fa4, fa5"},
      {one([](Asm& a) { a.fnmadd(0, 1, 2, 3, RMM); }), 0, "fnmadd.s ft0, ft1, ft2, ft3, rmm"},
      {one([](Asm& a) { a.fsqrt(0, 1); }), 0, "fsqrt.s ft0, ft1"},
      {one([](Asm& a) { a.fcvt_w_s(a1, 15, RTZ); }), 0, "fcvt.w.s a1, fa5, rtz"},
      {one([](Asm& a) { a.fcvt_s_wu(15, a0); }), 0, "fcvt.s.wu fa5, a0"},
      {one([](Asm& a) { a.fmv_w_x(15, zero); }), 0, "fmv.w.x fa5, zero"},
      {one([](Asm& a) { a.feq(a0, 1, 2); }), 0, "feq.s a0, ft1, ft2"},
      {one([](Asm& a) { a.fclass(a0, 1); }), 0, "fclass.s a0, ft1"},
      {one([](Asm& a) { a.fsgnjx(1, 2, 3); }), 0, "fsgnjx.s ft1, ft2, ft3"},
      {one([](Asm& a) { a.run(a0, a1, a2); }), 0, "run a0, a1, a2"},
      {one([](Asm& a) { a.join(); }), 0, "join"},
      {one([](Asm& a) { a.wexit(a0); }), 0, "wexit a0"},
      {one([](Asm& a) { a.halt(a0); }), 0, "halt a0"},
      {one([](Asm& a) { a.sync(a1); }), 0, "sync a1"},
      {one([](Asm& a) { a.cputc(a0); }), 0, "cputc a0"},
      {one([](Asm& a) { a.cwrite(a0, a1, a2); }), 0, "cwrite a0, a1, a2"},
      {one([](Asm& a) { a.xdst(a0, a1); }), 0, "xdst a0, a1"},
      {one([](Asm& a) { a.send(a2, a3); }), 0, "send a2, a3"},
      {one([](Asm& a) { a.xsrc(t0); }), 0, "xsrc t0"},
      {one([](Asm& a) { a.recv(a2, a3); }), 0, "recv a2, a3"},
      {one([](Asm& a) { a.xwait(); }), 0, "xwait"},
      {one([](Asm& a) { a.amp_ldw(0, a0); }), 0, "amp.ldw.f16 a0"},
      {one([](Asm& a) { a.amp_ldw(1, a0); }), 0, "amp.ldw.f32 a0"},
      {one([](Asm& a) { a.amp_mac(0, a1, a1); }), 0, "amp.mac.f16 a1, a1"},
      {one([](Asm& a) { a.amp_mac(1, zero, a2); }), 0, "amp.mac.f32 zero, a2"},
      {one([](Asm& a) { a.amp_mac(0, a1, a1, 3); }), 0, "amp.mac.f16 a1, a1, 3"},
      {one([](Asm& a) { a.amp_mac(1, a0, a1, 7); }), 0, "amp.mac.f32 a0, a1, 7"},
      {one([](Asm& a) { a.amp_st(0, s0, 5); }), 0, "amp.st.f16 s0, 5"},
      {one([](Asm& a) { a.amp_st(1, s0, 7); }), 0, "amp.st.f32 s0, 7"},
      {one([](Asm& a) { a.csrr(a0, 0xccb); }), 0, "csrrs a0, ampbanks, zero"},
      {one([](Asm& a) { a.amp_st(0, s0); }), 0, "amp.st.f16 s0"},
      {one([](Asm& a) { a.amp_st(1, s0); }), 0, "amp.st.f32 s0"},
      {one([](Asm& a) { a.amp_clr(0); }), 0, "amp.clr.f16"},
      {one([](Asm& a) { a.amp_clr(1); }), 0, "amp.clr.f32"},
      {one([](Asm& a) { a.csrr(a0, 0xcc9); }), 0, "csrrs a0, amprows16, zero"},
      {one([](Asm& a) { a.csrr(a0, 0xcca); }), 0, "csrrs a0, amprows32, zero"},
      {0xfd179ae3, 0x401ac, "bne a5, a7, 0x40180"},
      {0x094000ef, 0x401d4, "jal ra, 0x40268"},
      {0x00000000, 0, ".word 0x00000000"},
      {0x00000001, 0, ".word 0x00000001"},  // compressed: no C extension
      {0x0000100f, 0, ".word 0x0000100f"},  // fence.i: no Zifencei
      {0x30200073, 0, ".word 0x30200073"},  // mret
      {xipu(0, 1, 1, 0, 0), 0, ".word 0x0200008b"},  // join with a non-zero rd
      {r_type(0, 0, 1, 5, 2, 0x53), 0, ".word 0x0000d153"},  // fadd.s with reserved rm 5
      {xipu(2, 4, 0, 1, 0), 0, ".word 0x0800a00b"},         // xwait with rs1
      {xipu(2, 1, 5, 1, 2), 0, ".word 0x0220a28b"},         // send with a non-zero rd
      {xipu(2, 5, 0, 0, 0), 0, ".word 0x0a00200b"},         // funct7 5: not defined
      {r_type(2, 0, 1, 1, 2, 0x2b), 0, ".word 0x0400912b"},  // amp.mac with type 2
      {r_type(0, 8, 1, 1, 2, 0x2b), 0, ".word 0x0080912b"},  // amp.mac bank 8: only 8 banks
      {r_type(1, 31, 1, 2, 0, 0x2b), 0, ".word 0x03f0a02b"},  // amp.st bank 31
      {r_type(0, 1, 1, 0, 0, 0x2b), 0, ".word 0x0010802b"},  // amp.ldw with rs2
      {r_type(0, 1, 0, 3, 0, 0x2b), 0, ".word 0x0010302b"},  // amp.clr with rs2
      {r_type(0, 0, 0, 4, 0, 0x2b), 0, ".word 0x0000402b"},  // AMP funct3 4: not defined
      {r_type(0, 0, 1, 3, 0, 0x2b), 0, ".word 0x0000b02b"},  // amp.clr with rs1
  };
  for (const Case& c : cases) EXPECT_EQ(disassemble(c.word, c.pc), c.text) << std::hex << c.word;
}

TEST(IssDecode, PreprocessesOperands) {
  const DecodeLayout l{0x40000, 0x100, 0x40400};
  // x0 destinations write the sink register.
  Decoded d = decode(one([](Asm& a) { a.addi(zero, a1, 1); }), 0x40000, l);
  EXPECT_EQ(d.op, Op::addi);
  EXPECT_EQ(d.insn.rd, kSinkReg);
  // auipc becomes a constant.
  d = decode(one([](Asm& a) { a.auipc(a0, 2); }), 0x40010, l);
  EXPECT_EQ(d.op, Op::li);
  EXPECT_EQ(static_cast<uint32_t>(d.insn.imm), 0x42010u);
  // Loads are biased by SRAM_BASE, stores by the store range start.
  d = decode(one([](Asm& a) { a.lw(a0, 8, a1); }), 0x40000, l);
  EXPECT_EQ(static_cast<uint32_t>(d.insn.imm), 8u - 0x40000u);
  d = decode(one([](Asm& a) { a.sw(a0, 8, a1); }), 0x40000, l);
  EXPECT_EQ(static_cast<uint32_t>(d.insn.imm), 8u - 0x40400u);
  // f registers follow the x registers and the sink.
  d = decode(one([](Asm& a) { a.fadd(1, 2, 3, RNE); }), 0x40000, l);
  EXPECT_EQ(d.op, Op::fadd);
  EXPECT_EQ(d.insn.rd, kFReg0 + 1);
  EXPECT_EQ(decode(one([](Asm& a) { a.fadd(1, 2, 3); }), 0, l).op, Op::fadd_dyn);
  EXPECT_EQ(decode(one([](Asm& a) { a.fadd(1, 2, 3, RUP); }), 0, l).op, Op::fp_exact);
  // A branch into code becomes a decoded-array offset; out of code, a faulting variant.
  d = decode(b_type(-8, a1, a0, 1), 0x40010, l);
  EXPECT_EQ(d.op, Op::bne);
  EXPECT_EQ(d.insn.imm, -8 * 4);
  EXPECT_EQ(decode(b_type(-32, a1, a0, 1), 0x40010, l).op, Op::branch_far);
  EXPECT_EQ(decode(j_type(0x400, zero), 0x40000, l).op, Op::jal_far);
  EXPECT_EQ(decode(j_type(0x3fc, zero), 0x40000, l).op, Op::j);
  EXPECT_EQ(decode(j_type(0x3fc, ra), 0x40000, l).op, Op::jal);
  // Exchange postings and the AMP: ldw / mac carry the -SRAM_BASE bias of the fast path.
  EXPECT_EQ(decode(one([](Asm& a) { a.send(a0, a1); }), 0, l).op, Op::xsend);
  EXPECT_EQ(decode(one([](Asm& a) { a.xwait(); }), 0, l).op, Op::xwait);
  d = decode(one([](Asm& a) { a.amp_mac(0, zero, a1); }), 0, l);
  EXPECT_EQ(d.op, Op::amp_mac16);
  EXPECT_EQ(d.insn.rd, kSinkReg);
  EXPECT_EQ(static_cast<uint32_t>(d.insn.imm), 0u - 0x40000u);
  EXPECT_EQ(decode(one([](Asm& a) { a.amp_ldw(1, a0); }), 0, l).op, Op::amp_ldw32);
  EXPECT_EQ(decode(one([](Asm& a) { a.amp_st(1, a0); }), 0, l).op, Op::amp_st);
}

// The decoder accepts exactly what the disassembler can name: checked over every
// major opcode with random fields.
TEST(IssDecode, AgreesWithDisassembler) {
  const DecodeLayout l{0x40000, 0x10000, 0x80000};
  std::mt19937 rng(12345);
  int instructions = 0;
  for (int i = 0; i < 400000; ++i) {
    uint32_t w = rng();
    if (i % 2) w = (w & ~0x7fu) | (((rng() % 32) << 2) | 3);  // bias toward 32-bit encodings
    const bool legal = decode(w, 0x40000, l).op != Op::illegal;
    const bool named = disassemble(w, 0x40000).rfind(".word", 0) != 0;
    ASSERT_EQ(legal, named) << std::hex << w << " " << disassemble(w, 0x40000);
    instructions += legal;
  }
  EXPECT_GT(instructions, 50000);
}

}  // namespace
