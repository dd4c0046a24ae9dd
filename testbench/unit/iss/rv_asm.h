// A tiny RV32IMF + Zicsr + Xipu assembler for the ISS unit tests: encoders for every
// instruction the tests use, labels with fix-ups, and `li` / `la` as fixed two-word
// sequences (so instruction counts, and thus cycle counts, are easy to predict).
#pragma once

#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace rvasm {

enum Reg : uint32_t {
  zero, ra, sp, gp, tp, t0, t1, t2, s0, s1, a0, a1, a2, a3, a4, a5,
  a6, a7, s2, s3, s4, s5, s6, s7, s8, s9, s10, s11, t3, t4, t5, t6
};
enum Rm : uint32_t { RNE = 0, RTZ = 1, RDN = 2, RUP = 3, RMM = 4, DYN = 7 };

inline uint32_t r_type(uint32_t f7, uint32_t rs2, uint32_t rs1, uint32_t f3, uint32_t rd, uint32_t op) {
  return f7 << 25 | rs2 << 20 | rs1 << 15 | f3 << 12 | rd << 7 | op;
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
         (u >> 1 & 15) << 8 | (u >> 11 & 1) << 7 | 0x63;
}
inline uint32_t u_type(uint32_t imm20, uint32_t rd, uint32_t op) { return imm20 << 12 | rd << 7 | op; }
inline uint32_t j_type(int32_t off, uint32_t rd) {
  const uint32_t u = static_cast<uint32_t>(off);
  return (u >> 20 & 1) << 31 | (u >> 1 & 0x3ff) << 21 | (u >> 11 & 1) << 20 | (u >> 12 & 0xff) << 12 |
         rd << 7 | 0x6f;
}
inline uint32_t r4_type(uint32_t rs3, uint32_t rs2, uint32_t rs1, uint32_t rm, uint32_t rd, uint32_t op) {
  return rs3 << 27 | rs2 << 20 | rs1 << 15 | rm << 12 | rd << 7 | op;
}
// Xipu (custom-0): .insn r 0x0B, funct3, funct7, rd, rs1, rs2
inline uint32_t xipu(uint32_t f3, uint32_t f7, uint32_t rd, uint32_t rs1, uint32_t rs2) {
  return r_type(f7, rs2, rs1, f3, rd, 0x0b);
}

class Asm {
 public:
  explicit Asm(uint32_t base = 0x40000) : base_(base) {}

  uint32_t base() const { return base_; }
  uint32_t pc() const { return base_ + 4 * static_cast<uint32_t>(words_.size()); }
  size_t size() const { return words_.size(); }
  void label(const std::string& name) {
    if (!labels_.emplace(name, pc()).second) throw std::logic_error("label defined twice: " + name);
  }
  uint32_t addr(const std::string& name) const {
    auto it = labels_.find(name);
    if (it == labels_.end()) throw std::logic_error("unknown label: " + name);
    return it->second;
  }
  void word(uint32_t w) { words_.push_back(w); }

