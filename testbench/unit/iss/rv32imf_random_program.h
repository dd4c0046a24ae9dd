// Seeded random RV32IMF programs that qemu-riscv32 (user mode) and the tile ISS must run
// identically (qemu_random_test.cpp): plain RV32IMF + Zicsr's fcsr / frm only (no Xipu,
// no cycle / instret, no faults, aligned accesses only: qemu does not fault a misaligned
// access the way the tile does). The body ends with an epilogue storing x1..x31, f0..f31
// and fcsr into the dump area after the data region; the caller appends the ending (a
// halt on the tile, write + exit under qemu).
#pragma once

#include <array>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "random_rv32_ops.h"
#include "rv_asm.h"

namespace isstest {

// The data region (random initial bytes, read and written by the code), then the dump.
inline constexpr uint32_t kRandomDataBytes = 512;
inline constexpr uint32_t kDumpX = kRandomDataBytes;       // x0..x31 (x0 stored too)
inline constexpr uint32_t kDumpF = kDumpX + 32 * 4;        // f0..f31
inline constexpr uint32_t kDumpFcsr = kDumpF + 32 * 4;     // fcsr
inline constexpr uint32_t kDumpBytes = kDumpFcsr + 4;      // what qemu writes to stdout

class Rv32imfGenerator {
 public:
  explicit Rv32imfGenerator(uint32_t seed) : rng_(seed) {}

  // The data region's initial contents (a stream of its own: not the body's choices).
  static std::vector<uint8_t> initial_data(uint32_t seed) {
    std::mt19937 rng(seed ^ 0x9e3779b9u);
    std::vector<uint8_t> d(kRandomDataBytes);
    for (auto& b : d) b = static_cast<uint8_t>(rng());
    return d;
  }

  // Prologue (every register but s0 and x0 set: qemu's sp, a0.. at entry differ from the
  // tile's), random chunks, epilogue. s0 = the data area base.
  void body(rvasm::Asm& a, uint32_t data_addr) {
    using namespace rvasm;
    a.li(s0, data_addr);
    for (uint32_t r = 1; r < 32; ++r)
      if (r != s0) a.li(static_cast<Reg>(r), value());
    for (uint32_t f = 0; f < 32; ++f) {
      a.li(t0, value());
      a.fmv_w_x(f, t0);
    }
    a.li(t0, value());
    a.csrw(kFcsr, t0);  // fcsr keeps its low 8 bits: random frm (maybe reserved) and flags
    a.csrrwi(zero, kFrm, pick(0, 4));  // a valid frm for the dyn ops
    const uint32_t chunks = pick(4, 14);
    for (uint32_t c = 0; c < chunks; ++c) chunk(a);
    for (uint32_t r = 1; r < 32; ++r) a.sw(static_cast<Reg>(r), kDumpX + 4 * r, s0);
    for (uint32_t f = 0; f < 32; ++f) a.fsw(f, kDumpF + 4 * f, s0);
    a.csrr(t0, kFcsr);
    a.sw(t0, kDumpFcsr, s0);
  }

 private:
  static constexpr uint32_t kFflags = 0x001, kFrm = 0x002, kFcsr = 0x003;
  // Never s0 (the data base), s1 / s5 (loop counters).
  static constexpr rvasm::Reg kPool[] = {rvasm::ra, rvasm::sp, rvasm::gp, rvasm::tp, rvasm::t0, rvasm::t1,
                                         rvasm::t2, rvasm::a0, rvasm::a1, rvasm::a2, rvasm::a3, rvasm::a4,
                                         rvasm::a5, rvasm::a6, rvasm::a7, rvasm::s2, rvasm::s3, rvasm::s4,
                                         rvasm::s6, rvasm::s7, rvasm::s8, rvasm::s9, rvasm::s10, rvasm::s11,
                                         rvasm::t3, rvasm::t4, rvasm::t5, rvasm::t6};

  uint32_t pick(uint32_t lo, uint32_t hi) { return std::uniform_int_distribution<uint32_t>(lo, hi)(rng_); }
  // pick and straight as the shared shapes (random_rv32_ops.h) take them.
  auto picker() { return [this](uint32_t lo, uint32_t hi) { return pick(lo, hi); }; }
  auto straight_code(rvasm::Asm& a) { return [this, &a](uint32_t n) { straight(a, n); }; }
  bool chance(uint32_t in) { return pick(0, in - 1) == 0; }
  rvasm::Reg reg() { return kPool[pick(0, std::size(kPool) - 1)]; }
  rvasm::Reg src() { return chance(12) ? rvasm::zero : reg(); }
  rvasm::Reg dst() { return chance(20) ? rvasm::zero : reg(); }
  uint32_t freg() { return pick(0, 31); }
  // Integer edges (0, +-1, INT_MIN: div overflow) and float edges (+-0, +-inf, NaNs quiet
  // and signalling, subnormals, 2^31 / 2^32 and neighbours for the conversions, ties).
  uint32_t value() {
    static const uint32_t edge[] = {0,           1,           ~0u,         0x80000000u, 0x7fffffffu, 0x7fc00000u,
                                    0x7f800001u, 0xffc00000u, 0x3f800000u, 0xbf800000u, 0x80000000u, 0x7f800000u,
                                    0xff800000u, 0x4f000000u, 0x4effffffu, 0xcf000000u, 0xcf000001u, 0x4f800000u,
                                    0x4f7fffffu, 0x3f000000u, 0xbfc00000u, 0x40200000u, 0x00000001u, 0x807fffffu,
                                    0x7f7fffffu, 0x00800000u, 0x7fc12345u, 0x3effffffu};
    if (chance(2)) return edge[pick(0, std::size(edge) - 1)];
    if (chance(3)) return pick(0, 0x1ff) << 23 | (static_cast<uint32_t>(rng_()) & 0x7fffff);  // any exponent
    return static_cast<uint32_t>(rng_());
  }
  void set_f(rvasm::Asm& a, uint32_t f) {
    const rvasm::Reg r = reg();
    a.li(r, value());
    a.fmv_w_x(f, r);
  }

