// Differential test of the exact FPU against the host FPU.
//
// x86 SSE/FMA arithmetic is IEEE 754 in RNE/RTZ/RDN/RUP with the same flag semantics as
// RISC-V (tininess after rounding; UE only when tiny and inexact, with underflow masked),
// so native host floats under fesetround() are a bit-exact reference for results and
// flags; NaN results are compared after canonicalisation (RISC-V always returns the
// canonical NaN, x86 propagates payloads). The host has no RMM, so the RMM reference is
// derived from the host's RNE/RDN/RUP results: RMM differs from RNE only when the exact
// result is a tie, i.e. equals the midpoint of the RDN and RUP results, which is checked
// exactly in double arithmetic; the flags of RMM and RNE agree (docs/fpu.md).
//
// Operands: every pair (and triple, for the fused ops) of a table of special values, plus
// random operands drawn to hit ties, cancellation, subnormals and overflow often.
// This file is compiled with -frounding-math -ffp-contract=off; every host operation
// reads its operands from volatile variables so nothing is folded or hoisted.
#include <gtest/gtest.h>
#include <immintrin.h>

#include <algorithm>
#include <array>
#include <cfenv>
#include <cmath>
#include <random>
#include <span>
#include <vector>

#include "fpu_test_util.h"

namespace ipusim::iss::fpu::test {
namespace {

struct Result {
  uint32_t bits;
  uint32_t flags;
};

uint32_t host_fenv_flags() {
  const int raised = std::fetestexcept(FE_ALL_EXCEPT);
  uint32_t flags = 0;
  if (raised & FE_INVALID) flags |= NV;
  if (raised & FE_DIVBYZERO) flags |= DZ;
  if (raised & FE_OVERFLOW) flags |= OF;
  if (raised & FE_UNDERFLOW) flags |= UF;
  if (raised & FE_INEXACT) flags |= NX;
  return flags;
}

int host_mode(uint32_t rm) {
  switch (rm) {
    case RTZ: return FE_TOWARDZERO;
    case RDN: return FE_DOWNWARD;
    case RUP: return FE_UPWARD;
    default: return FE_TONEAREST;
  }
}

bool is_fused(Op op) { return op == Op::Madd || op == Op::Msub || op == Op::Nmsub || op == Op::Nmadd; }
bool is_inf_bits(uint32_t b) { return (b & 0x7fff'ffffu) == 0x7f80'0000u; }
bool is_zero_bits(uint32_t b) { return (b & 0x7fff'ffffu) == 0; }

// The operation on the host FPU in the host's current rounding mode. The float-to-int
// conversions use cvtss2si (which rounds per MXCSR) and map x86's out-of-range answer to
// the RISC-V saturation rule; everything else is taken as the host computes it.
Result host_op(Op op, uint32_t a, uint32_t b, uint32_t c) {
  volatile float x = value(a), y = value(b), z = value(c);
  volatile float r = 0;
  std::feclearexcept(FE_ALL_EXCEPT);
  switch (op) {
    case Op::Add: r = x + y; break;
    case Op::Sub: r = x - y; break;
    case Op::Mul: r = x * y; break;
    case Op::Div: r = x / y; break;
    case Op::Sqrt: r = std::sqrt(static_cast<float>(x)); break;
    case Op::Madd: r = std::fma(static_cast<float>(x), static_cast<float>(y), static_cast<float>(z)); break;
    case Op::Msub: r = std::fma(static_cast<float>(x), static_cast<float>(y), -static_cast<float>(z)); break;
    case Op::Nmsub: r = std::fma(-static_cast<float>(x), static_cast<float>(y), static_cast<float>(z)); break;
    case Op::Nmadd: r = std::fma(-static_cast<float>(x), static_cast<float>(y), -static_cast<float>(z)); break;
    case Op::CvtSW: {
      volatile int32_t i = static_cast<int32_t>(a);
      r = static_cast<float>(i);
      break;
    }
    case Op::CvtSWu: {
      volatile uint32_t u = a;
      r = static_cast<float>(u);
      break;
    }
    case Op::CvtWS: {
      volatile int32_t i = _mm_cvtss_si32(_mm_set_ss(x));  // volatile: convert before reading flags
      const uint32_t flags = host_fenv_flags();
      if (flags & NV) {  // NaN or out of range: x86 gives 0x80000000, RISC-V saturates
        const bool negative = !is_nan_bits(a) && (a >> 31);
        return {negative ? 0x8000'0000u : 0x7fff'ffffu, NV};
      }
      return {static_cast<uint32_t>(i), flags};
    }
    case Op::CvtWuS: {
      volatile int64_t i = _mm_cvtss_si64(_mm_set_ss(x));
      const uint32_t flags = host_fenv_flags();
      if (flags & NV) {  // NaN or beyond int64
        const bool negative = !is_nan_bits(a) && (a >> 31);
        return {negative ? 0u : 0xffff'ffffu, NV};
      }
      if (i < 0) return {0u, NV};
      if (i > 0xffff'ffffll) return {0xffff'ffffu, NV};
      return {static_cast<uint32_t>(i), flags};
    }
    default: ADD_FAILURE() << "no host reference for this op"; break;
  }
  const uint32_t flags = host_fenv_flags();
  const uint32_t bits = std::bit_cast<uint32_t>(static_cast<float>(r));
  // RISC-V rule the host does not share: 0 * inf in a fused op is invalid even with a
  // quiet NaN addend (x86 FMA propagates the NaN silently).
  if (is_fused(op) && ((is_inf_bits(a) && is_zero_bits(b)) || (is_zero_bits(a) && is_inf_bits(b))))
    return {kCanonicalNan, NV};
  return {is_nan_bits(bits) ? kCanonicalNan : bits, flags};
}

Result host_op_in_mode(Op op, uint32_t a, uint32_t b, uint32_t c, uint32_t rm) {
  std::fesetround(host_mode(rm));
  const Result r = host_op(op, a, b, c);
  std::fesetround(FE_TONEAREST);
  return r;
}

// Whether the exact result of op equals `mid` (a value with at most 25 significant bits),
// decided with exact double arithmetic: products of two such values fit in 53 bits, and
// a sum that double cannot hold exactly cannot equal mid.
bool exact_result_is(Op op, uint32_t a, uint32_t b, uint32_t c, double mid) {
  const double x = value(a), y = value(b), z = value(c);
  std::feclearexcept(FE_ALL_EXCEPT);
  volatile double v = 0;
  switch (op) {
    case Op::Add: v = x + y; break;
    case Op::Sub: v = x - y; break;
    case Op::Mul: v = x * y; break;
    case Op::Div: return mid * y == x;
    case Op::Sqrt: return mid * mid == x;
    case Op::Madd: v = x * y + z; break;
    case Op::Msub: v = x * y - z; break;
    case Op::Nmsub: v = -(x * y) + z; break;
    case Op::Nmadd: v = -(x * y) - z; break;
    case Op::CvtSW: return static_cast<double>(static_cast<int32_t>(a)) == mid;
    case Op::CvtSWu: return static_cast<double>(a) == mid;
    default: return false;
  }
  return !std::fetestexcept(FE_INEXACT) && v == mid;
}

// RMM by an independent route: the RNE result, except on an exact tie, where it is the
// neighbour away from zero; the flags are RNE's.
Result rmm_reference(Op op, uint32_t a, uint32_t b, uint32_t c) {
  if (op == Op::CvtWS || op == Op::CvtWuS) {
    const double x = value(a);
    if (std::isnan(x)) return {op == Op::CvtWS ? 0x7fff'ffffu : 0xffff'ffffu, NV};
    const double r = std::round(x);  // halfway cases away from zero; exact in double
    const uint32_t nx = r != x ? uint32_t{NX} : 0u;
    if (op == Op::CvtWS) {
      if (r > 2147483647.0) return {0x7fff'ffffu, NV};
      if (r < -2147483648.0) return {0x8000'0000u, NV};
      return {static_cast<uint32_t>(static_cast<int32_t>(r)), nx};
    }
    if (r > 4294967295.0) return {0xffff'ffffu, NV};
    if (r < 0) return {0u, NV};
    return {static_cast<uint32_t>(r), nx};
  }
  const Result ne = host_op_in_mode(op, a, b, c, RNE);
  if (!(ne.flags & NX) || is_nan_bits(ne.bits)) return ne;
  const Result dn = host_op_in_mode(op, a, b, c, RDN);
  const Result up = host_op_in_mode(op, a, b, c, RUP);
  if (is_inf_bits(dn.bits) || is_inf_bits(up.bits)) return ne;  // overflow: RMM = RNE
  const double mid = (static_cast<double>(value(dn.bits)) + value(up.bits)) / 2;
  if (!exact_result_is(op, a, b, c, mid)) return ne;
  const bool up_is_away = std::fabs(value(up.bits)) > std::fabs(value(dn.bits));
  return {up_is_away ? up.bits : dn.bits, ne.flags};
}

// ---- operand generation ----

const uint32_t kSpecials[] = {
    kPosZero, kNegZero, kPosInf, kNegInf, kQNan, kSNan, kNegQNanPayload, kSNanPayload,
    kMinSub, neg(kMinSub), kMaxSub, neg(kMaxSub), kMinNormal, neg(kMinNormal), kMaxFinite,
    neg(kMaxFinite), kOne, neg(kOne), kTwo, 0x3f00'0000u /* 0.5 */, 0x3f80'0001u, 0x3f7f'ffffu,
    0x4040'0000u /* 3 */, 0x3380'0000u /* 2^-24 */, 0x4f00'0000u /* 2^31 */,
    0xcf00'0000u /* -2^31 */, 0x4f80'0000u /* 2^32 */, 0x4b80'0000u /* 2^24 */,
    0x3e99'999au /* 0.3 */, 0x4020'0000u /* 2.5 */, 0xc020'0000u, 0x3fc0'0000u /* 1.5 */,
    0x0000'0003u, 0x0040'0000u, 0x1a00'0000u, 0x7300'0000u,
};

const uint32_t kIntSpecials[] = {0u, 1u, 0xffff'ffffu, 0x7fff'ffffu, 0x8000'0000u, 0x8000'0001u,
                                 16777216u, 16777217u, 16777219u, 0xfeff'ffffu, 0x0100'0001u,
                                 0xff00'0001u, 0x7fff'ff80u, 0x7fff'ffc0u, 0xffff'ff80u};

class OperandSource {
 public:
  explicit OperandSource(uint64_t seed) : rng_(seed) {}

  uint32_t bits32() { return static_cast<uint32_t>(rng_()); }
  uint32_t below(uint32_t n) { return static_cast<uint32_t>(rng_() % n); }

  // A float operand; `near_exp` (a biased exponent) steers some draws close to another
  // operand's magnitude, where ties and cancellation happen.
  uint32_t operand(int near_exp) {
    const uint32_t sign = below(2) << 31;
    switch (below(8)) {
      case 0: return bits32();
      case 1: return kSpecials[below(std::size(kSpecials))];
      case 2: return sign | (below(256) << 23) | (bits32() & 0x7f'ffffu);
      case 3: return sign | exponent_field(near_exp + static_cast<int>(below(61)) - 30) | sparse_mantissa();
      case 4: return sign | exponent_field(static_cast<int>(below(26))) | sparse_mantissa();
      case 5: return sign | exponent_field(228 + static_cast<int>(below(27))) | sparse_mantissa();
      case 6: return sign | exponent_field(near_exp + static_cast<int>(below(5)) - 2) | (bits32() & 0x7f'ffffu);
      default: return sign | exponent_field(97 + static_cast<int>(below(61))) | sparse_mantissa();
    }
  }

  uint32_t integer() {
    switch (below(4)) {
      case 0: return kIntSpecials[below(std::size(kIntSpecials))];
      case 1: return bits32();
      case 2: return bits32() >> below(32);
      default: return static_cast<uint32_t>(-static_cast<int32_t>(bits32() >> below(32)));
    }
  }

 private:
  static uint32_t exponent_field(int e) { return static_cast<uint32_t>(std::clamp(e, 0, 254)) << 23; }
  // A mantissa with a random number of trailing zero bits: exact results and ties are common.
  uint32_t sparse_mantissa() { return (bits32() & 0x7f'ffffu) & ~((1u << below(24)) - 1); }

  std::mt19937_64 rng_;
};

int biased_exponent(uint32_t b) { return static_cast<int>((b >> 23) & 0xff); }

// ---- the checks ----

class FpuHostDiff : public ::testing::Test {
 protected:
  void SetUp() override {
    // Denormals-are-zero / flush-to-zero would make the host non-IEEE.
    ASSERT_EQ(_mm_getcsr() & 0x8040u, 0u) << "host MXCSR has DAZ or FTZ set";
    std::fesetround(FE_TONEAREST);
  }

  // Compares one case against a reference; reports the first few mismatches in detail.
  void check(const OpInfo& info, uint32_t a, uint32_t b, uint32_t c, uint32_t rm, Result want) {
    uint32_t flags = 0;
    const uint32_t got = apply(info.op, a, b, c, rm, flags);
    ++checked_;
    if (got == want.bits && flags == want.flags) return;
    if (++mismatches_ <= 10)
      ADD_FAILURE() << info.name << " " << mode_name(rm) << " (" << hex(a) << ", " << hex(b)
                    << ", " << hex(c) << "): got " << hex(got) << " " << flag_names(flags)
                    << ", host reference " << hex(want.bits) << " " << flag_names(want.flags);
  }

  void check_all_modes(const OpInfo& info, uint32_t a, uint32_t b, uint32_t c) {
    for (uint32_t rm : {RNE, RTZ, RDN, RUP}) check(info, a, b, c, rm, host_op_in_mode(info.op, a, b, c, rm));
  }

  // Every special combination, then `random_cases` random ones in each directed mode and
  // `rmm_cases` in RMM.
  void run(Op op, int random_cases, int rmm_cases) {
    const OpInfo& info = *std::find_if(std::begin(kOps), std::end(kOps),
                                       [op](const OpInfo& i) { return i.op == op; });
    const bool integer_operand = op == Op::CvtSW || op == Op::CvtSWu;
    if (integer_operand) {
      for (uint32_t a : kIntSpecials) check_all_modes(info, a, 0, 0);
    } else {
      for (uint32_t a : kSpecials)
        for (uint32_t b : info.operands >= 2 ? std::span<const uint32_t>(kSpecials) : std::span<const uint32_t>(kSpecials, 1))
          for (uint32_t c : info.operands == 3 ? std::span<const uint32_t>(kSpecials) : std::span<const uint32_t>(kSpecials, 1))
            check_all_modes(info, a, b, c);
    }
    OperandSource src(0x5eed'0000u + static_cast<uint32_t>(op));
    std::vector<std::array<uint32_t, 3>> cases;
    for (int i = 0; i < random_cases; ++i) {
      if (integer_operand) {
        cases.push_back({src.integer(), 0, 0});
        continue;
      }
      const uint32_t a = src.operand(127);
      const uint32_t b = src.operand(op == Op::Mul || op == Op::Div || is_fused(op) ? 127 : biased_exponent(a));
      const uint32_t c = src.operand(biased_exponent(a) + biased_exponent(b) - 127);
      cases.push_back({a, b, c});
    }
    for (uint32_t rm : {RNE, RTZ, RDN, RUP}) {
      std::fesetround(host_mode(rm));
      for (const auto& [a, b, c] : cases) {
        const Result want = host_op(op, a, b, c);
        check(info, a, b, c, rm, want);
      }
      std::fesetround(FE_TONEAREST);
    }
    for (int i = 0; i < rmm_cases && i < static_cast<int>(cases.size()); ++i) {
      const auto& [a, b, c] = cases[i];
      check(info, a, b, c, RMM, rmm_reference(op, a, b, c));
    }
    EXPECT_EQ(mismatches_, 0) << "of " << checked_ << " cases";
    RecordProperty("cases", checked_);
  }

  int checked_ = 0;
  int mismatches_ = 0;
};

constexpr int kRandom = 200'000;
constexpr int kRmm = 100'000;

TEST_F(FpuHostDiff, Add) { run(Op::Add, kRandom, kRmm); }
TEST_F(FpuHostDiff, Sub) { run(Op::Sub, kRandom, kRmm); }
TEST_F(FpuHostDiff, Mul) { run(Op::Mul, kRandom, kRmm); }
TEST_F(FpuHostDiff, Div) { run(Op::Div, kRandom, kRmm); }
TEST_F(FpuHostDiff, Sqrt) { run(Op::Sqrt, kRandom, kRmm); }
TEST_F(FpuHostDiff, Madd) { run(Op::Madd, kRandom, kRmm); }
TEST_F(FpuHostDiff, Msub) { run(Op::Msub, kRandom, kRmm); }
TEST_F(FpuHostDiff, Nmsub) { run(Op::Nmsub, kRandom, kRmm); }
TEST_F(FpuHostDiff, Nmadd) { run(Op::Nmadd, kRandom, kRmm); }
TEST_F(FpuHostDiff, CvtSW) { run(Op::CvtSW, kRandom, kRmm); }
TEST_F(FpuHostDiff, CvtSWu) { run(Op::CvtSWu, kRandom, kRmm); }
TEST_F(FpuHostDiff, CvtWS) { run(Op::CvtWS, kRandom, kRmm); }
TEST_F(FpuHostDiff, CvtWuS) { run(Op::CvtWuS, kRandom, kRmm); }

// The RMM reference itself must see ties: otherwise the RMM comparison proves little.
TEST(FpuHostDiffReference, RmmReferenceFindsTies) {
  // 1 + 2^-24 is a tie: RNE gives 1.0, RMM 1 + 2^-23.
  EXPECT_EQ(hex(rmm_reference(Op::Add, kOne, 0x3380'0000u, 0).bits), hex(0x3f80'0001u));
  EXPECT_EQ(hex(rmm_reference(Op::Sub, neg(kOne), 0x3380'0000u, 0).bits), hex(0xbf80'0001u));
  EXPECT_EQ(hex(rmm_reference(Op::Mul, 0x0000'0001u, 0x3f00'0000u, 0).bits), hex(0x0000'0001u));
  EXPECT_EQ(hex(rmm_reference(Op::CvtSW, 16777217u, 0, 0).bits), hex(0x4b80'0001u));
  EXPECT_EQ(hex(rmm_reference(Op::CvtWS, 0x4020'0000u, 0, 0).bits), hex(3u));
  // Not a tie: same as RNE.
  EXPECT_EQ(hex(rmm_reference(Op::Add, kOne, 0x3370'0000u, 0).bits), hex(kOne));
}

// Min/max and the comparisons against host float comparisons (quiet ==, <, <=), with the
// NaN rules of the spec applied on top.
TEST(FpuHostDiffReference, MinMaxCompareAgainstHostComparisons) {
  OperandSource src(0xc0ffee);
  int mismatches = 0;
  constexpr int n = static_cast<int>(std::size(kSpecials));
  for (int i = 0; i < 300'000; ++i) {
    // Every pair of specials first, then random pairs (a quarter of them +-a).
    const bool special = i < n * n;
    const uint32_t a = special ? kSpecials[i / n] : src.operand(127);
    const uint32_t b = special ? kSpecials[i % n]
                               : (src.below(4) == 0 ? a ^ (src.below(2) << 31) : src.operand(biased_exponent(a)));
    const float x = value(a), y = value(b);
    const bool a_nan = is_nan_bits(a), b_nan = is_nan_bits(b);
    const bool any_snan = (a_nan && !(a & 0x40'0000u)) || (b_nan && !(b & 0x40'0000u));
    const uint32_t snan_nv = any_snan ? uint32_t{NV} : 0u;
    // Expected min/max: numeric order, -0 below +0, NaN gives way.
    uint32_t want_min, want_max;
    if (a_nan && b_nan) {
      want_min = want_max = kCanonicalNan;
    } else if (a_nan || b_nan) {
      want_min = want_max = a_nan ? b : a;
    } else if (x < y || (x == y && (a >> 31) > (b >> 31))) {
      want_min = a, want_max = b;
    } else if (y < x || (x == y && (b >> 31) > (a >> 31))) {
      want_min = b, want_max = a;
    } else {
      want_min = want_max = a;  // identical
    }
    struct { uint32_t got, flags, want, want_flags; const char* what; } rows[5];
    uint32_t f[5] = {};
    rows[0] = {fpu::min(a, b, f[0]), 0, want_min, snan_nv, "fmin"};
    rows[1] = {fpu::max(a, b, f[1]), 0, want_max, snan_nv, "fmax"};
    rows[2] = {eq(a, b, f[2]), 0, static_cast<uint32_t>(!a_nan && !b_nan && x == y), snan_nv, "feq"};
    rows[3] = {lt(a, b, f[3]), 0, static_cast<uint32_t>(!a_nan && !b_nan && x < y),
               (a_nan || b_nan) ? uint32_t{NV} : 0u, "flt"};
    rows[4] = {le(a, b, f[4]), 0, static_cast<uint32_t>(!a_nan && !b_nan && x <= y),
               (a_nan || b_nan) ? uint32_t{NV} : 0u, "fle"};
    for (int k = 0; k < 5; ++k) {
      if (rows[k].got == rows[k].want && f[k] == rows[k].want_flags) continue;
      if (++mismatches <= 10)
        ADD_FAILURE() << rows[k].what << "(" << hex(a) << ", " << hex(b) << "): got " << hex(rows[k].got)
                      << " " << flag_names(f[k]) << ", want " << hex(rows[k].want) << " "
                      << flag_names(rows[k].want_flags);
    }
  }
  EXPECT_EQ(mismatches, 0);
}

// host_flags_clear / host_flags_read map the host's sticky flags to RISC-V's.
TEST(FpuHostFlags, MapEveryHostExceptionAndIgnoreDenormalOperands) {
  volatile float one = 1.0f, three = 3.0f, zero = 0.0f, big = value(kMaxFinite);
  volatile float min_normal = value(kMinNormal), min_sub = value(kMinSub), half = 0.5f;
  volatile float snan = value(kSNan);
  volatile float sink;
  host_flags_clear();
  EXPECT_EQ(host_flags_read(), 0u);
  sink = one / three;
  EXPECT_EQ(flag_names(host_flags_read()), "NX");
  host_flags_clear();
  sink = one / zero;
  EXPECT_EQ(flag_names(host_flags_read()), "DZ");
  host_flags_clear();
  sink = big * three;
  EXPECT_EQ(flag_names(host_flags_read()), "OF|NX");
  host_flags_clear();
  sink = min_sub * half;  // tiny and inexact
  EXPECT_EQ(flag_names(host_flags_read()), "UF|NX");
  host_flags_clear();
  sink = min_normal * half;  // tiny but exact: no UF (x86 UE with underflow masked)
  EXPECT_EQ(flag_names(host_flags_read()), "none");
  host_flags_clear();
  sink = min_sub + zero;  // a denormal operand (x86 DE) has no RISC-V flag
  EXPECT_EQ(flag_names(host_flags_read()), "none");
  host_flags_clear();
  sink = zero / zero;
  EXPECT_EQ(flag_names(host_flags_read()), "NV");
  host_flags_clear();
  sink = snan + one;
  EXPECT_EQ(flag_names(host_flags_read()), "NV");
  sink = one / three;  // sticky: accumulates until cleared
  EXPECT_EQ(flag_names(host_flags_read()), "NV|NX");
  host_flags_clear();
  EXPECT_EQ(host_flags_read(), 0u);
  // Clearing the flags leaves the rounding mode alone.
  std::fesetround(FE_UPWARD);
  host_flags_clear();
  EXPECT_EQ(std::fegetround(), FE_UPWARD);
  std::fesetround(FE_TONEAREST);
  (void)sink;
}

}  // namespace
}  // namespace ipusim::iss::fpu::test
