// F extension: arithmetic through the native fast path (RNE) and the exact path (other
// rounding modes), NaN canonicalisation, exception flags, rounding-mode handling,
// comparisons, conversions, sign injection, and a differential check of the fast path
// against the exact fpu:: functions over random and special operands.
#include <cmath>
#include <limits>
#include <random>

#include "iss/fpu.h"
#include "iss_harness.h"

namespace {

using namespace isstest;
using namespace rvasm;
namespace fpu = ipusim::iss::fpu;

constexpr uint32_t kFflags = 0x001, kFrm = 0x002, kFcsr = 0x003;
constexpr uint32_t kQNaN = 0x7fc00000u;

// Loads f-register operands from a data table, runs `body`, halts.
struct FpProgram {
  Asm a;
  std::vector<uint32_t> table;
  explicit FpProgram(std::vector<uint32_t> values) : table(std::move(values)) {
    a.li(s0, kData);
    for (uint32_t i = 0; i < table.size(); ++i) a.flw(i, static_cast<int32_t>(4 * i), s0);
  }
  Harness run(void (*body)(Asm&)) {
    body(a);
    a.halt(zero);
    testelf::Image img;
    img.data_addr = kData;
    img.data.resize(4 * table.size() + 4);
    std::memcpy(img.data.data(), table.data(), 4 * table.size());
    Harness h(a, test_params(), img);
    h.run();
    return h;
  }
};

TEST(IssFp, ArithmeticFastPath) {
  FpProgram p({fbits(1.5f), fbits(2.25f), fbits(3.0f), fbits(2.0f)});
  Harness h = p.run([](Asm& a) {
    a.fadd(10, 0, 1);
    a.fsub(11, 0, 1);
    a.fmul(12, 0, 1);
    a.fdiv(13, 1, 0);
    a.fsqrt(14, 3);
    a.fmadd(15, 0, 1, 2);   // 1.5*2.25+3
    a.fmsub(16, 0, 1, 2);
    a.fnmsub(17, 0, 1, 2);
    a.fnmadd(18, 0, 1, 2);
    a.fadd(19, 0, 1, RNE);  // static RNE handler
  });
  ASSERT_EQ(h.stop.reason, StopReason::Halted) << h.fault_message();
  EXPECT_EQ(h.f(10), fbits(3.75f));
  EXPECT_EQ(h.f(11), fbits(-0.75f));
  EXPECT_EQ(h.f(12), fbits(3.375f));
  EXPECT_EQ(h.f(13), fbits(1.5f));
  EXPECT_EQ(h.f(14), fbits(std::sqrt(2.0f)));
  EXPECT_EQ(h.f(15), fbits(6.375f));
  EXPECT_EQ(h.f(16), fbits(0.375f));
  EXPECT_EQ(h.f(17), fbits(-0.375f));
  EXPECT_EQ(h.f(18), fbits(-6.375f));
  EXPECT_EQ(h.f(19), fbits(3.75f));
  EXPECT_EQ(h.fcsr() & 0x1f, fpu::NX);  // sqrt(2) is inexact; the rest are exact
}

TEST(IssFp, NanResultsAreCanonical) {
  const float inf = std::numeric_limits<float>::infinity();
  FpProgram p({fbits(0.0f), fbits(inf), 0x7f800001u /* sNaN */, 0x7fc12345u /* qNaN with payload */,
               fbits(-1.0f), fbits(1.0f), 0xffc00001u});
  Harness h = p.run([](Asm& a) {
    a.fdiv(10, 0, 0);        // 0/0
    a.fsub(11, 1, 1);        // inf - inf
    a.fsqrt(12, 4);          // sqrt(-1)
    a.fadd(13, 2, 5);        // sNaN + 1
    a.fmul(14, 3, 5);        // qNaN payload * 1
    a.fmadd(15, 1, 0, 3);    // inf*0 + qNaN
    a.fadd(16, 6, 3, RTZ);   // exact path too
    a.fsgnjn(17, 3, 3);      // sign injection keeps payloads
    a.fmv_x_w(a0, 3);
  });
  ASSERT_EQ(h.stop.reason, StopReason::Halted) << h.fault_message();
  for (unsigned r = 10; r <= 16; ++r) EXPECT_EQ(h.f(r), kQNaN) << "f" << r;
  EXPECT_EQ(h.f(17), 0xffc12345u);
  EXPECT_EQ(h.x(a0), 0x7fc12345u);
  EXPECT_EQ(h.fcsr() & 0x1f, fpu::NV);
}

TEST(IssFp, QuietNanOperandRaisesNothing) {
  FpProgram p({0x7fc12345u, fbits(1.0f)});
  Harness h = p.run([](Asm& a) { a.fadd(10, 0, 1); });
  EXPECT_EQ(h.f(10), kQNaN);
  EXPECT_EQ(h.fcsr(), 0u);
}

TEST(IssFp, ExceptionFlags) {
  const float max = std::numeric_limits<float>::max();
  struct Case {
    void (*body)(Asm&);
    uint32_t flags;
    uint32_t result;
  };
  const Case cases[] = {
      {[](Asm& a) { a.fdiv(10, 1, 0); }, fpu::DZ, fbits(std::numeric_limits<float>::infinity())},  // 1/0
      {[](Asm& a) { a.fmul(10, 2, 3); }, fpu::OF | fpu::NX, fbits(std::numeric_limits<float>::infinity())},
      {[](Asm& a) { a.fmul(10, 4, 4); }, fpu::UF | fpu::NX, 0u},  // 1e-30^2
      {[](Asm& a) { a.fdiv(10, 1, 5); }, fpu::NX, fbits(1.0f / 3.0f)},
      {[](Asm& a) { a.fadd(10, 1, 1); }, 0u, fbits(2.0f)},
  };
  for (const Case& c : cases) {
    FpProgram p({fbits(0.0f), fbits(1.0f), fbits(max), fbits(2.0f), fbits(1e-30f), fbits(3.0f)});
    Harness h = p.run(c.body);
    ASSERT_EQ(h.stop.reason, StopReason::Halted) << h.fault_message();
    EXPECT_EQ(h.fcsr() & 0x1f, c.flags);
    EXPECT_EQ(h.f(10), c.result);
  }
}

// 1 + 0.75 ulp and its negative: every rounding mode gives a different pattern.
TEST(IssFp, StaticAndDynamicRoundingModes) {
  const float one = 1.0f, tiny = std::ldexp(3.0f, -25);
  const uint32_t up = fbits(std::nextafter(1.0f, 2.0f)), down = fbits(1.0f);
  FpProgram p({fbits(one), fbits(tiny), fbits(-one), fbits(-tiny)});
  Harness h = p.run([](Asm& a) {
    a.fadd(10, 0, 1, RNE);
    a.fadd(11, 0, 1, RTZ);
    a.fadd(12, 0, 1, RDN);
    a.fadd(13, 0, 1, RUP);
    a.fadd(14, 2, 3, RDN);
    a.fadd(15, 2, 3, RTZ);
    a.csrrwi(zero, 0x002, RTZ);  // frm = RTZ: dyn goes to the exact path
    a.fadd(16, 0, 1);
    a.fmadd(17, 0, 0, 1);
    a.csrrwi(zero, 0x002, RUP);
    a.fadd(18, 0, 1);
    a.csrrwi(zero, 0x002, RNE);  // back to the fast path
    a.fadd(19, 0, 1);
  });
  ASSERT_EQ(h.stop.reason, StopReason::Halted) << h.fault_message();
  EXPECT_EQ(h.f(10), up);
  EXPECT_EQ(h.f(11), down);
  EXPECT_EQ(h.f(12), down);
  EXPECT_EQ(h.f(13), up);
  EXPECT_EQ(h.f(14), up | 0x80000000u);
  EXPECT_EQ(h.f(15), down | 0x80000000u);
  EXPECT_EQ(h.f(16), down);
  EXPECT_EQ(h.f(17), down);
  EXPECT_EQ(h.f(18), up);
  EXPECT_EQ(h.f(19), up);
  EXPECT_EQ(h.fcsr(), fpu::NX);
}

TEST(IssFp, ReservedDynamicRoundingModeIsIllegal) {
  FpProgram p({fbits(1.0f)});
  Harness h = p.run([](Asm& a) {
    a.csrrwi(zero, 0x002, 5);
    a.fadd(10, 0, 0);
  });
  ASSERT_EQ(h.stop.reason, StopReason::Fault);
  EXPECT_EQ(h.stop.fault->kind, "illegal instruction");
  EXPECT_NE(h.stop.fault->detail.find("frm = 5"), std::string::npos) << h.fault_message();
  EXPECT_EQ(h.stop.fault->disasm, "fadd.s fa0, ft0, ft0");
}

TEST(IssFp, ReservedStaticRoundingModeIsIllegal) {
  FpProgram p({fbits(1.0f)});
  Harness h = p.run([](Asm& a) { a.fop(0x00, 10, 0, 0, 6); });
  ASSERT_EQ(h.stop.reason, StopReason::Fault);
  EXPECT_EQ(h.stop.fault->kind, "illegal instruction");
}

TEST(IssFp, MinMaxCompareClassify) {
  FpProgram p({fbits(-0.0f), fbits(0.0f), 0x7fc00000u, fbits(2.0f), 0x7f800001u, fbits(-1.0f)});
  Harness h = p.run([](Asm& a) {
    a.fmin(10, 0, 1);   // -0
    a.fmax(11, 0, 1);   // +0
    a.fmin(12, 2, 3);   // qNaN, 2 -> 2
    a.fmax(13, 2, 2);   // both NaN -> canonical
    a.feq(a0, 0, 1);    // -0 == +0
    a.flt(a1, 5, 3);
    a.fle(a2, 3, 3);
    a.feq(a3, 2, 3);    // quiet NaN: no NV
    a.csrr(a4, 0x001);
    a.flt(a5, 2, 3);    // signalling comparison on NaN: NV
    a.fclass(a6, 0);
    a.fclass(a7, 4);
    a.fclass(s1, 3);
    a.fclass(s2, 2);
  });
  ASSERT_EQ(h.stop.reason, StopReason::Halted) << h.fault_message();
  EXPECT_EQ(h.f(10), 0x80000000u);
  EXPECT_EQ(h.f(11), 0u);
  EXPECT_EQ(h.f(12), fbits(2.0f));
  EXPECT_EQ(h.f(13), kQNaN);
  EXPECT_EQ(h.x(a0), 1u);
  EXPECT_EQ(h.x(a1), 1u);
  EXPECT_EQ(h.x(a2), 1u);
  EXPECT_EQ(h.x(a3), 0u);
  EXPECT_EQ(h.x(a4), 0u);
  EXPECT_EQ(h.x(a5), 0u);
  EXPECT_EQ(h.fcsr() & 0x1f, fpu::NV);
  EXPECT_EQ(h.x(a6), 1u << 3);  // -0
  EXPECT_EQ(h.x(a7), 1u << 8);  // sNaN
  EXPECT_EQ(h.x(s1), 1u << 6);  // positive normal
  EXPECT_EQ(h.x(s2), 1u << 9);  // qNaN
}

TEST(IssFp, ConversionsAndMoves) {
  FpProgram p({fbits(2.5f), fbits(-2.5f), fbits(3e9f), fbits(-1.0f), 0x7fc00000u, fbits(1.0f)});
  Harness h = p.run([](Asm& a) {
    a.fcvt_w_s(a0, 0, RTZ);    // 2
    a.fcvt_w_s(a1, 0);         // dyn = RNE: 2 (ties to even)
    a.fcvt_w_s(a2, 1, RDN);    // -3
    a.fcvt_w_s(a3, 2);         // saturates to INT_MAX
    a.fcvt_wu_s(a4, 3);        // negative -> 0
    a.fcvt_wu_s(a5, 2);        // 3e9 fits
    a.fcvt_w_s(a6, 4);         // NaN -> INT_MAX
    a.li(t0, 0xfffffff9u);
    a.fcvt_s_w(10, t0);        // -7
    a.fcvt_s_wu(11, t0);       // 4294967289 -> 4294967296
    a.fsgnj(12, 0, 1);         // -2.5
    a.fsgnjn(13, 1, 1);        // 2.5
    a.fsgnjx(14, 1, 3);        // -2.5 ^ - = 2.5
    a.li(t1, 0x3f800000u);
    a.fmv_w_x(15, t1);
    a.fmv_x_w(a7, 15);
  });
  ASSERT_EQ(h.stop.reason, StopReason::Halted) << h.fault_message();
  EXPECT_EQ(h.x(a0), 2u);
  EXPECT_EQ(h.x(a1), 2u);
  EXPECT_EQ(h.x(a2), static_cast<uint32_t>(-3));
  EXPECT_EQ(h.x(a3), 0x7fffffffu);
  EXPECT_EQ(h.x(a4), 0u);
  EXPECT_EQ(h.x(a5), 3000000000u);
  EXPECT_EQ(h.x(a6), 0x7fffffffu);
  EXPECT_EQ(h.f(10), fbits(-7.0f));
  EXPECT_EQ(h.f(11), fbits(4294967296.0f));
  EXPECT_EQ(h.f(12), fbits(-2.5f));
  EXPECT_EQ(h.f(13), fbits(2.5f));
  EXPECT_EQ(h.f(14), fbits(2.5f));
  EXPECT_EQ(h.f(15), 0x3f800000u);
  EXPECT_EQ(h.x(a7), 0x3f800000u);
  EXPECT_EQ(h.fcsr() & 0x1f, fpu::NV | fpu::NX);
}

// ---- Differential: fast path vs the exact fpu:: reference. ----

uint32_t random_operand(std::mt19937& rng) {
  static const uint32_t specials[] = {0x00000000, 0x80000000, 0x7f800000, 0xff800000, 0x7fc00000, 0x7f800001,
                                      0xffa00000, 0x00000001, 0x807fffff, 0x00800000, 0x7f7fffff, 0xff7fffff,
                                      0x3f800000, 0xbf800000, 0x3f800001, 0x34000000, 0x0c000000, 0x4b000000};
  switch (rng() % 4) {
    case 0: return specials[rng() % std::size(specials)];
    case 1: return (rng() & 0x807fffffu) | ((rng() % 40) << 23);               // tiny exponents
    case 2: return (rng() & 0x80ffffffu) | ((120 + rng() % 16) << 23);        // near 1
    default: return rng();
  }
}

enum class DiffOp { add, sub, mul, div, sqrt, madd, msub, nmsub, nmadd };

uint32_t reference(DiffOp op, uint32_t a, uint32_t b, uint32_t c, uint32_t& flags) {
  switch (op) {
    case DiffOp::add: return fpu::add(a, b, fpu::RNE, flags);
    case DiffOp::sub: return fpu::sub(a, b, fpu::RNE, flags);
    case DiffOp::mul: return fpu::mul(a, b, fpu::RNE, flags);
    case DiffOp::div: return fpu::div(a, b, fpu::RNE, flags);
    case DiffOp::sqrt: return fpu::sqrt(a, fpu::RNE, flags);
    case DiffOp::madd: return fpu::madd(a, b, c, fpu::RNE, flags);
    case DiffOp::msub: return fpu::msub(a, b, c, fpu::RNE, flags);
    case DiffOp::nmsub: return fpu::nmsub(a, b, c, fpu::RNE, flags);
    case DiffOp::nmadd: return fpu::nmadd(a, b, c, fpu::RNE, flags);
  }
  return 0;
}

void emit(Asm& a, DiffOp op, uint32_t rm) {
  switch (op) {
    case DiffOp::add: a.fadd(4, 1, 2, rm); break;
    case DiffOp::sub: a.fsub(4, 1, 2, rm); break;
    case DiffOp::mul: a.fmul(4, 1, 2, rm); break;
    case DiffOp::div: a.fdiv(4, 1, 2, rm); break;
    case DiffOp::sqrt: a.fsqrt(4, 1, rm); break;
    case DiffOp::madd: a.fmadd(4, 1, 2, 3, rm); break;
    case DiffOp::msub: a.fmsub(4, 1, 2, 3, rm); break;
    case DiffOp::nmsub: a.fnmsub(4, 1, 2, 3, rm); break;
    case DiffOp::nmadd: a.fnmadd(4, 1, 2, 3, rm); break;
  }
}

TEST(IssFp, FastPathMatchesExactReference) {
  constexpr uint32_t kN = 1500;
  std::mt19937 rng(2024);
  for (DiffOp op : {DiffOp::add, DiffOp::sub, DiffOp::mul, DiffOp::div, DiffOp::sqrt, DiffOp::madd, DiffOp::msub,
                    DiffOp::nmsub, DiffOp::nmadd}) {
    for (uint32_t rm : {uint32_t{RNE}, uint32_t{DYN}}) {
      std::vector<uint32_t> in(3 * kN);
      for (auto& v : in) v = random_operand(rng);
      // Layout: a[kN], b[kN], c[kN], result[kN], flags[kN].
      const uint32_t A = 0x50000, B = A + 4 * kN, C = B + 4 * kN, Rs = C + 4 * kN, Fl = Rs + 4 * kN;
      Asm a;
      a.li(s0, A);
      a.li(s1, B);
      a.li(s2, C);
      a.li(s3, Rs);
      a.li(s4, Fl);
      a.li(s5, kN);
      a.label("loop");
      a.flw(1, 0, s0);
      a.flw(2, 0, s1);
      a.flw(3, 0, s2);
      a.csrw(kFflags, zero);
      emit(a, op, rm);
      a.csrr(t0, kFflags);
      a.fsw(4, 0, s3);
      a.sw(t0, 0, s4);
      for (Reg r : {s0, s1, s2, s3, s4}) a.addi(r, r, 4);
      a.addi(s5, s5, -1);
      a.bne(s5, zero, "loop");
      a.halt(zero);
      testelf::Image img;
      img.data_addr = A;
      img.data.resize(4 * 3 * kN);
      std::memcpy(img.data.data(), in.data(), img.data.size());
      img.bss_bytes = 8 * kN;
      Harness h(a, test_params(), img);
      h.run_ok();
      for (uint32_t i = 0; i < kN; ++i) {
        const uint32_t x = in[i], y = in[kN + i], z = in[2 * kN + i];
        uint32_t flags = 0;
        const uint32_t want = reference(op, x, y, z, flags);
        ASSERT_EQ(h.mem32(Rs + 4 * i), want)
            << "op " << int(op) << " rm " << rm << std::hex << " a=" << x << " b=" << y << " c=" << z;
        ASSERT_EQ(h.mem32(Fl + 4 * i), flags)
            << "op " << int(op) << " rm " << rm << std::hex << " a=" << x << " b=" << y << " c=" << z;
      }
    }
  }
}

// The loop's conversions (native for integer -> f32 in RNE and for in-range f32 ->
// integer in RTZ, exact otherwise) against fpu::cvt_*: every static mode and dyn under
// frm RNE and RTZ, operands around every edge of the native ranges.
enum class CvtOp { w_s, wu_s, s_w, s_wu };

uint32_t cvt_reference(CvtOp op, uint32_t a, uint32_t rm, uint32_t& flags) {
  switch (op) {
    case CvtOp::w_s: return static_cast<uint32_t>(fpu::cvt_w_s(a, rm, flags));
    case CvtOp::wu_s: return fpu::cvt_wu_s(a, rm, flags);
    case CvtOp::s_w: return fpu::cvt_s_w(static_cast<int32_t>(a), rm, flags);
    case CvtOp::s_wu: return fpu::cvt_s_wu(a, rm, flags);
  }
  return 0;
}

uint32_t conversion_operand(CvtOp op, std::mt19937& rng) {
  if (op == CvtOp::s_w || op == CvtOp::s_wu) {
    static const uint32_t ints[] = {0, 1, 0xffffffffu, 0x80000000u, 0x7fffffffu, 0x00ffffffu, 0x01000001u,
                                    0xff000001u, 0xfffffff9u, 0x80000001u};
    switch (rng() % 3) {
      case 0: return ints[rng() % std::size(ints)];
      case 1: return rng() >> (rng() % 32);  // every magnitude
      default: return rng();
    }
  }
  // f32 around the native path's edges: |x| near 2^31 and 2^32, (-1, 0], subnormals.
  static const uint32_t floats[] = {0x4f000000u, 0x4effffffu, 0xcf000000u, 0xceffffffu, 0xcf000001u, 0x4f800000u,
                                    0x4f7fffffu, 0xbf7fffffu, 0xbf800000u, 0x80000000u, 0x00000001u, 0x80000001u,
                                    0x3f000000u, 0xbf000000u, 0x3fc00000u, 0xbfc00000u, 0x7fc00000u, 0xff800000u};
  switch (rng() % 4) {
    case 0: return floats[rng() % std::size(floats)];
    case 1: return (rng() & 0x807fffffu) | ((150 + rng() % 12) << 23);  // 2^23 .. 2^34
    case 2: return random_operand(rng);
    default: return (rng() & 0x807fffffu) | ((120 + rng() % 40) << 23);
  }
}

void emit(Asm& a, CvtOp op, uint32_t rm) {
  switch (op) {
    case CvtOp::w_s: a.fcvt_w_s(t1, 1, rm); a.sw(t1, 0, s3); break;
    case CvtOp::wu_s: a.fcvt_wu_s(t1, 1, rm); a.sw(t1, 0, s3); break;
    case CvtOp::s_w: a.fcvt_s_w(4, t1, rm); a.fsw(4, 0, s3); break;
    case CvtOp::s_wu: a.fcvt_s_wu(4, t1, rm); a.fsw(4, 0, s3); break;
  }
}

TEST(IssFp, ConversionsMatchExactReference) {
  constexpr uint32_t kN = 1200;
  std::mt19937 rng(77);
  struct Mode {
    uint32_t rm, frm;  // the instruction's rm; frm when it is dyn
  };
  for (CvtOp op : {CvtOp::w_s, CvtOp::wu_s, CvtOp::s_w, CvtOp::s_wu}) {
    for (Mode m : {Mode{RNE, 0}, Mode{RTZ, 0}, Mode{RDN, 0}, Mode{RUP, 0}, Mode{RMM, 0}, Mode{DYN, RNE},
                   Mode{DYN, RTZ}, Mode{DYN, RUP}}) {
      std::vector<uint32_t> in(kN);
      for (auto& v : in) v = conversion_operand(op, rng);
      const uint32_t A = 0x50000, Rs = A + 4 * kN, Fl = Rs + 4 * kN;
      Asm a;
      a.li(s0, A);
      a.li(s3, Rs);
      a.li(s4, Fl);
      a.li(s5, kN);
      a.li(t2, m.frm);
      a.csrw(kFrm, t2);
      a.label("loop");
      if (op == CvtOp::s_w || op == CvtOp::s_wu) a.lw(t1, 0, s0);
      else a.flw(1, 0, s0);
      a.csrw(kFflags, zero);
      emit(a, op, m.rm);
      a.csrr(t0, kFflags);
      a.sw(t0, 0, s4);
      for (Reg r : {s0, s3, s4}) a.addi(r, r, 4);
      a.addi(s5, s5, -1);
      a.bne(s5, zero, "loop");
      a.halt(zero);
      testelf::Image img;
      img.data_addr = A;
      img.data.resize(4 * kN);
      std::memcpy(img.data.data(), in.data(), img.data.size());
      img.bss_bytes = 8 * kN;
      Harness h(a, test_params(), img);
      h.run_ok();
      const uint32_t rm = m.rm == DYN ? m.frm : m.rm;
      for (uint32_t i = 0; i < kN; ++i) {
        uint32_t flags = 0;
        const uint32_t want = cvt_reference(op, in[i], rm, flags);
        ASSERT_EQ(h.mem32(Rs + 4 * i), want) << "op " << int(op) << " rm " << m.rm << " frm " << m.frm << std::hex
                                             << " operand " << in[i];
        ASSERT_EQ(h.mem32(Fl + 4 * i), flags) << "op " << int(op) << " rm " << m.rm << " frm " << m.frm
                                              << std::hex << " operand " << in[i];
      }
    }
  }
}

TEST(IssFp, FcsrAccumulatesAcrossQuanta) {
  // Flags raised in one quantum survive into the next; a csrw fflags clears them.
  FpProgram p({fbits(1.0f), fbits(3.0f)});
  Harness h = p.run([](Asm& a) {
    a.fdiv(10, 0, 1);             // NX
    a.li(t0, 2000);
    a.label("spin");              // > one quantum of integer work
    a.addi(t0, t0, -1);
    a.bne(t0, zero, "spin");
    a.csrr(a0, kFcsr);
    a.csrw(kFflags, zero);
    a.csrr(a1, kFcsr);
    a.li(t1, 0xff);
    a.csrw(kFcsr, t1);            // frm = 7, fflags = 0x1f
    a.csrr(a2, kFrm);
    a.csrr(a3, kFflags);
    a.csrw(kFcsr, zero);
  });
  ASSERT_EQ(h.stop.reason, StopReason::Halted) << h.fault_message();
  EXPECT_EQ(h.x(a0), uint32_t{fpu::NX});
  EXPECT_EQ(h.x(a1), 0u);
  EXPECT_EQ(h.x(a2), 7u);
  EXPECT_EQ(h.x(a3), 0x1fu);
}

}  // namespace

