// Tiny tile programs built in memory for platform tests: the suites' one assembler
// (testbench/support/rv_asm.h) plus a data segment, console helpers and the ELF image
// (testbench/support/test_elf.h: one R+X code segment, one R+W data segment).
// The tests need a handful of instructions, not a toolchain; firmware-built ELFs are
// exercised by the CLI tests.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "iss/tile_core.h"
#include "rv_asm.h"
#include "test_elf.h"

namespace ipusim::test {

// Registers by ABI name: test::a0, ...
using rvasm::Reg;
using enum rvasm::Reg;

class Asm : public rvasm::Asm {
 public:
  static constexpr uint32_t kCodeBase = iss::kSramBase;
  static constexpr uint32_t kDataBase = iss::kSramBase + 0x8000;

  Asm() : rvasm::Asm(kCodeBase) {}

  std::vector<uint32_t> code() const { return finish(); }
  const std::vector<uint8_t>& data() const { return data_; }

  // Places bytes in the data segment; returns their address.
  uint32_t bytes(const std::string& s) {
    const uint32_t addr = kDataBase + uint32_t(data_.size());
    data_.insert(data_.end(), s.begin(), s.end());
    return addr;
  }

  // Appends s to the console line (no newline); clobbers t0, t1.
  void print(const std::string& s) {
    const uint32_t addr = bytes(s);
    li(t0, addr);
    li(t1, uint32_t(s.size()));
    cwrite(zero, t0, t1);
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
      lbu(t2, 0, t1);
      cputc(t2);
    }
  }
  // Busy loop of `reg` iterations (reg is clobbered down to zero).
  void spin(Reg reg) {
    const std::string body = fresh_label("spin"), end = fresh_label("spin_end");
    beq(reg, zero, end);
    label(body);
    addi(reg, reg, -1);
    bne(reg, zero, body);
    label(end);
  }

  // The ELF32 image: code at kCodeBase (R+X), data at kDataBase (R+W), entry kCodeBase.
  std::vector<uint8_t> elf() const {
    testelf::Image image;
    image.code = code();
    image.code_addr = image.entry = kCodeBase;
    image.data = data_;
    image.data_addr = kDataBase;
    return testelf::build(image);
  }

 private:
  std::vector<uint8_t> data_;
};

}  // namespace ipusim::test
