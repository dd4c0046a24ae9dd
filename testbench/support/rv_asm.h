// The one test assembler of the suites: RV32IMF + Zicsr + Xipu encoders, labels with
// fix-ups, and `li` / `la` as fixed two-word sequences (so instruction counts, and thus
// cycle counts, are easy to predict). The ISS unit tests use it directly; the platform
// tests through testbench/system/support/test_program.h (a data segment and an ELF).
//
// The base formats are encoded here, the inverse of the ISS's field extractors (the major
// opcodes are iss/rv_fields.h's); the Xipu instructions are the generated encoders of
// ipu/xipu_isa.h (from hw/isa/xipu.yaml). The base formats and the base instructions'
// funct values are written here as an assembler independent of the decoder, which the
// decoder tests check it against.
// CMake: link ipusim_test_asm.
#pragma once

#include <ipu/xipu_isa.h>

#include <array>
#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "iss/rv_fields.h"

namespace rvasm {

enum Reg : uint32_t {
  zero, ra, sp, gp, tp, t0, t1, t2, s0, s1, a0, a1, a2, a3, a4, a5,
  a6, a7, s2, s3, s4, s5, s6, s7, s8, s9, s10, s11, t3, t4, t5, t6
};
enum Rm : uint32_t { RNE = 0, RTZ = 1, RDN = 2, RUP = 3, RMM = 4, DYN = 7 };

namespace rv = ipusim::iss::rv;

// The base format encoders, the inverse of rv_fields.h's extractors (immediates are cut
// to their fields); also for tests that build words by hand (e.g. illegal ones).
inline uint32_t r_type(uint32_t f7, uint32_t rs2, uint32_t rs1, uint32_t f3, uint32_t rd, uint32_t op) {
  return f7 << 25 | rs2 << 20 | rs1 << 15 | f3 << 12 | rd << 7 | op;
}
inline uint32_t r4_type(uint32_t rs3, uint32_t rs2, uint32_t rs1, uint32_t rm, uint32_t rd, uint32_t op) {
  return rs3 << 27 | rs2 << 20 | rs1 << 15 | rm << 12 | rd << 7 | op;
}
inline uint32_t i_type(int32_t imm, uint32_t rs1, uint32_t f3, uint32_t rd, uint32_t op) {
  return static_cast<uint32_t>(imm & 0xfff) << 20 | rs1 << 15 | f3 << 12 | rd << 7 | op;
}
inline uint32_t s_type(int32_t imm, uint32_t rs2, uint32_t rs1, uint32_t f3, uint32_t op) {
  const uint32_t u = static_cast<uint32_t>(imm);
  return (u >> 5 & 0x7f) << 25 | rs2 << 20 | rs1 << 15 | f3 << 12 | (u & 31) << 7 | op;
}
inline uint32_t b_type(int32_t off, uint32_t rs2, uint32_t rs1, uint32_t f3) {
  const uint32_t u = static_cast<uint32_t>(off);
  return (u >> 12 & 1) << 31 | (u >> 5 & 0x3f) << 25 | rs2 << 20 | rs1 << 15 | f3 << 12 |
         (u >> 1 & 15) << 8 | (u >> 11 & 1) << 7 | rv::kBranch;
}
inline uint32_t u_type(uint32_t imm20, uint32_t rd, uint32_t op) { return imm20 << 12 | rd << 7 | op; }
inline uint32_t j_type(int32_t off, uint32_t rd) {
  const uint32_t u = static_cast<uint32_t>(off);
  return (u >> 20 & 1) << 31 | (u >> 1 & 0x3ff) << 21 | (u >> 11 & 1) << 20 | (u >> 12 & 0xff) << 12 |
         rd << 7 | rv::kJal;
}

// Any custom-0 word: .insn r 0x0B, funct3, funct7, rd, rs1, rs2 (named ones: Asm below).
inline uint32_t xipu(uint32_t f3, uint32_t f7, uint32_t rd, uint32_t rs1, uint32_t rs2) {
  return r_type(f7, rs2, rs1, f3, rd, IPU_OPC_CUSTOM0);
}

class Asm {
 public:
  explicit Asm(uint32_t base = IPU_SRAM_BASE) : base_(base) {}