  void alu(rvasm::Asm& a) {
    const rvasm::Reg d = dst(), x = src(), y = src();
    const int32_t imm = static_cast<int32_t>(pick(0, 4095)) - 2048;
    const uint32_t k = pick(0, kRandomAluOps + 1);
    if (k < kRandomAluOps) random_alu_op(a, k, d, x, y, imm, picker());
    else if (k == kRandomAluOps) a.lui(d, pick(0, 0xfffff));
    else a.li(d, value());
  }
  void memory(rvasm::Asm& a) {
    const uint32_t size = 1u << pick(0, 2);
    const int32_t off = static_cast<int32_t>(pick(0, kRandomDataBytes / size - 1) * size);
    const rvasm::Reg r = reg();
    random_memory_op(a, pick(0, kRandomMemoryOps - 1), r, off, rvasm::s0, [this] { return freg(); });
  }
  // A rounding mode: one of the five static ones or dyn (frm as last set).
  uint32_t rm() { return std::array{rvasm::RNE, rvasm::RTZ, rvasm::RDN, rvasm::RUP, rvasm::RMM, rvasm::DYN,
                                    rvasm::DYN, rvasm::RNE}[pick(0, 7)]; }
  void fp(rvasm::Asm& a) {
    const uint32_t d = freg(), x = freg(), y = freg(), z = freg();
    const uint32_t k = pick(0, 29);
    if (chance(2)) set_f(a, x);
    if (chance(3)) set_f(a, y);
    switch (k) {
      case 0: a.fadd(d, x, y, rm()); break;
      case 1: a.fsub(d, x, y, rm()); break;
      case 2: a.fmul(d, x, y, rm()); break;
      case 3: a.fdiv(d, x, y, rm()); break;
      case 4: a.fsqrt(d, x, rm()); break;
      case 5: a.fmadd(d, x, y, z, rm()); break;
      case 6: a.fmsub(d, x, y, z, rm()); break;
      case 7: a.fnmsub(d, x, y, z, rm()); break;
      case 8: a.fnmadd(d, x, y, z, rm()); break;
      case 9: a.fsgnj(d, x, y); break;
      case 10: a.fsgnjn(d, x, y); break;
      case 11: a.fsgnjx(d, x, y); break;
      case 12: a.fmin(d, x, y); break;
      case 13: a.fmax(d, x, y); break;
      case 14: a.fcvt_w_s(dst(), x, rm()); break;
      case 15: a.fcvt_wu_s(dst(), x, rm()); break;
      case 16: a.fcvt_s_w(d, src(), rm()); break;
      case 17: a.fcvt_s_wu(d, src(), rm()); break;
      case 18: a.feq(dst(), x, y); break;
      case 19: a.flt(dst(), x, y); break;
      case 20: a.fle(dst(), x, y); break;
      case 21: a.fclass(dst(), x); break;
      case 22: a.fmv_x_w(dst(), x); break;
      case 23: a.fmv_w_x(d, src()); break;
      case 24: {  // fsrm: frm from a register (only 0..4: a reserved one would fault the dyn ops)
        const rvasm::Reg r = reg();
        a.li(r, pick(0, 4));
        a.csrrw(dst(), kFrm, r);
        break;
      }
      case 25: a.csrrwi(dst(), kFrm, pick(0, 4)); break;
      case 26: a.csrrw(dst(), kFflags, src()); break;  // fflags read and replaced (low 5 bits)
      case 27: a.csrr(dst(), kFcsr); break;
      default: a.fmul(d, x, y, rm()); break;
    }
  }
  void one(rvasm::Asm& a) {
    const uint32_t k = pick(0, 99);
    if (k < 40) alu(a);
    else if (k < 60) memory(a);
    else fp(a);
  }
  void straight(rvasm::Asm& a, uint32_t n) {
    for (uint32_t i = 0; i < n; ++i) one(a);
  }
  void branch(rvasm::Asm& a, const std::string& to) {
    const rvasm::Reg x = src(), y = src();
    random_branch(a, pick(0, 5), x, y, to);
  }
  void chunk(rvasm::Asm& a) {
    using namespace rvasm;
    switch (pick(0, 3)) {
      case 0: straight(a, pick(1, 12)); break;
      case 1:
        random_counted_loop(a, picker(), straight_code(a), [&](const std::string& to) { branch(a, to); }, false);
        break;
      case 2: random_nested_loops(a, picker(), straight_code(a)); break;
      default: {  // a forward branch
        const std::string skip = a.fresh_label("fwd");
        straight(a, pick(0, 4));
        branch(a, skip);
        straight(a, pick(1, 6));
        a.label(skip);
      }
    }
  }

  std::mt19937 rng_;
};

}  // namespace isstest