namespace {

// Native-path flags belong to the thread that raised them, even when threads interleave
// instruction by instruction.
TEST(IssFp, FlagsArePerThread) {
  Asm a;
  a.li(s0, kData);
  a.la(t0, "inexact");
  a.run(zero, t0, zero);
  a.la(t0, "exact");
  a.run(zero, t0, zero);
  a.join();
  a.csrr(a0, kFflags);
  a.halt(zero);
  a.label("inexact");   // worker 1: 1/3 many times
  a.li(t1, 0x3f800000u);
  a.fmv_w_x(1, t1);
  a.li(t1, 0x40400000u);
  a.fmv_w_x(2, t1);
  a.li(t2, 50);
  a.label("l1");
  a.fdiv(3, 1, 2);
  a.addi(t2, t2, -1);
  a.bne(t2, zero, "l1");
  a.csrr(a1, kFflags);
  a.wexit(a1);
  a.label("exact");     // worker 2: 1+1 many times
  a.li(t1, 0x3f800000u);
  a.fmv_w_x(1, t1);
  a.li(t2, 50);
  a.label("l2");
  a.fadd(3, 1, 1);
  a.addi(t2, t2, -1);
  a.bne(t2, zero, "l2");
  a.csrr(a1, kFflags);
  a.wexit(a1);
  for (uint32_t q : {1u, 5u, 1024u}) {
    Harness h(a, test_params(q));
    h.run_ok();
    EXPECT_EQ(h.core.thread_stats(1).last_status, int(fpu::NX)) << q;
    EXPECT_EQ(h.core.thread_stats(2).last_status, 0) << q;
    EXPECT_EQ(h.x(a0), 0u) << q;
  }
}

}  // namespace