  uint32_t base() const { return base_; }
  uint32_t pc() const { return base_ + 4 * static_cast<uint32_t>(words_.size()); }
  size_t size() const { return words_.size(); }
  void label(const std::string& name) {
    if (!labels_.emplace(name, pc()).second) throw std::logic_error("label defined twice: " + name);
  }
  // A label name no other call returns (for helpers that emit loops).
  std::string fresh_label(const std::string& stem) { return stem + "." + std::to_string(fresh_++); }
  uint32_t addr(const std::string& name) const {
    auto it = labels_.find(name);
    if (it == labels_.end()) throw std::logic_error("unknown label: " + name);
    return it->second;
  }
  void word(uint32_t w) { words_.push_back(w); }

  // RV32I
  void lui(Reg rd, uint32_t imm20) { word(u_type(imm20, rd, rv::kLui)); }
  void auipc(Reg rd, uint32_t imm20) { word(u_type(imm20, rd, rv::kAuipc)); }
  void addi(Reg rd, Reg rs1, int32_t i) { word(i_type(i, rs1, 0, rd, rv::kOpImm)); }
  void slti(Reg rd, Reg rs1, int32_t i) { word(i_type(i, rs1, 2, rd, rv::kOpImm)); }
  void sltiu(Reg rd, Reg rs1, int32_t i) { word(i_type(i, rs1, 3, rd, rv::kOpImm)); }
  void xori(Reg rd, Reg rs1, int32_t i) { word(i_type(i, rs1, 4, rd, rv::kOpImm)); }
  void ori(Reg rd, Reg rs1, int32_t i) { word(i_type(i, rs1, 6, rd, rv::kOpImm)); }
  void andi(Reg rd, Reg rs1, int32_t i) { word(i_type(i, rs1, 7, rd, rv::kOpImm)); }
  void slli(Reg rd, Reg rs1, uint32_t sh) { word(r_type(0, sh, rs1, 1, rd, rv::kOpImm)); }
  void srli(Reg rd, Reg rs1, uint32_t sh) { word(r_type(0, sh, rs1, 5, rd, rv::kOpImm)); }
  void srai(Reg rd, Reg rs1, uint32_t sh) { word(r_type(0x20, sh, rs1, 5, rd, rv::kOpImm)); }
  void add(Reg rd, Reg a, Reg b) { word(r_type(0, b, a, 0, rd, rv::kOp)); }
  void sub(Reg rd, Reg a, Reg b) { word(r_type(0x20, b, a, 0, rd, rv::kOp)); }
  void sll(Reg rd, Reg a, Reg b) { word(r_type(0, b, a, 1, rd, rv::kOp)); }
  void slt(Reg rd, Reg a, Reg b) { word(r_type(0, b, a, 2, rd, rv::kOp)); }
  void sltu(Reg rd, Reg a, Reg b) { word(r_type(0, b, a, 3, rd, rv::kOp)); }
  void xor_(Reg rd, Reg a, Reg b) { word(r_type(0, b, a, 4, rd, rv::kOp)); }
  void srl(Reg rd, Reg a, Reg b) { word(r_type(0, b, a, 5, rd, rv::kOp)); }
  void sra(Reg rd, Reg a, Reg b) { word(r_type(0x20, b, a, 5, rd, rv::kOp)); }
  void or_(Reg rd, Reg a, Reg b) { word(r_type(0, b, a, 6, rd, rv::kOp)); }
  void and_(Reg rd, Reg a, Reg b) { word(r_type(0, b, a, 7, rd, rv::kOp)); }
  // M
  void mul(Reg rd, Reg a, Reg b) { word(r_type(1, b, a, 0, rd, rv::kOp)); }
  void mulh(Reg rd, Reg a, Reg b) { word(r_type(1, b, a, 1, rd, rv::kOp)); }
  void mulhsu(Reg rd, Reg a, Reg b) { word(r_type(1, b, a, 2, rd, rv::kOp)); }
  void mulhu(Reg rd, Reg a, Reg b) { word(r_type(1, b, a, 3, rd, rv::kOp)); }
  void div(Reg rd, Reg a, Reg b) { word(r_type(1, b, a, 4, rd, rv::kOp)); }
  void divu(Reg rd, Reg a, Reg b) { word(r_type(1, b, a, 5, rd, rv::kOp)); }
  void rem(Reg rd, Reg a, Reg b) { word(r_type(1, b, a, 6, rd, rv::kOp)); }
  void remu(Reg rd, Reg a, Reg b) { word(r_type(1, b, a, 7, rd, rv::kOp)); }
  // Loads / stores, in assembly operand order: lw rd, off(base)
  void lb(Reg rd, int32_t off, Reg base) { word(i_type(off, base, 0, rd, rv::kLoad)); }
  void lh(Reg rd, int32_t off, Reg base) { word(i_type(off, base, 1, rd, rv::kLoad)); }
  void lw(Reg rd, int32_t off, Reg base) { word(i_type(off, base, 2, rd, rv::kLoad)); }
  void lbu(Reg rd, int32_t off, Reg base) { word(i_type(off, base, 4, rd, rv::kLoad)); }
  void lhu(Reg rd, int32_t off, Reg base) { word(i_type(off, base, 5, rd, rv::kLoad)); }
  void sb(Reg src, int32_t off, Reg base) { word(s_type(off, src, base, 0, rv::kStore)); }
  void sh(Reg src, int32_t off, Reg base) { word(s_type(off, src, base, 1, rv::kStore)); }
  void sw(Reg src, int32_t off, Reg base) { word(s_type(off, src, base, 2, rv::kStore)); }
  void flw(uint32_t fd, int32_t off, Reg base) { word(i_type(off, base, 2, fd, rv::kLoadFp)); }
  void fsw(uint32_t fs, int32_t off, Reg base) { word(s_type(off, fs, base, 2, rv::kStoreFp)); }
  // Control flow (label targets resolved by finish())
  void beq(Reg a, Reg b, const std::string& l) { branch(0, a, b, l); }
  void bne(Reg a, Reg b, const std::string& l) { branch(1, a, b, l); }
  void blt(Reg a, Reg b, const std::string& l) { branch(4, a, b, l); }
  void bge(Reg a, Reg b, const std::string& l) { branch(5, a, b, l); }
  void bltu(Reg a, Reg b, const std::string& l) { branch(6, a, b, l); }
  void bgeu(Reg a, Reg b, const std::string& l) { branch(7, a, b, l); }
  void jal(Reg rd, const std::string& l) { fix(Fix::Jal, l, rd); }
  void j(const std::string& l) { jal(zero, l); }
  void jalr(Reg rd, Reg rs1, int32_t off) { word(i_type(off, rs1, 0, rd, rv::kJalr)); }
  // Two words always: lui + addi.
  void li(Reg rd, uint32_t v) {
    for (uint32_t w : lui_addi(rd, v)) word(w);
  }
  void la(Reg rd, const std::string& l) { fix(Fix::La, l, rd); word(0); }
  // System
  void ecall() { word(0x00000073); }
  void ebreak() { word(0x00100073); }
  void fence() { word(0x0ff0000f); }
  void csrrw(Reg rd, uint32_t csr, Reg rs1) { word(i_type(static_cast<int32_t>(csr), rs1, 1, rd, rv::kSystem)); }
  void csrrs(Reg rd, uint32_t csr, Reg rs1) { word(i_type(static_cast<int32_t>(csr), rs1, 2, rd, rv::kSystem)); }
  void csrrc(Reg rd, uint32_t csr, Reg rs1) { word(i_type(static_cast<int32_t>(csr), rs1, 3, rd, rv::kSystem)); }
  void csrrwi(Reg rd, uint32_t csr, uint32_t z) { word(i_type(static_cast<int32_t>(csr), z, 5, rd, rv::kSystem)); }
  void csrrsi(Reg rd, uint32_t csr, uint32_t z) { word(i_type(static_cast<int32_t>(csr), z, 6, rd, rv::kSystem)); }
  void csrrci(Reg rd, uint32_t csr, uint32_t z) { word(i_type(static_cast<int32_t>(csr), z, 7, rd, rv::kSystem)); }
  void csrr(Reg rd, uint32_t csr) { csrrs(rd, csr, zero); }
  void csrw(uint32_t csr, Reg rs1) { csrrw(zero, csr, rs1); }
  // F
  void fop(uint32_t f7, uint32_t rd, uint32_t rs1, uint32_t rs2, uint32_t rm) { word(r_type(f7, rs2, rs1, rm, rd, rv::kOpFp)); }
  void fadd(uint32_t d, uint32_t a, uint32_t b, uint32_t rm = DYN) { fop(0x00, d, a, b, rm); }
  void fsub(uint32_t d, uint32_t a, uint32_t b, uint32_t rm = DYN) { fop(0x04, d, a, b, rm); }
  void fmul(uint32_t d, uint32_t a, uint32_t b, uint32_t rm = DYN) { fop(0x08, d, a, b, rm); }
  void fdiv(uint32_t d, uint32_t a, uint32_t b, uint32_t rm = DYN) { fop(0x0c, d, a, b, rm); }
  void fsqrt(uint32_t d, uint32_t a, uint32_t rm = DYN) { fop(0x2c, d, a, 0, rm); }
  void fsgnj(uint32_t d, uint32_t a, uint32_t b) { fop(0x10, d, a, b, 0); }
  void fsgnjn(uint32_t d, uint32_t a, uint32_t b) { fop(0x10, d, a, b, 1); }
  void fsgnjx(uint32_t d, uint32_t a, uint32_t b) { fop(0x10, d, a, b, 2); }
  void fmin(uint32_t d, uint32_t a, uint32_t b) { fop(0x14, d, a, b, 0); }
  void fmax(uint32_t d, uint32_t a, uint32_t b) { fop(0x14, d, a, b, 1); }
  void feq(Reg d, uint32_t a, uint32_t b) { fop(0x50, d, a, b, 2); }
  void flt(Reg d, uint32_t a, uint32_t b) { fop(0x50, d, a, b, 1); }
  void fle(Reg d, uint32_t a, uint32_t b) { fop(0x50, d, a, b, 0); }
  void fclass(Reg d, uint32_t a) { fop(0x70, d, a, 0, 1); }
  void fmv_x_w(Reg d, uint32_t a) { fop(0x70, d, a, 0, 0); }
  void fmv_w_x(uint32_t d, Reg a) { fop(0x78, d, a, 0, 0); }
  void fcvt_w_s(Reg d, uint32_t a, uint32_t rm = DYN) { fop(0x60, d, a, 0, rm); }
  void fcvt_wu_s(Reg d, uint32_t a, uint32_t rm = DYN) { fop(0x60, d, a, 1, rm); }
  void fcvt_s_w(uint32_t d, Reg a, uint32_t rm = DYN) { fop(0x68, d, a, 0, rm); }
  void fcvt_s_wu(uint32_t d, Reg a, uint32_t rm = DYN) { fop(0x68, d, a, 1, rm); }
  void fmadd(uint32_t d, uint32_t a, uint32_t b, uint32_t c, uint32_t rm = DYN) { word(r4_type(c, b, a, rm, d, rv::kMadd)); }
  void fmsub(uint32_t d, uint32_t a, uint32_t b, uint32_t c, uint32_t rm = DYN) { word(r4_type(c, b, a, rm, d, rv::kMsub)); }
  void fnmsub(uint32_t d, uint32_t a, uint32_t b, uint32_t c, uint32_t rm = DYN) { word(r4_type(c, b, a, rm, d, rv::kNmsub)); }
  void fnmadd(uint32_t d, uint32_t a, uint32_t b, uint32_t c, uint32_t rm = DYN) { word(r4_type(c, b, a, rm, d, rv::kNmadd)); }
  // Xipu: threads, sync, console
  void run(Reg rd, Reg entry, Reg arg) { word(ipu_encode_run(rd, entry, arg)); }
  void join() { word(ipu_encode_join()); }
  void wexit(Reg status) { word(ipu_encode_wexit(status)); }
  void halt(Reg code) { word(ipu_encode_halt(code)); }
  void sync(Reg zone) { word(ipu_encode_sync(zone)); }
  void cputc(Reg c) { word(ipu_encode_cputc(c)); }
  void cwrite(Reg rd, Reg addr, Reg len) { word(ipu_encode_cwrite(rd, addr, len)); }
  // Xipu exchange (supervisor only)
  void xdst(Reg first, Reg count) { word(ipu_encode_xdst(first, count)); }
  void send(Reg addr, Reg len) { word(ipu_encode_send(addr, len)); }
  void xsrc(Reg tile) { word(ipu_encode_xsrc(tile)); }
  void recv(Reg addr, Reg len) { word(ipu_encode_recv(addr, len)); }
  void xwait() { word(ipu_encode_xwait()); }
  // Xipu streaming memory and host streams (supervisor only)
  void smaddr(Reg lo, Reg hi) { word(ipu_encode_smaddr(lo, hi)); }
  void smread(Reg addr, Reg len) { word(ipu_encode_smread(addr, len)); }
  void smwrite(Reg addr, Reg len) { word(ipu_encode_smwrite(addr, len)); }
  void hsid(Reg stream) { word(ipu_encode_hsid(stream)); }
  void hsread(Reg addr, Reg len) { word(ipu_encode_hsread(addr, len)); }
  void hswrite(Reg addr, Reg len) { word(ipu_encode_hswrite(addr, len)); }
  // Xipu zero-overhead repeat: the next `size` words run rs1 times
  void rpt(Reg count, uint32_t size) { word(ipu_encode_rpt(count, size)); }
  // AMP (custom-1); type IPU_AMP_F16 or IPU_AMP_F32; bank: the accumulator bank
  void amp_ldw(uint32_t type, Reg w) { word(type == IPU_AMP_F32 ? ipu_encode_amp_ldw_f32(w) : ipu_encode_amp_ldw_f16(w)); }
  void amp_mac(uint32_t type, Reg rd, Reg x, uint32_t bank = 0) {
    word(type == IPU_AMP_F32 ? ipu_encode_amp_mac_f32(rd, x, bank) : ipu_encode_amp_mac_f16(rd, x, bank));
  }
  void amp_st(uint32_t type, Reg dst, uint32_t bank = 0) {
    word(type == IPU_AMP_F32 ? ipu_encode_amp_st_f32(dst, bank) : ipu_encode_amp_st_f16(dst, bank));
  }
  void amp_clr(uint32_t type) { word(type == IPU_AMP_F32 ? ipu_encode_amp_clr_f32() : ipu_encode_amp_clr_f16()); }

