// Directed corner cases of the exact FPU (iss/fpu.h), worked out by hand from the RISC-V
// F spec (v2.2) and IEEE 754: ties in every rounding mode, overflow per mode, the sign of
// exact zeros, subnormal results and tininess after rounding, NaN rules, invalid and
// divide-by-zero cases, fmin/fmax/compare/fclass, and the saturating conversions.
#include <gtest/gtest.h>

#include <array>
#include <cfenv>

#include "fpu_test_util.h"

namespace ipusim::iss::fpu::test {
namespace {

using Modes = std::array<uint32_t, 5>;  // indexed RNE, RTZ, RDN, RUP, RMM

// Checks one operation in all five rounding modes against per-mode results and flags.
void expect_modes(Op op, uint32_t a, uint32_t b, uint32_t c, const Modes& want,
                  const Modes& want_flags) {
  for (uint32_t rm : kModes) {
    uint32_t flags = 0;
    const uint32_t got = apply(op, a, b, c, rm, flags);
    EXPECT_EQ(hex(got), hex(want[rm])) << mode_name(rm);
    EXPECT_EQ(flag_names(flags), flag_names(want_flags[rm])) << mode_name(rm);
  }
}

// The same result and flags in every mode.
void expect_all_modes(Op op, uint32_t a, uint32_t b, uint32_t c, uint32_t want,
                      uint32_t want_flags) {
  expect_modes(op, a, b, c, {want, want, want, want, want},
               {want_flags, want_flags, want_flags, want_flags, want_flags});
}

#define EXPECT_MODES(op, a, b, c, ...)                                         \
  do {                                                                         \
    SCOPED_TRACE(::testing::Message() << #op << "(" << hex(a) << ", " << hex(b) \
                                      << ", " << hex(c) << ")");               \
    expect_modes(op, a, b, c, __VA_ARGS__);                                    \
  } while (0)

#define EXPECT_ALL_MODES(op, a, b, c, want, want_flags)                        \
  do {                                                                         \
    SCOPED_TRACE(::testing::Message() << #op << "(" << hex(a) << ", " << hex(b) \
                                      << ", " << hex(c) << ")");               \
    expect_all_modes(op, a, b, c, want, want_flags);                           \
  } while (0)

constexpr uint32_t kTwoM24 = 0x3380'0000u;      // 2^-24: half an ulp of 1.0
constexpr uint32_t kOnePlusUlp = 0x3f80'0001u;  // 1 + 2^-23
constexpr uint32_t kOneMinusHalfUlp = 0x3f7f'ffffu;  // 1 - 2^-24
constexpr uint32_t kHalf = 0x3f00'0000u;
constexpr uint32_t kNX = NX, kUFNX = UF | NX, kOFNX = OF | NX;

TEST(FpuDirected, AddTiesInEveryMode) {
  // 1 + 2^-24: a tie between 1.0 (even) and 1 + 2^-23.
  EXPECT_MODES(Op::Add, kOne, kTwoM24, 0, {kOne, kOne, kOne, kOnePlusUlp, kOnePlusUlp},
               {kNX, kNX, kNX, kNX, kNX});
  // (1 + 2^-23) + 2^-24: a tie between an odd and an even neighbour.
  EXPECT_MODES(Op::Add, kOnePlusUlp, kTwoM24, 0,
               {0x3f80'0002u, kOnePlusUlp, kOnePlusUlp, 0x3f80'0002u, 0x3f80'0002u},
               {kNX, kNX, kNX, kNX, kNX});
  // Negative tie: RMM goes away from zero, RDN down, RUP towards zero.
  EXPECT_MODES(Op::Sub, neg(kOne), kTwoM24, 0,
               {neg(kOne), neg(kOne), neg(kOnePlusUlp), neg(kOne), neg(kOnePlusUlp)},
               {kNX, kNX, kNX, kNX, kNX});
  // Below and above the tie every nearest mode agrees.
  EXPECT_MODES(Op::Add, kOne, 0x3370'0000u /* 0.9375 * 2^-24 */, 0,
               {kOne, kOne, kOne, kOnePlusUlp, kOne}, {kNX, kNX, kNX, kNX, kNX});
}

TEST(FpuDirected, OverflowResultDependsOnMode) {
  const Modes of = {kOFNX, kOFNX, kOFNX, kOFNX, kOFNX};
  EXPECT_MODES(Op::Add, kMaxFinite, kMaxFinite, 0,
               {kPosInf, kMaxFinite, kMaxFinite, kPosInf, kPosInf}, of);
  EXPECT_MODES(Op::Add, neg(kMaxFinite), neg(kMaxFinite), 0,
               {kNegInf, neg(kMaxFinite), kNegInf, neg(kMaxFinite), kNegInf}, of);
  EXPECT_MODES(Op::Mul, kMaxFinite, kTwo, 0, {kPosInf, kMaxFinite, kMaxFinite, kPosInf, kPosInf},
               of);
  EXPECT_MODES(Op::Div, neg(kMaxFinite), kHalf, 0,
               {kNegInf, neg(kMaxFinite), kNegInf, neg(kMaxFinite), kNegInf}, of);
  // max + half its ulp (2^103) is a tie with 2^128: the nearest modes overflow, the
  // others round back to max without overflowing.
  EXPECT_MODES(Op::Add, kMaxFinite, 0x7300'0000u, 0,
               {kPosInf, kMaxFinite, kMaxFinite, kPosInf, kPosInf},
               {kOFNX, kNX, kNX, kOFNX, kOFNX});
  // max + a quarter ulp: only RUP overflows.
  EXPECT_MODES(Op::Add, kMaxFinite, 0x7280'0000u, 0,
               {kMaxFinite, kMaxFinite, kMaxFinite, kPosInf, kMaxFinite},
               {kNX, kNX, kNX, kOFNX, kNX});
  // Infinite operands are exact: no overflow.
  EXPECT_ALL_MODES(Op::Add, kPosInf, kMaxFinite, 0, kPosInf, 0);
}

TEST(FpuDirected, ExactZeroSign) {
  const Modes zero_unless_rdn = {kPosZero, kPosZero, kNegZero, kPosZero, kPosZero};
  const Modes none = {0, 0, 0, 0, 0};
  EXPECT_MODES(Op::Sub, kOne, kOne, 0, zero_unless_rdn, none);
  EXPECT_MODES(Op::Add, kOne, neg(kOne), 0, zero_unless_rdn, none);
  EXPECT_MODES(Op::Add, kMinSub, neg(kMinSub), 0, zero_unless_rdn, none);
  EXPECT_MODES(Op::Add, kPosZero, kNegZero, 0, zero_unless_rdn, none);
  EXPECT_MODES(Op::Sub, kPosZero, kPosZero, 0, zero_unless_rdn, none);
  EXPECT_ALL_MODES(Op::Add, kNegZero, kNegZero, 0, kNegZero, 0);
  EXPECT_ALL_MODES(Op::Sub, kNegZero, kPosZero, 0, kNegZero, 0);
  EXPECT_ALL_MODES(Op::Add, kPosZero, kPosZero, 0, kPosZero, 0);
  // x + 0 returns x exactly, a subnormal x included (no UF: the result is exact).
  EXPECT_ALL_MODES(Op::Add, kMaxSub, kNegZero, 0, kMaxSub, 0);
  EXPECT_ALL_MODES(Op::Mul, kNegZero, 0x40a0'0000u /* 5 */, 0, kNegZero, 0);
  EXPECT_ALL_MODES(Op::Div, kPosZero, neg(kTwo), 0, kNegZero, 0);
  // Fused: the exact sum decides, the product's sign counts.
  EXPECT_MODES(Op::Madd, kOne, kOne, neg(kOne), zero_unless_rdn, none);
  EXPECT_MODES(Op::Madd, kPosZero, kOne, kNegZero, zero_unless_rdn, none);
  EXPECT_ALL_MODES(Op::Madd, kNegZero, kOne, kNegZero, kNegZero, 0);
  EXPECT_ALL_MODES(Op::Nmadd, kPosZero, kOne, kPosZero, kNegZero, 0);  // -(0) - 0
  EXPECT_MODES(Op::Nmsub, kPosZero, kOne, kPosZero, zero_unless_rdn, none);  // -(0) + 0
  EXPECT_ALL_MODES(Op::Msub, kNegZero, kOne, kPosZero, kNegZero, 0);   // -0 - 0
}

TEST(FpuDirected, SubnormalResultsAndUnderflow) {
  // Exact subnormal results raise nothing.
  EXPECT_ALL_MODES(Op::Mul, kMinNormal, kHalf, 0, 0x0040'0000u, 0);
  EXPECT_ALL_MODES(Op::Sub, 0x0080'0001u, kMinNormal, 0, kMinSub, 0);
  // 2^-150: a tie between +0 (even) and the smallest subnormal.
  EXPECT_MODES(Op::Mul, kMinSub, kHalf, 0, {kPosZero, kPosZero, kPosZero, kMinSub, kMinSub},
               {kUFNX, kUFNX, kUFNX, kUFNX, kUFNX});
  EXPECT_MODES(Op::Mul, neg(kMinSub), kHalf, 0,
               {kNegZero, kNegZero, neg(kMinSub), kNegZero, neg(kMinSub)},
               {kUFNX, kUFNX, kUFNX, kUFNX, kUFNX});
  // 1.5 * 2^-149: a tie between 1 (odd) and 2 (even) subnormal units.
  EXPECT_MODES(Op::Mul, 0x0000'0003u, kHalf, 0, {2u, 1u, 1u, 2u, 2u},
               {kUFNX, kUFNX, kUFNX, kUFNX, kUFNX});
  // Far below the subnormals.
  EXPECT_MODES(Op::Mul, kMinSub, kMinSub, 0, {kPosZero, kPosZero, kPosZero, kMinSub, kPosZero},
               {kUFNX, kUFNX, kUFNX, kUFNX, kUFNX});
}

TEST(FpuDirected, TininessIsDetectedAfterRounding) {
  // (1 - 2^-24) * 2^-126 = 2^-126 - 2^-150: exact at 24 bits and below 2^-126, so tiny in
  // every mode; at subnormal precision it is a tie between max-subnormal (odd) and 2^-126.
  EXPECT_MODES(Op::Mul, kOneMinusHalfUlp, kMinNormal, 0,
               {kMinNormal, kMaxSub, kMaxSub, kMinNormal, kMinNormal},
               {kUFNX, kUFNX, kUFNX, kUFNX, kUFNX});
  // 2^-126 - 2^-160 (via fma: -2^-80 * 2^-80 + 2^-126): rounded to 24 bits with an
  // unbounded exponent it becomes 2^-126 in RNE/RUP/RMM (not tiny: NX only, no UF) and
  // 2^-126 - 2^-150 in RTZ/RDN (tiny and inexact: UF).
  constexpr uint32_t kTwoM80 = 0x1780'0000u;
  EXPECT_MODES(Op::Madd, neg(kTwoM80), kTwoM80, kMinNormal,
               {kMinNormal, kMaxSub, kMaxSub, kMinNormal, kMinNormal},
               {kNX, kUFNX, kUFNX, kNX, kNX});
  // 2^-126 - 2^-151 is a tie at 24 bits: RNE goes to the even 2^-126, RMM away (also
  // 2^-126), so neither is tiny.
  constexpr uint32_t kTwoM75 = 0x1a00'0000u, kTwoM76 = 0x1980'0000u;
  EXPECT_MODES(Op::Madd, neg(kTwoM75), kTwoM76, kMinNormal,
               {kMinNormal, kMaxSub, kMaxSub, kMinNormal, kMinNormal},
               {kNX, kUFNX, kUFNX, kNX, kNX});
  // Negative mirror: the directed modes swap.
  EXPECT_MODES(Op::Nmadd, neg(kTwoM75), kTwoM76, kMinNormal,  // -(-2^-151) - 2^-126
               {neg(kMinNormal), neg(kMaxSub), neg(kMinNormal), neg(kMaxSub), neg(kMinNormal)},
               {kNX, kUFNX, kNX, kUFNX, kNX});
  // The smallest normal minus a subnormal unit is an exact subnormal: no flags.
  EXPECT_ALL_MODES(Op::Sub, kMinNormal, kMinSub, 0, kMaxSub, 0);
}

TEST(FpuDirected, NanOperandsGiveTheCanonicalNan) {
  for (Op op : {Op::Add, Op::Sub, Op::Mul, Op::Div}) {
    SCOPED_TRACE(static_cast<int>(op));
    EXPECT_ALL_MODES(op, kQNan, kOne, 0, kCanonicalNan, 0);
    EXPECT_ALL_MODES(op, kOne, kNegQNanPayload, 0, kCanonicalNan, 0);
    EXPECT_ALL_MODES(op, kSNanPayload, kOne, 0, kCanonicalNan, NV);
    EXPECT_ALL_MODES(op, kNegQNanPayload, kSNan, 0, kCanonicalNan, NV);
    EXPECT_ALL_MODES(op, kPosInf, kQNan, 0, kCanonicalNan, 0);
  }
  EXPECT_ALL_MODES(Op::Sqrt, kNegQNanPayload, 0, 0, kCanonicalNan, 0);
  EXPECT_ALL_MODES(Op::Sqrt, kSNan, 0, 0, kCanonicalNan, NV);
  for (Op op : {Op::Madd, Op::Msub, Op::Nmsub, Op::Nmadd}) {
    SCOPED_TRACE(static_cast<int>(op));
    EXPECT_ALL_MODES(op, kOne, kTwo, kQNan, kCanonicalNan, 0);
    EXPECT_ALL_MODES(op, kQNan, kTwo, kOne, kCanonicalNan, 0);
    EXPECT_ALL_MODES(op, kOne, kTwo, kSNan, kCanonicalNan, NV);
    EXPECT_ALL_MODES(op, kOne, kSNanPayload, kQNan, kCanonicalNan, NV);
    EXPECT_ALL_MODES(op, kPosInf, kTwo, kNegQNanPayload, kCanonicalNan, 0);
  }
}

TEST(FpuDirected, InvalidOperations) {
  EXPECT_ALL_MODES(Op::Add, kPosInf, kNegInf, 0, kCanonicalNan, NV);
  EXPECT_ALL_MODES(Op::Sub, kNegInf, kNegInf, 0, kCanonicalNan, NV);
  EXPECT_ALL_MODES(Op::Add, kNegInf, kNegInf, 0, kNegInf, 0);
  EXPECT_ALL_MODES(Op::Sub, kPosInf, kNegInf, 0, kPosInf, 0);
  EXPECT_ALL_MODES(Op::Mul, kPosZero, kNegInf, 0, kCanonicalNan, NV);
  EXPECT_ALL_MODES(Op::Mul, kNegInf, kNegZero, 0, kCanonicalNan, NV);
  EXPECT_ALL_MODES(Op::Mul, kNegInf, neg(kTwo), 0, kPosInf, 0);
  EXPECT_ALL_MODES(Op::Div, kPosZero, kNegZero, 0, kCanonicalNan, NV);
  EXPECT_ALL_MODES(Op::Div, kPosInf, kNegInf, 0, kCanonicalNan, NV);
  EXPECT_ALL_MODES(Op::Sqrt, neg(kOne), 0, 0, kCanonicalNan, NV);
  EXPECT_ALL_MODES(Op::Sqrt, neg(kMinSub), 0, 0, kCanonicalNan, NV);
  EXPECT_ALL_MODES(Op::Sqrt, kNegInf, 0, 0, kCanonicalNan, NV);
  // 0 * inf in a fused op is invalid even when the addend is a quiet NaN.
  for (Op op : {Op::Madd, Op::Msub, Op::Nmsub, Op::Nmadd}) {
    SCOPED_TRACE(static_cast<int>(op));
    EXPECT_ALL_MODES(op, kPosZero, kPosInf, kQNan, kCanonicalNan, NV);
    EXPECT_ALL_MODES(op, kNegInf, kPosZero, kNegQNanPayload, kCanonicalNan, NV);
    EXPECT_ALL_MODES(op, kPosInf, kNegZero, kOne, kCanonicalNan, NV);
  }
  // inf - inf inside a fused op.
  EXPECT_ALL_MODES(Op::Madd, kPosInf, kOne, kNegInf, kCanonicalNan, NV);
  EXPECT_ALL_MODES(Op::Msub, kPosInf, kOne, kPosInf, kCanonicalNan, NV);
  EXPECT_ALL_MODES(Op::Nmsub, kPosInf, kOne, kPosInf, kCanonicalNan, NV);
  EXPECT_ALL_MODES(Op::Nmadd, kPosInf, kOne, kNegInf, kCanonicalNan, NV);
  EXPECT_ALL_MODES(Op::Madd, kPosInf, kOne, kPosInf, kPosInf, 0);
  EXPECT_ALL_MODES(Op::Madd, kOne, kOne, kNegInf, kNegInf, 0);
  EXPECT_ALL_MODES(Op::Nmadd, kNegInf, kTwo, kOne, kPosInf, 0);
}

TEST(FpuDirected, DivideByZero) {
  EXPECT_ALL_MODES(Op::Div, kOne, kPosZero, 0, kPosInf, DZ);
  EXPECT_ALL_MODES(Op::Div, kOne, kNegZero, 0, kNegInf, DZ);
  EXPECT_ALL_MODES(Op::Div, neg(kMinSub), kPosZero, 0, kNegInf, DZ);
  // An infinite dividend is exact: no DZ.
  EXPECT_ALL_MODES(Op::Div, kNegInf, kPosZero, 0, kNegInf, 0);
  EXPECT_ALL_MODES(Op::Div, kOne, kNegInf, 0, kNegZero, 0);
}

TEST(FpuDirected, DivisionRounding) {
  constexpr uint32_t kThree = 0x4040'0000u;
  EXPECT_MODES(Op::Div, kOne, kThree, 0,
               {0x3eaa'aaabu, 0x3eaa'aaaau, 0x3eaa'aaaau, 0x3eaa'aaabu, 0x3eaa'aaabu},
               {kNX, kNX, kNX, kNX, kNX});
  EXPECT_MODES(Op::Div, neg(kOne), kThree, 0,
               {0xbeaa'aaabu, 0xbeaa'aaaau, 0xbeaa'aaabu, 0xbeaa'aaaau, 0xbeaa'aaabu},
               {kNX, kNX, kNX, kNX, kNX});
  EXPECT_ALL_MODES(Op::Div, 0x40c0'0000u /* 6 */, kThree, 0, kTwo, 0);
  // Subnormal quotient: 2^-126 / 3.
  EXPECT_MODES(Op::Div, kMinNormal, kThree, 0,
               {0x002a'aaabu, 0x002a'aaaau, 0x002a'aaaau, 0x002a'aaabu, 0x002a'aaabu},
               {kUFNX, kUFNX, kUFNX, kUFNX, kUFNX});
  // Subnormal divided by subnormal is exact.
  EXPECT_ALL_MODES(Op::Div, 0x0000'0006u, 0x0000'0003u, 0, kTwo, 0);
}

TEST(FpuDirected, SquareRoot) {
  EXPECT_ALL_MODES(Op::Sqrt, kNegZero, 0, 0, kNegZero, 0);
  EXPECT_ALL_MODES(Op::Sqrt, kPosZero, 0, 0, kPosZero, 0);
  EXPECT_ALL_MODES(Op::Sqrt, kPosInf, 0, 0, kPosInf, 0);
  EXPECT_ALL_MODES(Op::Sqrt, 0x4080'0000u /* 4 */, 0, 0, kTwo, 0);
  EXPECT_ALL_MODES(Op::Sqrt, 0x0000'0002u /* 2^-148 */, 0, 0, 0x1a80'0000u /* 2^-74 */, 0);
  // sqrt(2) = 1.41421356...: 0x3fb504f3 is below it and nearer.
  EXPECT_MODES(Op::Sqrt, kTwo, 0, 0,
               {0x3fb5'04f3u, 0x3fb5'04f3u, 0x3fb5'04f3u, 0x3fb5'04f4u, 0x3fb5'04f3u},
               {kNX, kNX, kNX, kNX, kNX});
  // sqrt(2^-149) = sqrt(2) * 2^-75: a normal result from a subnormal operand.
  EXPECT_MODES(Op::Sqrt, kMinSub, 0, 0,
               {0x1a35'04f3u, 0x1a35'04f3u, 0x1a35'04f3u, 0x1a35'04f4u, 0x1a35'04f3u},
               {kNX, kNX, kNX, kNX, kNX});
  // sqrt(max) = 2^64 * (1 - 2^-25 - ...): just below the midpoint of 2^64 and its neighbour.
  EXPECT_MODES(Op::Sqrt, kMaxFinite, 0, 0,
               {0x5f7f'ffffu, 0x5f7f'ffffu, 0x5f7f'ffffu, 0x5f80'0000u, 0x5f7f'ffffu},
               {kNX, kNX, kNX, kNX, kNX});
}

TEST(FpuDirected, FusedMultiplyAddRoundsOnce) {
  // (1 + 2^-23)^2 - 1 = 2^-22 + 2^-46: a tie at 24 bits that a separately rounded
  // product (1 + 2^-22) would have lost.
  EXPECT_MODES(Op::Madd, kOnePlusUlp, kOnePlusUlp, neg(kOne),
               {0x3480'0000u, 0x3480'0000u, 0x3480'0000u, 0x3480'0001u, 0x3480'0001u},
               {kNX, kNX, kNX, kNX, kNX});
  // The four sign variants: a*b+c, a*b-c, -a*b+c, -a*b-c with a=2, b=3, c=1.
  constexpr uint32_t kThree = 0x4040'0000u;
  EXPECT_ALL_MODES(Op::Madd, kTwo, kThree, kOne, 0x40e0'0000u /* 7 */, 0);
  EXPECT_ALL_MODES(Op::Msub, kTwo, kThree, kOne, 0x40a0'0000u /* 5 */, 0);
  EXPECT_ALL_MODES(Op::Nmsub, kTwo, kThree, kOne, 0xc0a0'0000u /* -5 */, 0);
  EXPECT_ALL_MODES(Op::Nmadd, kTwo, kThree, kOne, 0xc0e0'0000u /* -7 */, 0);
  // An addend far below the product only makes the result inexact (the sticky path).
  EXPECT_MODES(Op::Madd, kOne, kOne, kMinSub, {kOne, kOne, kOne, kOnePlusUlp, kOne},
               {kNX, kNX, kNX, kNX, kNX});
  EXPECT_MODES(Op::Madd, kOne, kOne, neg(kMinSub),
               {kOne, kOneMinusHalfUlp, kOneMinusHalfUlp, kOne, kOne}, {kNX, kNX, kNX, kNX, kNX});
  // A product far below the addend, likewise.
  EXPECT_MODES(Op::Madd, kMinSub, kMinSub, neg(kOne),
               {neg(kOne), neg(kOneMinusHalfUlp), neg(kOne), neg(kOneMinusHalfUlp), neg(kOne)},
               {kNX, kNX, kNX, kNX, kNX});
  // A zero product leaves the addend exact, a subnormal one included.
  EXPECT_ALL_MODES(Op::Madd, kPosZero, kTwo, kMinSub, kMinSub, 0);
  EXPECT_ALL_MODES(Op::Nmadd, kPosZero, kTwo, kMinSub, neg(kMinSub), 0);
  // A zero addend: the product alone is rounded (here it overflows).
  EXPECT_MODES(Op::Madd, kMaxFinite, kTwo, kNegZero,
               {kPosInf, kMaxFinite, kMaxFinite, kPosInf, kPosInf},
               {kOFNX, kOFNX, kOFNX, kOFNX, kOFNX});
  // The product max*2 is beyond binary32, but only the final sum is rounded: max*2 - max
  // is exactly max, with no overflow.
  EXPECT_ALL_MODES(Op::Msub, kMaxFinite, kTwo, kMaxFinite, kMaxFinite, 0);
}

TEST(FpuDirected, MinMax) {
  uint32_t flags = 0;
  EXPECT_EQ(hex(fpu::min(kPosZero, kNegZero, flags)), hex(kNegZero));
  EXPECT_EQ(hex(fpu::min(kNegZero, kPosZero, flags)), hex(kNegZero));
  EXPECT_EQ(hex(fpu::max(kNegZero, kPosZero, flags)), hex(kPosZero));
  EXPECT_EQ(hex(fpu::max(kPosZero, kNegZero, flags)), hex(kPosZero));
  EXPECT_EQ(hex(fpu::min(kOne, kTwo, flags)), hex(kOne));
  EXPECT_EQ(hex(fpu::max(kOne, kTwo, flags)), hex(kTwo));
  EXPECT_EQ(hex(fpu::min(neg(kOne), neg(kTwo), flags)), hex(neg(kTwo)));
  EXPECT_EQ(hex(fpu::max(kNegInf, neg(kMaxFinite), flags)), hex(neg(kMaxFinite)));
  EXPECT_EQ(hex(fpu::min(kMinSub, neg(kMinSub), flags)), hex(neg(kMinSub)));
  // A quiet NaN gives way to the number, silently.
  EXPECT_EQ(hex(fpu::min(kNegQNanPayload, kTwo, flags)), hex(kTwo));
  EXPECT_EQ(hex(fpu::max(kOne, kQNan, flags)), hex(kOne));
  EXPECT_EQ(flag_names(flags), "none");
  // A signalling NaN gives way too, but raises NV.
  EXPECT_EQ(hex(fpu::min(kSNanPayload, kTwo, flags)), hex(kTwo));
  EXPECT_EQ(flag_names(flags), "NV");
  flags = 0;
  EXPECT_EQ(hex(fpu::max(kNegInf, kSNan, flags)), hex(kNegInf));
  EXPECT_EQ(flag_names(flags), "NV");
  // Two NaNs give the canonical NaN.
  flags = 0;
  EXPECT_EQ(hex(fpu::min(kNegQNanPayload, kQNan, flags)), hex(kCanonicalNan));
  EXPECT_EQ(hex(fpu::max(kNegQNanPayload, 0xffc0'0000u, flags)), hex(kCanonicalNan));
  EXPECT_EQ(flag_names(flags), "none");
  EXPECT_EQ(hex(fpu::max(kSNan, kQNan, flags)), hex(kCanonicalNan));
  EXPECT_EQ(flag_names(flags), "NV");
}

TEST(FpuDirected, Comparisons) {
  struct Case {
    uint32_t a, b;
    uint32_t eq, lt, le;
    uint32_t eq_flags, lt_flags;  // le raises what lt raises
  };
  const Case cases[] = {
      {kOne, kTwo, 0, 1, 1, 0, 0},
      {kTwo, kOne, 0, 0, 0, 0, 0},
      {kOne, kOne, 1, 0, 1, 0, 0},
      {kPosZero, kNegZero, 1, 0, 1, 0, 0},
      {kNegZero, kPosZero, 1, 0, 1, 0, 0},
      {neg(kMinSub), kNegZero, 0, 1, 1, 0, 0},
      {kNegInf, kPosInf, 0, 1, 1, 0, 0},
      {kPosInf, kPosInf, 1, 0, 1, 0, 0},
      {neg(kTwo), neg(kOne), 0, 1, 1, 0, 0},
      {kQNan, kOne, 0, 0, 0, 0, NV},
      {kOne, kNegQNanPayload, 0, 0, 0, 0, NV},
      {kQNan, kQNan, 0, 0, 0, 0, NV},
      {kSNan, kOne, 0, 0, 0, NV, NV},
      {kOne, kSNanPayload, 0, 0, 0, NV, NV},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(hex(c.a) + " vs " + hex(c.b));
    uint32_t f_eq = 0, f_lt = 0, f_le = 0;
    EXPECT_EQ(eq(c.a, c.b, f_eq), c.eq);
    EXPECT_EQ(lt(c.a, c.b, f_lt), c.lt);
    EXPECT_EQ(le(c.a, c.b, f_le), c.le);
    EXPECT_EQ(flag_names(f_eq), flag_names(c.eq_flags));
    EXPECT_EQ(flag_names(f_lt), flag_names(c.lt_flags));
    EXPECT_EQ(flag_names(f_le), flag_names(c.lt_flags));
  }
}

TEST(FpuDirected, Classify) {
  EXPECT_EQ(classify(kNegInf), 1u << 0);
  EXPECT_EQ(classify(neg(kOne)), 1u << 1);
  EXPECT_EQ(classify(neg(kMinNormal)), 1u << 1);
  EXPECT_EQ(classify(neg(kMaxSub)), 1u << 2);
  EXPECT_EQ(classify(neg(kMinSub)), 1u << 2);
  EXPECT_EQ(classify(kNegZero), 1u << 3);
  EXPECT_EQ(classify(kPosZero), 1u << 4);
  EXPECT_EQ(classify(kMinSub), 1u << 5);
  EXPECT_EQ(classify(kMaxSub), 1u << 5);
  EXPECT_EQ(classify(kMinNormal), 1u << 6);
  EXPECT_EQ(classify(kMaxFinite), 1u << 6);
  EXPECT_EQ(classify(kPosInf), 1u << 7);
  EXPECT_EQ(classify(kSNan), 1u << 8);
  EXPECT_EQ(classify(0xffbf'ffffu), 1u << 8);
  EXPECT_EQ(classify(kQNan), 1u << 9);
  EXPECT_EQ(classify(kNegQNanPayload), 1u << 9);
}

TEST(FpuDirected, FloatToSignedWord) {
  constexpr uint32_t kIntMax = 0x7fff'ffffu, kIntMin = 0x8000'0000u;
  EXPECT_ALL_MODES(Op::CvtWS, kQNan, 0, 0, kIntMax, NV);
  EXPECT_ALL_MODES(Op::CvtWS, kNegQNanPayload, 0, 0, kIntMax, NV);
  EXPECT_ALL_MODES(Op::CvtWS, kSNan, 0, 0, kIntMax, NV);
  EXPECT_ALL_MODES(Op::CvtWS, kPosInf, 0, 0, kIntMax, NV);
  EXPECT_ALL_MODES(Op::CvtWS, kNegInf, 0, 0, kIntMin, NV);
  EXPECT_ALL_MODES(Op::CvtWS, 0x4f00'0000u /* 2^31 */, 0, 0, kIntMax, NV);
  EXPECT_ALL_MODES(Op::CvtWS, 0xcf00'0000u /* -2^31 */, 0, 0, kIntMin, 0);
  EXPECT_ALL_MODES(Op::CvtWS, 0xcf00'0001u /* -2^31 - 256 */, 0, 0, kIntMin, NV);
  EXPECT_ALL_MODES(Op::CvtWS, 0x4eff'ffffu /* 2^31 - 128 */, 0, 0, 0x7fff'ff80u, 0);
  EXPECT_ALL_MODES(Op::CvtWS, kNegZero, 0, 0, 0, 0);
  EXPECT_ALL_MODES(Op::CvtWS, neg(kTwo), 0, 0, 0xffff'fffeu, 0);
  const Modes nx = {kNX, kNX, kNX, kNX, kNX};
  EXPECT_MODES(Op::CvtWS, 0x4020'0000u /* 2.5 */, 0, 0, {2, 2, 2, 3, 3}, nx);
  EXPECT_MODES(Op::CvtWS, 0xc020'0000u /* -2.5 */, 0, 0,
               {0xffff'fffeu, 0xffff'fffeu, 0xffff'fffdu, 0xffff'fffeu, 0xffff'fffdu}, nx);
  EXPECT_MODES(Op::CvtWS, 0x4060'0000u /* 3.5 */, 0, 0, {4, 3, 3, 4, 4}, nx);
  EXPECT_MODES(Op::CvtWS, kHalf, 0, 0, {0, 0, 0, 1, 1}, nx);
  EXPECT_MODES(Op::CvtWS, kMinSub, 0, 0, {0, 0, 0, 1, 0}, nx);
  EXPECT_MODES(Op::CvtWS, neg(kMinSub), 0, 0, {0, 0, 0xffff'ffffu, 0, 0}, nx);
}

TEST(FpuDirected, FloatToUnsignedWord) {
  constexpr uint32_t kUMax = 0xffff'ffffu;
  EXPECT_ALL_MODES(Op::CvtWuS, kQNan, 0, 0, kUMax, NV);
  EXPECT_ALL_MODES(Op::CvtWuS, 0xffc0'0000u, 0, 0, kUMax, NV);
  EXPECT_ALL_MODES(Op::CvtWuS, kPosInf, 0, 0, kUMax, NV);
  EXPECT_ALL_MODES(Op::CvtWuS, kNegInf, 0, 0, 0, NV);
  EXPECT_ALL_MODES(Op::CvtWuS, 0x4f80'0000u /* 2^32 */, 0, 0, kUMax, NV);
  EXPECT_ALL_MODES(Op::CvtWuS, 0x4f7f'ffffu /* 2^32 - 256 */, 0, 0, 0xffff'ff00u, 0);
  EXPECT_ALL_MODES(Op::CvtWuS, 0x4f00'0000u /* 2^31 */, 0, 0, 0x8000'0000u, 0);
  EXPECT_ALL_MODES(Op::CvtWuS, neg(kOne), 0, 0, 0, NV);
  EXPECT_ALL_MODES(Op::CvtWuS, kNegZero, 0, 0, 0, 0);
  // A negative value that rounds to zero is in range (NX); one that rounds to -1 is
  // invalid (NV and no NX).
  EXPECT_MODES(Op::CvtWuS, 0xbe99'999au /* -0.3 */, 0, 0, {0, 0, 0, 0, 0},
               {kNX, kNX, NV, kNX, kNX});
  EXPECT_MODES(Op::CvtWuS, 0xbf00'0000u /* -0.5 */, 0, 0, {0, 0, 0, 0, 0},
               {kNX, kNX, NV, kNX, NV});
  EXPECT_MODES(Op::CvtWuS, 0x4020'0000u /* 2.5 */, 0, 0, {2, 2, 2, 3, 3},
               {kNX, kNX, kNX, kNX, kNX});
}

TEST(FpuDirected, WordToFloat) {
  const Modes nx = {kNX, kNX, kNX, kNX, kNX};
  EXPECT_ALL_MODES(Op::CvtSW, 0, 0, 0, kPosZero, 0);
  EXPECT_ALL_MODES(Op::CvtSW, 0x8000'0000u, 0, 0, 0xcf00'0000u, 0);
  EXPECT_ALL_MODES(Op::CvtSW, 0xffff'ffffu, 0, 0, neg(kOne), 0);
  EXPECT_MODES(Op::CvtSW, 0x7fff'ffffu, 0, 0,
               {0x4f00'0000u, 0x4eff'ffffu, 0x4eff'ffffu, 0x4f00'0000u, 0x4f00'0000u}, nx);
  // 2^24 + 1 is a tie with an even lower neighbour, 2^24 + 3 with an even upper one.
  EXPECT_MODES(Op::CvtSW, 16777217u, 0, 0,
               {0x4b80'0000u, 0x4b80'0000u, 0x4b80'0000u, 0x4b80'0001u, 0x4b80'0001u}, nx);
  EXPECT_MODES(Op::CvtSW, static_cast<uint32_t>(-16777217), 0, 0,
               {0xcb80'0000u, 0xcb80'0000u, 0xcb80'0001u, 0xcb80'0000u, 0xcb80'0001u}, nx);
  EXPECT_MODES(Op::CvtSW, 16777219u, 0, 0,
               {0x4b80'0002u, 0x4b80'0001u, 0x4b80'0001u, 0x4b80'0002u, 0x4b80'0002u}, nx);
  EXPECT_ALL_MODES(Op::CvtSWu, 0, 0, 0, kPosZero, 0);
  EXPECT_ALL_MODES(Op::CvtSWu, 0x8000'0000u, 0, 0, 0x4f00'0000u, 0);
  EXPECT_MODES(Op::CvtSWu, 0xffff'ffffu, 0, 0,
               {0x4f80'0000u, 0x4f7f'ffffu, 0x4f7f'ffffu, 0x4f80'0000u, 0x4f80'0000u}, nx);
}

TEST(FpuDirected, FlagsAccumulate) {
  uint32_t flags = DZ;
  add(kOne, kTwoM24, RNE, flags);
  EXPECT_EQ(flag_names(flags), "DZ|NX");
  add(kOne, kOne, RNE, flags);  // exact: clears nothing
  EXPECT_EQ(flag_names(flags), "DZ|NX");
}

TEST(FpuDirected, InvalidRoundingModeBehavesAsRne) {
  // The ISS resolves DYN and rejects reserved modes; fpu.h must still not misbehave.
  for (uint32_t rm : {5u, 6u, 7u}) {
    uint32_t flags = 0;
    EXPECT_EQ(hex(add(kOnePlusUlp, kTwoM24, rm, flags)), hex(0x3f80'0002u));
    EXPECT_EQ(hex(add(kMaxFinite, kMaxFinite, rm, flags)), hex(kPosInf));
  }
}

TEST(FpuDirected, LeavesTheHostFloatingPointEnvironmentAlone) {
  for (int host_mode : {FE_TONEAREST, FE_UPWARD, FE_DOWNWARD, FE_TOWARDZERO}) {
    for (int host_flags : {0, FE_INEXACT | FE_OVERFLOW, FE_ALL_EXCEPT}) {
      ASSERT_EQ(std::fesetround(host_mode), 0);
      std::feclearexcept(FE_ALL_EXCEPT);
      if (host_flags) std::feraiseexcept(host_flags);
      // Every operation, every mode, operands that raise every flag.
      const uint32_t operands[] = {kOne,       kTwoM24,    kMaxFinite, kMinSub, kPosZero,
                                   kNegInf,    kSNan,      kQNan,      kHalf,   0x4020'0000u,
                                   0x4f80'0000u, 0x7fff'ffffu};
      uint32_t flags = 0;
      for (const OpInfo& info : kOps)
        for (uint32_t rm : kModes)
          for (uint32_t a : operands)
            for (uint32_t b : operands) apply(info.op, a, b, kMinSub, rm, flags);
      EXPECT_EQ(flag_names(flags), "NV|DZ|OF|UF|NX");
      EXPECT_EQ(std::fegetround(), host_mode);
      EXPECT_EQ(std::fetestexcept(FE_ALL_EXCEPT), host_flags);
    }
  }
  std::fesetround(FE_TONEAREST);
  std::feclearexcept(FE_ALL_EXCEPT);
}

}  // namespace
}  // namespace ipusim::iss::fpu::test