  // RV32I
  void lui(Reg rd, uint32_t imm20) { word(u_type(imm20, rd, 0x37)); }
  void auipc(Reg rd, uint32_t imm20) { word(u_type(imm20, rd, 0x17)); }
  void addi(Reg rd, Reg rs1, int32_t i) { word(i_type(i, rs1, 0, rd, 0x13)); }
  void slti(Reg rd, Reg rs1, int32_t i) { word(i_type(i, rs1, 2, rd, 0x13)); }
  void sltiu(Reg rd, Reg rs1, int32_t i) { word(i_type(i, rs1, 3, rd, 0x13)); }
  void xori(Reg rd, Reg rs1, int32_t i) { word(i_type(i, rs1, 4, rd, 0x13)); }
  void ori(Reg rd, Reg rs1, int32_t i) { word(i_type(i, rs1, 6, rd, 0x13)); }
  void andi(Reg rd, Reg rs1, int32_t i) { word(i_type(i, rs1, 7, rd, 0x13)); }
  void slli(Reg rd, Reg rs1, uint32_t sh) { word(r_type(0, sh, rs1, 1, rd, 0x13)); }
  void srli(Reg rd, Reg rs1, uint32_t sh) { word(r_type(0, sh, rs1, 5, rd, 0x13)); }
  void srai(Reg rd, Reg rs1, uint32_t sh) { word(r_type(0x20, sh, rs1, 5, rd, 0x13)); }
  void add(Reg rd, Reg a, Reg b) { word(r_type(0, b, a, 0, rd, 0x33)); }
  void sub(Reg rd, Reg a, Reg b) { word(r_type(0x20, b, a, 0, rd, 0x33)); }
  void sll(Reg rd, Reg a, Reg b) { word(r_type(0, b, a, 1, rd, 0x33)); }
  void slt(Reg rd, Reg a, Reg b) { word(r_type(0, b, a, 2, rd, 0x33)); }
  void sltu(Reg rd, Reg a, Reg b) { word(r_type(0, b, a, 3, rd, 0x33)); }
  void xor_(Reg rd, Reg a, Reg b) { word(r_type(0, b, a, 4, rd, 0x33)); }
  void srl(Reg rd, Reg a, Reg b) { word(r_type(0, b, a, 5, rd, 0x33)); }
  void sra(Reg rd, Reg a, Reg b) { word(r_type(0x20, b, a, 5, rd, 0x33)); }
  void or_(Reg rd, Reg a, Reg b) { word(r_type(0, b, a, 6, rd, 0x33)); }
  void and_(Reg rd, Reg a, Reg b) { word(r_type(0, b, a, 7, rd, 0x33)); }
  // M
  void mul(Reg rd, Reg a, Reg b) { word(r_type(1, b, a, 0, rd, 0x33)); }
  void mulh(Reg rd, Reg a, Reg b) { word(r_type(1, b, a, 1, rd, 0x33)); }
  void mulhsu(Reg rd, Reg a, Reg b) { word(r_type(1, b, a, 2, rd, 0x33)); }
  void mulhu(Reg rd, Reg a, Reg b) { word(r_type(1, b, a, 3, rd, 0x33)); }
  void div(Reg rd, Reg a, Reg b) { word(r_type(1, b, a, 4, rd, 0x33)); }
  void divu(Reg rd, Reg a, Reg b) { word(r_type(1, b, a, 5, rd, 0x33)); }
  void rem(Reg rd, Reg a, Reg b) { word(r_type(1, b, a, 6, rd, 0x33)); }
  void remu(Reg rd, Reg a, Reg b) { word(r_type(1, b, a, 7, rd, 0x33)); }
  // Loads / stores
  void lb(Reg rd, int32_t off, Reg base) { word(i_type(off, base, 0, rd, 0x03)); }
  void lh(Reg rd, int32_t off, Reg base) { word(i_type(off, base, 1, rd, 0x03)); }
  void lw(Reg rd, int32_t off, Reg base) { word(i_type(off, base, 2, rd, 0x03)); }
  void lbu(Reg rd, int32_t off, Reg base) { word(i_type(off, base, 4, rd, 0x03)); }
  void lhu(Reg rd, int32_t off, Reg base) { word(i_type(off, base, 5, rd, 0x03)); }
  void sb(Reg src, int32_t off, Reg base) { word(s_type(off, src, base, 0, 0x23)); }
  void sh(Reg src, int32_t off, Reg base) { word(s_type(off, src, base, 1, 0x23)); }
  void sw(Reg src, int32_t off, Reg base) { word(s_type(off, src, base, 2, 0x23)); }
  void flw(uint32_t fd, int32_t off, Reg base) { word(i_type(off, base, 2, fd, 0x07)); }
  void fsw(uint32_t fs, int32_t off, Reg base) { word(s_type(off, fs, base, 2, 0x27)); }
  // Control flow (label targets resolved by finish())
  void beq(Reg a, Reg b, const std::string& l) { branch(0, a, b, l); }
  void bne(Reg a, Reg b, const std::string& l) { branch(1, a, b, l); }
  void blt(Reg a, Reg b, const std::string& l) { branch(4, a, b, l); }
  void bge(Reg a, Reg b, const std::string& l) { branch(5, a, b, l); }
  void bltu(Reg a, Reg b, const std::string& l) { branch(6, a, b, l); }
  void bgeu(Reg a, Reg b, const std::string& l) { branch(7, a, b, l); }
  void jal(Reg rd, const std::string& l) { fix(Fix::Jal, l, rd); }
  void j(const std::string& l) { jal(zero, l); }
  void jalr(Reg rd, Reg rs1, int32_t off) { word(i_type(off, rs1, 0, rd, 0x67)); }
  // Two words always: lui + addi.
  void li(Reg rd, uint32_t v) {
    const uint32_t lo = v & 0xfff, hi = (v + 0x800) >> 12;
    lui(rd, hi & 0xfffff);
    addi(rd, rd, static_cast<int32_t>(lo << 20) >> 20);
  }
  void la(Reg rd, const std::string& l) { fix(Fix::La, l, rd); word(0); }
  // System
  void ecall() { word(0x00000073); }
  void ebreak() { word(0x00100073); }
  void fence() { word(0x0ff0000f); }
  void csrrw(Reg rd, uint32_t csr, Reg rs1) { word(i_type(static_cast<int32_t>(csr), rs1, 1, rd, 0x73)); }
  void csrrs(Reg rd, uint32_t csr, Reg rs1) { word(i_type(static_cast<int32_t>(csr), rs1, 2, rd, 0x73)); }
  void csrrc(Reg rd, uint32_t csr, Reg rs1) { word(i_type(static_cast<int32_t>(csr), rs1, 3, rd, 0x73)); }
  void csrrwi(Reg rd, uint32_t csr, uint32_t z) { word(i_type(static_cast<int32_t>(csr), z, 5, rd, 0x73)); }
  void csrrsi(Reg rd, uint32_t csr, uint32_t z) { word(i_type(static_cast<int32_t>(csr), z, 6, rd, 0x73)); }
  void csrrci(Reg rd, uint32_t csr, uint32_t z) { word(i_type(static_cast<int32_t>(csr), z, 7, rd, 0x73)); }
  void csrr(Reg rd, uint32_t csr) { csrrs(rd, csr, zero); }
  void csrw(uint32_t csr, Reg rs1) { csrrw(zero, csr, rs1); }
  // F
  void fop(uint32_t f7, uint32_t rd, uint32_t rs1, uint32_t rs2, uint32_t rm) { word(r_type(f7, rs2, rs1, rm, rd, 0x53)); }
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
  void fmadd(uint32_t d, uint32_t a, uint32_t b, uint32_t c, uint32_t rm = DYN) { word(r4_type(c, b, a, rm, d, 0x43)); }
  void fmsub(uint32_t d, uint32_t a, uint32_t b, uint32_t c, uint32_t rm = DYN) { word(r4_type(c, b, a, rm, d, 0x47)); }
  void fnmsub(uint32_t d, uint32_t a, uint32_t b, uint32_t c, uint32_t rm = DYN) { word(r4_type(c, b, a, rm, d, 0x4b)); }
  void fnmadd(uint32_t d, uint32_t a, uint32_t b, uint32_t c, uint32_t rm = DYN) { word(r4_type(c, b, a, rm, d, 0x4f)); }
  // Xipu
  void run(Reg rd, Reg entry, Reg arg) { word(xipu(0, 0, rd, entry, arg)); }
  void join() { word(xipu(0, 1, 0, 0, 0)); }
  void wexit(Reg status) { word(xipu(0, 2, 0, status, 0)); }
  void halt(Reg code) { word(xipu(0, 3, 0, code, 0)); }
  void sync(Reg zone) { word(xipu(0, 4, 0, zone, 0)); }
  void cputc(Reg c) { word(xipu(1, 0, 0, c, 0)); }
  void cwrite(Reg rd, Reg addr, Reg len) { word(xipu(1, 1, rd, addr, len)); }
  // Xipu exchange (supervisor only)
  void xdst(Reg first, Reg count) { word(xipu(2, 0, 0, first, count)); }
  void send(Reg addr, Reg len) { word(xipu(2, 1, 0, addr, len)); }
  void xsrc(Reg tile) { word(xipu(2, 2, 0, tile, 0)); }
  void recv(Reg addr, Reg len) { word(xipu(2, 3, 0, addr, len)); }
  void xwait() { word(xipu(2, 4, 0, 0, 0)); }
  // Xipu streaming memory and host streams (supervisor only)
  void smaddr(Reg lo, Reg hi) { word(xipu(3, 0, 0, lo, hi)); }
  void smread(Reg addr, Reg len) { word(xipu(3, 1, 0, addr, len)); }
  void smwrite(Reg addr, Reg len) { word(xipu(3, 2, 0, addr, len)); }
  void hsid(Reg stream) { word(xipu(4, 0, 0, stream, 0)); }
  void hsread(Reg addr, Reg len) { word(xipu(4, 1, 0, addr, len)); }
  void hswrite(Reg addr, Reg len) { word(xipu(4, 2, 0, addr, len)); }
  // AMP (custom-1 0x2B); type 0 = f16, 1 = f32; bank: the accumulator bank (rs2 field)
  void amp_ldw(uint32_t type, Reg w) { word(r_type(type, 0, w, 0, 0, 0x2b)); }
  void amp_mac(uint32_t type, Reg rd, Reg x, uint32_t bank = 0) { word(r_type(type, bank, x, 1, rd, 0x2b)); }
  void amp_st(uint32_t type, Reg dst, uint32_t bank = 0) { word(r_type(type, bank, dst, 2, 0, 0x2b)); }
  void amp_clr(uint32_t type) { word(r_type(type, 0, 0, 3, 0, 0x2b)); }

  std::vector<uint32_t> finish() const {
    std::vector<uint32_t> out = words_;
    for (const Fixup& f : fixups_) {
      const uint32_t target = addr(f.label), pc = base_ + 4 * static_cast<uint32_t>(f.index);
      const int32_t off = static_cast<int32_t>(target - pc);
      switch (f.kind) {
        case Fix::Branch: out[f.index] = b_type(off, f.b, f.a, f.f3); break;
        case Fix::Jal: out[f.index] = j_type(off, f.a); break;
        case Fix::La: {
          const uint32_t lo = target & 0xfff, hi = (target + 0x800) >> 12;
          out[f.index] = u_type(hi & 0xfffff, f.a, 0x37);
          out[f.index + 1] = i_type(static_cast<int32_t>(lo << 20) >> 20, f.a, 0, f.a, 0x13);
          break;
        }
      }
    }
    return out;
  }

 private:
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
};

}  // namespace rvasm