  // The words, with every label reference resolved.
  std::vector<uint32_t> finish() const {
    std::vector<uint32_t> out = words_;
    for (const Fixup& f : fixups_) {
      const uint32_t target = addr(f.label), pc = base_ + 4 * static_cast<uint32_t>(f.index);
      const int32_t off = static_cast<int32_t>(target - pc);
      switch (f.kind) {
        case Fix::Branch: out[f.index] = b_type(off, f.b, f.a, f.f3); break;
        case Fix::Jal: out[f.index] = j_type(off, f.a); break;
        case Fix::La: {
          const std::array<uint32_t, 2> w = lui_addi(f.a, target);
          out[f.index] = w[0];
          out[f.index + 1] = w[1];
          break;
        }
      }
    }
    return out;
  }

 private:
  // `li` and `la`: lui rd, %hi(v); addi rd, rd, %lo(v) (%hi rounded up when %lo is negative).
  static std::array<uint32_t, 2> lui_addi(uint32_t rd, uint32_t v) {
    const uint32_t lo = v & 0xfff, hi = (v + 0x800) >> 12;
    return {u_type(hi & 0xfffff, rd, rv::kLui), i_type(static_cast<int32_t>(lo << 20) >> 20, rd, 0, rd, rv::kOpImm)};
  }
  enum class Fix { Branch, Jal, La };
  struct Fixup {
    Fix kind;
    size_t index;
    std::string label;
    uint32_t a = 0, b = 0, f3 = 0;
  };
  void branch(uint32_t f3, Reg a, Reg b, const std::string& l) {
    fixups_.push_back({Fix::Branch, words_.size(), l, a, b, f3});
    word(0);
  }
  void fix(Fix kind, const std::string& l, Reg rd) {
    fixups_.push_back({kind, words_.size(), l, rd});
    word(0);
  }

  uint32_t base_;
  std::vector<uint32_t> words_;
  std::vector<Fixup> fixups_;
  std::map<std::string, uint32_t> labels_;
  unsigned fresh_ = 0;
};

}  // namespace rvasm
