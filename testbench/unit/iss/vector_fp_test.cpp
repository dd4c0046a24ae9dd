// The paired-f32 / quad-f16 arithmetic and the f16/f32 vector conversions (docs/xipu.md
// "Vector arithmetic"), one instruction at a time: lane layout, rounding (always to
// nearest even, frm ignored), fused mac / axpy, flags ORed over the lanes, canonical NaNs,
// subnormals, overflow, cancellation, operands overlapping the destination. The
// randomized check against independent references is vector_fp_random_test.cpp.
#include <array>
#include <functional>

#include "iss/fpu.h"
#include "iss_harness.h"

namespace {

using namespace isstest;
using namespace rvasm;
namespace fpu = ipusim::iss::fpu;

constexpr uint32_t kFflags = 0x001, kFrm = 0x002;
constexpr uint32_t kNaN32 = 0x7fc00000u, kSNaN32 = 0x7f800001u, kInf32 = 0x7f800000u, kMax32 = 0x7f7fffffu;
constexpr uint16_t kNaN16 = 0x7e00, kOne16 = 0x3c00, kInf16 = 0x7c00, kMax16 = 0x7bff;

uint32_t pack(uint16_t lo, uint16_t hi) { return uint32_t{hi} << 16 | lo; }

// Loads f0..f31 from `f`, runs `body`, halts; the caller checks registers and fcsr.
Harness run_vec(const std::array<uint32_t, 32>& f, const std::function<void(Asm&)>& body,
                TraceSink* trace = nullptr) {
  Asm a;
  a.li(s0, kData);
  for (uint32_t i = 0; i < 32; ++i) a.flw(i, static_cast<int32_t>(4 * i), s0);
  body(a);
  a.halt(zero);
  testelf::Image img;
  img.data_addr = kData;
  img.data.resize(4 * 32);
  std::memcpy(img.data.data(), f.data(), 4 * 32);
  Harness h(a, test_params(), img);
  h.core.set_trace(trace);
  h.run();
  EXPECT_EQ(h.stop.reason, StopReason::Halted) << h.fault_message();
  return h;
}

TEST(IssVectorFp, F32v2ArithmeticLanes) {
  std::array<uint32_t, 32> f{};
  f[2] = fbits(1.5f), f[3] = fbits(-4.0f);    // fs1
  f[4] = fbits(2.25f), f[5] = fbits(0.5f);    // fs2
  f[6] = fbits(10.0f), f[7] = fbits(-1.0f);   // mac accumulators
  f[8] = f[6], f[9] = f[7];                   // axpy accumulators
  f[10] = fbits(3.0f);                        // axpy scalar
  Harness h = run_vec(f, [](Asm& a) {
    a.word(ipu_encode_f32v2_add(12, 2, 4));
    a.word(ipu_encode_f32v2_sub(14, 2, 4));
    a.word(ipu_encode_f32v2_mul(16, 2, 4));
    a.word(ipu_encode_f32v2_mac(6, 2, 4));
    a.word(ipu_encode_f32v2_axpy(8, 2, 10));
  });
  EXPECT_EQ(h.f(12), fbits(3.75f));
  EXPECT_EQ(h.f(13), fbits(-3.5f));
  EXPECT_EQ(h.f(14), fbits(-0.75f));
  EXPECT_EQ(h.f(15), fbits(-4.5f));
  EXPECT_EQ(h.f(16), fbits(3.375f));
  EXPECT_EQ(h.f(17), fbits(-2.0f));
  EXPECT_EQ(h.f(6), fbits(13.375f));  // 1.5*2.25 + 10
  EXPECT_EQ(h.f(7), fbits(-3.0f));    // -4*0.5 - 1
  EXPECT_EQ(h.f(8), fbits(14.5f));    // 3*1.5 + 10
  EXPECT_EQ(h.f(9), fbits(-13.0f));   // 3*-4 - 1
  EXPECT_EQ(h.f(10), fbits(3.0f));
  EXPECT_EQ(h.fcsr(), 0u);  // all exact
}

TEST(IssVectorFp, F32v2MacIsFusedAndRoundsToNearestEvenWhateverFrm) {
  std::array<uint32_t, 32> f{};
  // a * a = 1 + 2^-11 + 2^-24 exactly; rounded first (a tie, to even) it is 1 + 2^-11, and
  // subtracting 1 + 2^-11 would give 0. Fused: 2^-24.
  const float a = 1.0f + 0x1p-12f;
  f[2] = fbits(a), f[3] = fbits(1.0f);
  f[4] = fbits(a), f[5] = fbits(0x1p-30f);
  f[6] = fbits(-(1.0f + 0x1p-11f)), f[7] = fbits(1.0f);
  f[8] = fbits(1.0f), f[9] = fbits(-1.0f);
  f[10] = fbits(0x1p-24f), f[11] = fbits(-0x1p-24f);  // 1 +- 2^-24: exact ties
  Harness h = run_vec(f, [](Asm& a) {
    a.csrrwi(zero, kFrm, fpu::RUP);           // ignored by the vector ops
    a.word(ipu_encode_f32v2_mac(6, 2, 4));    // lane 1: 1 * 2^-30 + 1, inexact
    a.word(ipu_encode_f32v2_add(12, 8, 10));  // ties to even: 1 and -1 (RUP: 1 + 2^-23)
  });
  EXPECT_EQ(h.f(6), fbits(0x1p-24f));
  EXPECT_EQ(h.f(7), fbits(1.0f));  // RUP would give 1 + 2^-23
  EXPECT_EQ(h.f(12), fbits(1.0f));
  EXPECT_EQ(h.f(13), fbits(-1.0f));
  EXPECT_EQ(h.fcsr() & 0x1f, fpu::NX);
  EXPECT_EQ(h.fcsr() >> 5, fpu::RUP);  // frm kept
}

TEST(IssVectorFp, F32v2FlagsOrOverLanesAndNaNsAreCanonical) {
  std::array<uint32_t, 32> f{};
  f[2] = kMax32, f[3] = kSNaN32;
  f[4] = kMax32, f[5] = fbits(1.0f);
  f[6] = 0x7fc12345u, f[7] = kInf32;  // quiet NaN with payload; inf
  f[8] = fbits(1.0f), f[9] = 0xff800000u;
  Harness h = run_vec(f, [](Asm& a) { a.word(ipu_encode_f32v2_add(12, 2, 4)); });
  EXPECT_EQ(h.f(12), kInf32);
  EXPECT_EQ(h.f(13), kNaN32);
  EXPECT_EQ(h.fcsr(), fpu::OF | fpu::NX | fpu::NV);

  Harness q = run_vec(f, [](Asm& a) { a.word(ipu_encode_f32v2_add(12, 6, 8)); });
  EXPECT_EQ(q.f(12), kNaN32);  // a quiet NaN operand: canonical NaN, no flag
  EXPECT_EQ(q.f(13), kNaN32);  // inf + -inf: invalid
  EXPECT_EQ(q.fcsr(), fpu::NV);
}

TEST(IssVectorFp, F32v2SubnormalsAreKeptAndCancellationGivesPlusZero) {
  std::array<uint32_t, 32> f{};
  f[2] = 0x00000001u, f[3] = fbits(1.0f);                 // the least subnormal; 1
  f[4] = 0x00000003u, f[5] = fbits(1.0f);
  f[6] = fbits(0x1.8p-126f), f[7] = 0x80000000u;          // for mul: 1.5*2^-126 * 0.5; -0
  f[8] = fbits(0.5f), f[9] = 0x80000000u;
  Harness h = run_vec(f, [](Asm& a) {
    a.word(ipu_encode_f32v2_add(12, 2, 4));  // 4 * 2^-149 exactly; 2
    a.word(ipu_encode_f32v2_sub(14, 2, 4));  // -2 * 2^-149; 1 - 1 = +0
    a.word(ipu_encode_f32v2_mul(16, 6, 8));  // 0.75 * 2^-126: subnormal, exact; -0 * -0 = +0
  });
  EXPECT_EQ(h.f(12), 0x00000004u);
  EXPECT_EQ(h.f(13), fbits(2.0f));
  EXPECT_EQ(h.f(14), 0x80000002u);
  EXPECT_EQ(h.f(15), 0x00000000u);
  EXPECT_EQ(h.f(16), 0x00600000u);
  EXPECT_EQ(h.f(17), 0x00000000u);
  EXPECT_EQ(h.fcsr(), 0u);  // exact subnormal results raise nothing

  std::array<uint32_t, 32> g{};
  g[2] = 0x00000003u, g[3] = fbits(0x1p-100f);
  g[4] = fbits(0.5f), g[5] = fbits(0x1p-100f);
  Harness u = run_vec(g, [](Asm& a) { a.word(ipu_encode_f32v2_mul(12, 2, 4)); });
  EXPECT_EQ(u.f(12), 0x00000002u);  // 1.5 * 2^-149 ties to even: 2 * 2^-149
  EXPECT_EQ(u.f(13), 0x00000000u);  // 2^-200: underflows to +0
  EXPECT_EQ(u.fcsr(), fpu::UF | fpu::NX);
}

TEST(IssVectorFp, F16v4LanesAreTheHalvesInMemoryOrder) {
  std::array<uint32_t, 32> f{};
  // lanes 1, 2, 3, 4 plus lanes 0.5, 0.25, -1, 2
  f[2] = pack(0x3c00, 0x4000), f[3] = pack(0x4200, 0x4400);
  f[4] = pack(0x3800, 0x3400), f[5] = pack(0xbc00, 0x4000);
  f[6] = pack(0x3c00, 0x3c00), f[7] = pack(0x3c00, 0x3c00);  // mac accumulators: 1
  f[8] = f[6], f[9] = f[7];                                   // axpy accumulators
  f[10] = pack(0x4000, 0x7c01);  // axpy's scalar: the low half (2); the high half is ignored
  Harness h = run_vec(f, [](Asm& a) {
    a.word(ipu_encode_f16v4_add(12, 2, 4));
    a.word(ipu_encode_f16v4_sub(14, 2, 4));
    a.word(ipu_encode_f16v4_mul(16, 2, 4));
    a.word(ipu_encode_f16v4_mac(6, 2, 4));
    a.word(ipu_encode_f16v4_axpy(8, 2, 10));
  });
  EXPECT_EQ(h.f(12), pack(0x3e00, 0x4080));  // 1.5, 2.25
  EXPECT_EQ(h.f(13), pack(0x4000, 0x4600));  // 2, 6
  EXPECT_EQ(h.f(14), pack(0x3800, 0x3f00));  // 0.5, 1.75
  EXPECT_EQ(h.f(15), pack(0x4400, 0x4000));  // 4, 2
  EXPECT_EQ(h.f(16), pack(0x3800, 0x3800));  // 0.5, 0.5
  EXPECT_EQ(h.f(17), pack(0xc200, 0x4800));  // -3, 8
  EXPECT_EQ(h.f(6), pack(0x3e00, 0x3e00));   // 1.5, 1.5
  EXPECT_EQ(h.f(7), pack(0xc000, 0x4880));   // -2, 9
  EXPECT_EQ(h.f(8), pack(0x4200, 0x4500));   // 3, 5
  EXPECT_EQ(h.f(9), pack(0x4700, 0x4880));   // 7, 9
  EXPECT_EQ(h.fcsr(), 0u);
}

TEST(IssVectorFp, F16v4MacIsFused) {
  std::array<uint32_t, 32> f{};
  // a = 1 + 2^-10, b = 1 - 2^-11: a*b - 1 = 2^-11 - 2^-21 exactly (representable);
  // unfused, a*b rounds to 1 and the result would be 0.
  f[2] = pack(0x3c01, 0x3c01), f[3] = pack(0x3c01, 0x3c01);
  f[4] = pack(0x3bff, 0x3bff), f[5] = pack(0x3bff, 0x3bff);
  f[6] = pack(0xbc00, 0xbc00), f[7] = pack(0xbc00, 0xbc00);
  Harness h = run_vec(f, [](Asm& a) { a.word(ipu_encode_f16v4_mac(6, 2, 4)); });
  EXPECT_EQ(h.f(6), pack(0x0ffe, 0x0ffe));
  EXPECT_EQ(h.f(7), pack(0x0ffe, 0x0ffe));
  EXPECT_EQ(h.fcsr(), 0u);
}

TEST(IssVectorFp, F16v4OverflowUnderflowNaNsAndZeros) {
  std::array<uint32_t, 32> f{};
  f[2] = pack(kMax16, 0x0001), f[3] = pack(0x7c01, kInf16);  // max; least subnormal; sNaN; inf
  f[4] = pack(kMax16, 0x3800), f[5] = pack(kOne16, 0xfc00);  // max; 0.5; 1; -inf
  Harness h = run_vec(f, [](Asm& a) {
    a.word(ipu_encode_f16v4_add(12, 2, 4));
    a.csrrw(t0, kFflags, zero);
    a.word(ipu_encode_f16v4_mul(14, 2, 4));
  });
  EXPECT_EQ(h.f(12), pack(kInf16, 0x3800));   // overflow; 0.5 + 2^-24 rounds to 0.5
  EXPECT_EQ(h.f(13), pack(kNaN16, kNaN16));  // sNaN; inf - inf
  EXPECT_EQ(h.x(t0), fpu::OF | fpu::NX | fpu::NV);
  EXPECT_EQ(h.f(14), pack(kInf16, 0x0000));   // overflow; 2^-25 ties to even: +0, underflow
  EXPECT_EQ(h.f(15), pack(kNaN16, 0xfc00));  // sNaN; inf * -inf
  EXPECT_EQ(h.fcsr(), fpu::OF | fpu::UF | fpu::NX | fpu::NV);

  std::array<uint32_t, 32> g{};
  g[2] = pack(0x3c00, 0x8000), g[3] = pack(0x7e01, 0x0003);  // 1; -0; qNaN; 3 * 2^-24
  g[4] = pack(0x3c00, 0x8000), g[5] = pack(kOne16, 0x0001);
  Harness z = run_vec(g, [](Asm& a) { a.word(ipu_encode_f16v4_sub(12, 2, 4)); });
  EXPECT_EQ(z.f(12), pack(0x0000, 0x0000));    // 1 - 1 = +0; -0 - -0 = +0
  EXPECT_EQ(z.f(13), pack(kNaN16, 0x0002));    // quiet NaN: canonical, no flag; subnormal exact
  EXPECT_EQ(z.fcsr(), 0u);
}

TEST(IssVectorFp, ConversionsRoundAndFlag) {
  std::array<uint32_t, 32> f{};
  f[2] = fbits(1.0f), f[3] = fbits(65520.0f);         // 1; overflows (the tie above 65504)
  f[4] = fbits(0x1p-25f), f[5] = fbits(0x1.8p-24f);   // tie to 0 (underflow); tie to 2^-23
  f[6] = kSNaN32, f[7] = fbits(-65504.0f);
  Harness h = run_vec(f, [](Asm& a) {
    a.word(ipu_encode_f32v2_tof16(10, 2));
    a.csrrw(t0, kFflags, zero);
    a.word(ipu_encode_f32v4_tof16(12, 4));  // the quad f4..f7 into the pair f12, f13
    a.csrrw(t1, kFflags, zero);
  });
  EXPECT_EQ(h.f(10), pack(0x3c00, kInf16));
  EXPECT_EQ(h.x(t0), fpu::OF | fpu::NX);
  EXPECT_EQ(h.f(12), pack(0x0000, 0x0002));
  EXPECT_EQ(h.f(13), pack(kNaN16, 0xfbff));
  EXPECT_EQ(h.x(t1), fpu::UF | fpu::NX | fpu::NV);

  std::array<uint32_t, 32> g{};
  g[2] = pack(0x0001, 0x7d00);  // 2^-24 (subnormal: exact in f32); a sNaN
  g[4] = pack(0xfc00, 0x7e01);  // -inf; a quiet NaN with payload
  g[5] = pack(0x83ff, 0x3555);  // the largest negative subnormal; 0.333...
  Harness c = run_vec(g, [](Asm& a) {
    a.word(ipu_encode_f16v2_tof32(8, 2));
    a.csrrw(t0, kFflags, zero);
    a.word(ipu_encode_f16v4_tof32(12, 4));
  });
  EXPECT_EQ(c.f(8), fbits(0x1p-24f));
  EXPECT_EQ(c.f(9), kNaN32);
  EXPECT_EQ(c.x(t0), fpu::NV);
  EXPECT_EQ(c.f(12), 0xff800000u);
  EXPECT_EQ(c.f(13), kNaN32);
  EXPECT_EQ(c.f(14), fbits(-0x3ffp-24f));
  EXPECT_EQ(c.f(15), fbits(0x1.554p-2f));
  EXPECT_EQ(c.fcsr(), 0u);
}

TEST(IssVectorFp, DestinationOverlappingASourceReadsFirst) {
  std::array<uint32_t, 32> f{};
  f[4] = fbits(1.0f), f[5] = fbits(2.0f), f[6] = fbits(3.0f), f[7] = fbits(4.0f);
  f[8] = pack(0x3c00, 0x4000), f[9] = pack(0x4200, 0x4400);  // 1, 2, 3, 4 as f16
  f[12] = fbits(1.0f), f[13] = fbits(2.0f);
  Harness h = run_vec(f, [](Asm& a) {
    a.word(ipu_encode_f32v4_tof16(4, 4));    // quad f4..f7 -> pair f4, f5
    a.word(ipu_encode_f16v4_tof32(16, 8));
    a.word(ipu_encode_f16v4_tof32(8, 8));    // pair f8, f9 -> quad f8..f11
    a.word(ipu_encode_f32v2_mac(12, 12, 12));  // x*x + x
  });
  EXPECT_EQ(h.f(4), pack(0x3c00, 0x4000));
  EXPECT_EQ(h.f(5), pack(0x4200, 0x4400));
  EXPECT_EQ(h.f(6), fbits(3.0f));  // untouched
  for (unsigned i = 0; i < 4; ++i) {
    EXPECT_EQ(h.f(16 + i), fbits(1.0f + static_cast<float>(i)));
    EXPECT_EQ(h.f(8 + i), fbits(1.0f + static_cast<float>(i)));
  }
  EXPECT_EQ(h.f(12), fbits(2.0f));
  EXPECT_EQ(h.f(13), fbits(6.0f));
  EXPECT_EQ(h.fcsr(), 0u);
}

TEST(IssVectorFp, FlagsAccumulateInFflags) {
  std::array<uint32_t, 32> f{};
  f[2] = fbits(1.0f), f[3] = fbits(1.0f);
  f[4] = fbits(0x1p-30f), f[5] = 0;
  Harness h = run_vec(f, [](Asm& a) {
    a.csrrwi(zero, kFflags, fpu::DZ);  // left over from earlier code: kept
    a.word(ipu_encode_f32v2_add(6, 2, 4));
  });
  EXPECT_EQ(h.f(6), fbits(1.0f));
  EXPECT_EQ(h.fcsr(), fpu::DZ | fpu::NX);
}

// A trace lists every f register a vector op wrote: one word, a pair or a quad.
TEST(IssVectorFp, TraceListsEveryDestinationRegister) {
  std::array<uint32_t, 32> f{};
  f[2] = fbits(1.0f), f[3] = fbits(2.0f), f[4] = fbits(3.0f), f[5] = fbits(4.0f);
  RecordingTrace trace;
  run_vec(f, [](Asm& a) {
    a.word(ipu_encode_f32v2_add(10, 2, 4));  // f10, f11 = 4, 6
    a.word(ipu_encode_f32v2_tof16(12, 2));   // f12 = halves 1, 2
    a.word(ipu_encode_f16v4_tof32(16, 12));  // f16..f19 = 1, 2, 0, 0 (f13 is 0)
  }, &trace);
  const auto at = [&](uint32_t word) -> const RetiredInsn& {
    for (const RetiredInsn& r : trace.log)
      if (r.insn == word) return r;
    ADD_FAILURE() << "no record of " << std::hex << word;
    return trace.log.front();
  };
  const RetiredInsn& add = at(ipu_encode_f32v2_add(10, 2, 4));
  EXPECT_EQ(add.dest, RetiredInsn::Dest::F);
  EXPECT_EQ(add.dest_reg, 10u);
  EXPECT_EQ(add.dest_value, fbits(4.0f));
  ASSERT_EQ(add.more_count, 1u);
  EXPECT_EQ(add.more[0].kind, RetiredInsn::Dest::F);
  EXPECT_EQ(add.more[0].reg, 11u);
  EXPECT_EQ(add.more[0].value, fbits(6.0f));

  const RetiredInsn& narrow = at(ipu_encode_f32v2_tof16(12, 2));
  EXPECT_EQ(narrow.dest_reg, 12u);
  EXPECT_EQ(narrow.dest_value, pack(0x3c00, 0x4000));
  EXPECT_EQ(narrow.more_count, 0u);

  const RetiredInsn& widen = at(ipu_encode_f16v4_tof32(16, 12));
  EXPECT_EQ(widen.dest_reg, 16u);
  EXPECT_EQ(widen.dest_value, fbits(1.0f));
  ASSERT_EQ(widen.more_count, 3u);
  EXPECT_EQ(widen.more[0].reg, 17u);
  EXPECT_EQ(widen.more[0].value, fbits(2.0f));
  EXPECT_EQ(widen.more[2].reg, 19u);
  EXPECT_EQ(widen.more[2].value, 0u);
}

}  // namespace
