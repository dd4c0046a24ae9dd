// Tiny tile programs built in memory for platform tests: an RV32I + Xipu instruction
// encoder, written out as an ELF by testbench/support/test_elf.h (one R+X code segment,
// one R+W data segment).
// The tests need a handful of instructions, not a toolchain; firmware-built ELFs are
// exercised by the CLI tests.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "iss/tile_core.h"
#include "test_elf.h"

namespace ipusim::test {

// Registers by ABI name.
enum Reg : uint32_t {
  zero = 0, ra = 1, sp = 2, gp = 3, tp = 4, t0 = 5, t1 = 6, t2 = 7, s0 = 8, s1 = 9,
  a0 = 10, a1 = 11, a2 = 12, a3 = 13, a4 = 14, a5 = 15,
};

// Xipu CSRs (docs/xipu.md).
inline constexpr uint32_t kCsrTile = 0xCC0, kCsrIpu = 0xCC1;

class Asm {
 public:
  static constexpr uint32_t kCodeBase = iss::kSramBase;
  static constexpr uint32_t kDataBase = iss::kSramBase + 0x8000;

  uint32_t pc() const { return kCodeBase + uint32_t(code_.size() * 4); }
  const std::vector<uint32_t>& code() const { return code_; }
  const std::vector<uint8_t>& data() const { return data_; }

  // Places bytes in the data segment; returns their address.
  uint32_t bytes(const std::string& s) {
    const uint32_t addr = kDataBase + uint32_t(data_.size());
    data_.insert(data_.end(), s.begin(), s.end());
    return addr;
  }

  // RV32I
  void emit(uint32_t insn) { code_.push_back(insn); }
  void addi(Reg rd, Reg rs1, int32_t imm) { i_type(imm, rs1, 0, rd, 0x13); }
  void andi(Reg rd, Reg rs1, int32_t imm) { i_type(imm, rs1, 7, rd, 0x13); }
  void srli(Reg rd, Reg rs1, uint32_t sh) { i_type(int32_t(sh), rs1, 5, rd, 0x13); }
  void slli(Reg rd, Reg rs1, uint32_t sh) { i_type(int32_t(sh), rs1, 1, rd, 0x13); }
  void add(Reg rd, Reg rs1, Reg rs2) { r_type(0, rs2, rs1, 0, rd, 0x33); }
  void sub(Reg rd, Reg rs1, Reg rs2) { r_type(0x20, rs2, rs1, 0, rd, 0x33); }
  void lui(Reg rd, uint32_t imm20) { emit((imm20 << 12) | (rd << 7) | 0x37); }
  void lbu(Reg rd, Reg rs1, int32_t imm) { i_type(imm, rs1, 4, rd, 0x03); }
  void lw(Reg rd, Reg rs1, int32_t imm) { i_type(imm, rs1, 2, rd, 0x03); }
  void sw(Reg rs2, Reg rs1, int32_t imm) {
    const auto u = uint32_t(imm);
    emit(((u >> 5) << 25) | (rs2 << 20) | (rs1 << 15) | (2 << 12) | ((u & 31) << 7) | 0x23);
  }
  void csrr(Reg rd, uint32_t csr) { emit((csr << 20) | (2 << 12) | (rd << 7) | 0x73); }
  // Loads a 32-bit constant (lui + addi).
  void li(Reg rd, uint32_t value) {
    const uint32_t lo = value & 0xfff;
    const uint32_t hi = (value + 0x800) >> 12;
    lui(rd, hi & 0xfffff);
    addi(rd, rd, int32_t(lo << 20) >> 20);
  }
  // Branches to an absolute target already emitted (backward) or patched later.
  void bne(Reg rs1, Reg rs2, uint32_t target) { emit(b_type(pc(), target, rs2, rs1, 1)); }
  void beq(Reg rs1, Reg rs2, uint32_t target) { emit(b_type(pc(), target, rs2, rs1, 0)); }
  // Re-targets the branch at code index `index` (emitted with a placeholder target).
  void patch_branch(size_t index, uint32_t target) {
    const uint32_t insn = code_.at(index);
    code_[index] = b_type(kCodeBase + uint32_t(index * 4), target, (insn >> 20) & 31,
                          (insn >> 15) & 31, (insn >> 12) & 7);
  }

  // Xipu (custom-0, R-type)
  void xipu(uint32_t funct3, uint32_t funct7, Reg rd, Reg rs1, Reg rs2) {
    r_type(funct7, rs2, rs1, funct3, rd, 0x0B);
  }
  void halt(Reg code) { xipu(0, 0x03, zero, code, zero); }
  void sync(Reg zone) { xipu(0, 0x04, zero, zone, zero); }
  void cputc(Reg c) { xipu(1, 0x00, zero, c, zero); }
  void cwrite(Reg addr, Reg len) { xipu(1, 0x01, zero, addr, len); }

  // Composite helpers.
  void print(const std::string& s) {  // appends s to the console line (no newline)
    const uint32_t addr = bytes(s);
    li(t0, addr);
    li(t1, uint32_t(s.size()));
    cwrite(t0, t1);
  }
  void newline() { print_char('\n'); }
  void print_char(char c) {
    addi(t0, zero, c);
    cputc(t0);
  }
  // Appends `reg` as 8 hex digits (clobbers t0, t1, t2).
  void print_hex(Reg reg) {
    const uint32_t table = bytes("0123456789abcdef");
    for (int shift = 28; shift >= 0; shift -= 4) {
      srli(t0, reg, uint32_t(shift));
      andi(t0, t0, 15);
      li(t1, table);
      add(t1, t1, t0);
      lbu(t2, t1, 0);
      cputc(t2);
    }
  }
  // Busy loop of `reg` iterations (reg is clobbered down to zero).
  void spin(Reg reg) {
    const uint32_t top = pc();
    const size_t skip = code_.size();
    beq(reg, zero, top);  // patched to the loop's end
    addi(reg, reg, -1);
    bne(reg, zero, top + 4);
    patch_branch(skip, pc());
  }

  // The ELF32 image: code at kCodeBase (R+X), data at kDataBase (R+W), entry kCodeBase.
  std::vector<uint8_t> elf() const;

 private:
  void r_type(uint32_t f7, uint32_t rs2, uint32_t rs1, uint32_t f3, uint32_t rd, uint32_t op) {
    emit((f7 << 25) | (rs2 << 20) | (rs1 << 15) | (f3 << 12) | (rd << 7) | op);
  }
  void i_type(int32_t imm, uint32_t rs1, uint32_t f3, uint32_t rd, uint32_t op) {
    emit((uint32_t(imm) << 20) | (rs1 << 15) | (f3 << 12) | (rd << 7) | op);
  }
  static uint32_t b_type(uint32_t at, uint32_t target, uint32_t rs2, uint32_t rs1, uint32_t f3) {
    const uint32_t off = target - at;
    return (((off >> 12) & 1) << 31) | (((off >> 5) & 0x3f) << 25) | (rs2 << 20) | (rs1 << 15) |
           (f3 << 12) | (((off >> 1) & 0xf) << 8) | (((off >> 11) & 1) << 7) | 0x63;
  }

  std::vector<uint32_t> code_;
  std::vector<uint8_t> data_;
};

inline std::vector<uint8_t> Asm::elf() const {
  testelf::Image image;
  image.code = code_;
  image.code_addr = image.entry = kCodeBase;
  image.data = data_;
  image.data_addr = kDataBase;
  return testelf::build(image);
}

}  // namespace ipusim::test
