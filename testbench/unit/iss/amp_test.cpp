// The AMP (docs/xipu.md, custom-1): amp.ldw / amp.mac / amp.st / amp.clr in f16 and f32,
// checked bit for bit against a reference written here from the rounding rule (f16 to f32
// by arithmetic on the fields, products and sums one at a time through the exact fpu::
// functions, canonical NaN); rows from the tile parameters; the amprows CSRs; faults;
// fflags untouched; the state per thread; the accumulator banks.
#include <cmath>
#include <random>

#include "iss/fpu.h"
#include "iss_harness.h"

namespace {

using namespace isstest;
using namespace rvasm;

constexpr uint32_t kF16 = IPU_AMP_F16, kF32 = IPU_AMP_F32;
constexpr uint32_t kAmpMaxRows = 64;  // the most rows any tile has (docs/xipu.md)
constexpr uint32_t kW = 0x50000, kX = 0x58000, kOut = 0x5c000;  // inside the 64 KiB .bss of AmpHarness
constexpr uint32_t kFflags = 0x001, kCycle = 0xc00, kRows16 = 0xcc9, kRows32 = 0xcca, kBanksCsr = 0xccb;
constexpr uint32_t kBanks = 8;  // accumulator banks per context (docs/xipu.md)

// ---- the reference ---------------------------------------------------------------------

// IEEE binary16 to binary32 from the fields: (-1)^s * 2^(e-15) * 1.m, subnormals
// 2^-14 * 0.m, infinities and NaNs keep their payload.
uint32_t ref_half(uint16_t h) {
  const uint32_t sign = h >> 15, exp = (h >> 10) & 31, man = h & 1023;
  if (exp == 31) return sign << 31 | 0x7f800000u | man << 13;
  const double mag = exp == 0 ? std::ldexp(static_cast<double>(man), -24)
                              : std::ldexp(static_cast<double>(1024 + man), static_cast<int>(exp) - 25);
  return fbits(static_cast<float>(sign ? -mag : mag));  // exact: 11 significant bits
}

struct RefAmp {
  std::vector<uint32_t> w;    // rows x 4, f32 bits, row-major
  std::vector<uint32_t> acc;  // f32 bits
  explicit RefAmp(uint32_t max_rows) : acc(max_rows, 0) {}

  void mac(const uint32_t x[4], uint32_t rows) {
    for (uint32_t i = 0; i < rows; ++i)
      for (uint32_t j = 0; j < 4; ++j) {
        uint32_t flags = 0;
        const uint32_t p = fpu::mul(w[i * 4 + j], x[j], fpu::RNE, flags);
        acc[i] = fpu::add(acc[i], p, fpu::RNE, flags);  // fpu:: returns canonical NaNs
      }
  }
  std::vector<uint32_t> stored(uint32_t rows) const {
    std::vector<uint32_t> out(acc.begin(), acc.begin() + rows);
    for (uint32_t& b : out)
      if ((b & 0x7fffffffu) > 0x7f800000u) b = fpu::kCanonicalNan;
    return out;
  }
};

// ---- helpers ---------------------------------------------------------------------------

TileParams amp_params(uint32_t f16_macs = 64, uint32_t f32_macs = 16, uint32_t quantum = 1024) {
  TileParams p = test_params(quantum);
  p.amp_f16_macs = f16_macs;
  p.amp_f32_macs = f32_macs;
  return p;
}

// The ISS harness with 64 KiB of .bss at 0x50000 for weights, inputs and results.
struct AmpHarness : Harness {
  static testelf::Image image() {
    testelf::Image img;
    img.data_addr = 0x50000;
    img.bss_bytes = 0x10000;
    return img;
  }
  AmpHarness(const Asm& a, TileParams p) : Harness(a, p, image()) {}
};

void put_bytes(Harness& h, uint32_t addr, const void* data, size_t n) {
  ASSERT_TRUE(h.core.write(addr, std::span<const uint8_t>(static_cast<const uint8_t*>(data), n)));
}
template <typename T>
void put(Harness& h, uint32_t addr, const std::vector<T>& v) {
  put_bytes(h, addr, v.data(), v.size() * sizeof(T));
}
std::vector<uint32_t> words(Harness& h, uint32_t addr, uint32_t n) {
  std::vector<uint32_t> out(n);
  for (uint32_t i = 0; i < n; ++i) out[i] = h.mem32(addr + 4 * i);
  return out;
}

// K steps of: amp.ldw W_k; amp.mac x_k (the GEMM kernel's pattern), then amp.st.
Asm mac_program(uint32_t type, uint32_t steps, uint32_t w_step_bytes) {
  Asm a;
  a.li(s0, kW);
  a.li(s1, kX);
  a.li(s2, kOut);
  a.li(s3, steps);
  a.amp_clr(type);
  a.label("loop");
  a.amp_ldw(type, s0);
  a.amp_mac(type, s1, s1);  // advances s1 to the next input vector
  a.addi(s0, s0, static_cast<int32_t>(w_step_bytes));
  a.addi(s3, s3, -1);
  a.bne(s3, zero, "loop");
  a.amp_st(type, s2);
  a.halt(zero);
  return a;
}

// Random f16 / f32 bit patterns of one "kind": anything, ordinary values, or tiny ones.
uint16_t random_half(std::mt19937& rng, int kind) {
  switch (kind) {
    case 0: return static_cast<uint16_t>(rng());
    case 1: return static_cast<uint16_t>((rng() & 0x8000) | ((10 + rng() % 10) << 10) | (rng() & 0x3ff));
    default: return static_cast<uint16_t>((rng() & 0x8000) | (rng() % 3 == 0 ? 1u << 10 : 0) | (rng() & 0x3ff));
  }
}
uint32_t random_float(std::mt19937& rng, int kind) {
  switch (kind) {
    case 0: return static_cast<uint32_t>(rng());
    case 1: return (rng() & 0x80000000u) | ((110 + rng() % 35) << 23) | (rng() & 0x7fffff);
    default: return (rng() & 0x80000000u) | ((rng() % 4) << 23) | (rng() & 0x7fffff);
  }
}

// Runs `steps` ldw + mac pairs of random operands and compares the stored accumulators.
void check_random_macs(uint32_t type, uint32_t f16_macs, uint32_t f32_macs, uint32_t quantum, uint32_t seed) {
  const uint32_t rows = (type == kF16 ? f16_macs : f32_macs) / 4;
  const uint32_t steps = 64;  // W: at most 64 steps x 16 rows x 16 bytes = 16 KiB below kX
  const uint32_t w_bytes = rows * 4 * (type == kF16 ? 2 : 4);
  for (int kind = 0; kind < 3; ++kind) {
    SCOPED_TRACE(::testing::Message() << "type " << type << " rows " << rows << " kind " << kind);
    std::mt19937 rng(seed + kind);
    AmpHarness h(mac_program(type, steps, w_bytes), amp_params(f16_macs, f32_macs, quantum));
    RefAmp ref(kAmpMaxRows);
    std::vector<uint16_t> w16, x16;
    std::vector<uint32_t> w32, x32;
    for (uint32_t k = 0; k < steps; ++k) {
      ref.w.assign(rows * 4, 0);
      for (uint32_t e = 0; e < rows * 4; ++e) {
        if (type == kF16) {
          w16.push_back(random_half(rng, kind));
          ref.w[e] = ref_half(w16.back());
        } else {
          w32.push_back(random_float(rng, kind));
          ref.w[e] = w32.back();
        }
      }
      uint32_t x[4];
      for (uint32_t& v : x) {
        if (type == kF16) {
          x16.push_back(random_half(rng, kind));
          v = ref_half(x16.back());
        } else {
          x32.push_back(random_float(rng, kind));
          v = x32.back();
        }
      }
      ref.mac(x, rows);
    }
    if (type == kF16) {
      put(h, kW, w16);
      put(h, kX, x16);
    } else {
      put(h, kW, w32);
      put(h, kX, x32);
    }
    h.run_ok();
    EXPECT_EQ(words(h, kOut, rows), ref.stored(rows));
    EXPECT_EQ(h.x(s1), kX + steps * (type == kF16 ? 8 : 16));  // rd = rs1 + 8 / 16
    EXPECT_EQ(h.fcsr(), 0u);
  }
}

// ---- numerics --------------------------------------------------------------------------

TEST(IssAmp, F16MatchesTheReference) {
  check_random_macs(kF16, 64, 16, 1024, 100);
  check_random_macs(kF16, 64, 16, 1, 200);  // the stepping loop
  check_random_macs(kF16, 32, 8, 1024, 300);  // GC2: R16 = 8
}

TEST(IssAmp, F32MatchesTheReference) {
  check_random_macs(kF32, 64, 16, 1024, 400);
  check_random_macs(kF32, 64, 16, 1, 500);
  check_random_macs(kF32, 32, 8, 1024, 600);   // GC2: R32 = 2 (not a multiple of 4)
  check_random_macs(kF32, 64, 24, 1024, 700);  // R32 = 6: a vector of 4 rows and 2 more
}

// Hand-computed results for the special values of the rule.
TEST(IssAmp, F16SpecialValues) {
  // x = (1, 0, 1, 2); one row per case, unused entries +0.
  const std::vector<uint16_t> x = {0x3c00, 0x0000, 0x3c00, 0x4000};
  std::vector<uint16_t> w(16 * 4, 0);
  auto row = [&](int i, uint16_t a, uint16_t b, uint16_t c, uint16_t d) {
    w[i * 4 + 0] = a, w[i * 4 + 1] = b, w[i * 4 + 2] = c, w[i * 4 + 3] = d;
  };
  row(0, 0x0001, 0, 0, 0);       // smallest subnormal: 2^-24
  row(1, 0x03ff, 0, 0, 0);       // largest subnormal: 1023 * 2^-24
  row(2, 0x8001, 0, 0, 0);       // -2^-24
  row(3, 0, 0x7c00, 0, 0);       // inf * 0: NaN, canonical
  row(4, 0, 0, 0xfe01, 0);       // a negative NaN with a payload: canonical
  row(5, 0, 0, 0x7d00, 0);       // a signalling NaN: canonical
  row(6, 0x8000, 0, 0x8000, 0);  // +0 + -0 + -0 in RNE: +0
  row(7, 0, 0, 0, 0x7bff);       // 65504 * 2 = 131008
  row(8, 0x7c00, 0, 0xfc00, 0);  // inf + -inf: NaN
  row(9, 0x7c00, 0, 0, 0x3c00);  // inf + 2: inf
  row(10, 0x3555, 0, 0, 0);      // 0x3555 = 0.333251953125 exactly
  row(11, 0x0400, 0, 0, 0x8400); // smallest normal 2^-14, minus 2 * 2^-14: -2^-14
  Asm a = mac_program(kF16, 1, 0);
  AmpHarness h(a, amp_params());
  put(h, kW, w);
  put(h, kX, x);
  h.run_ok();
  const std::vector<uint32_t> out = words(h, kOut, 16);
  EXPECT_EQ(out[0], 0x33800000u);
  EXPECT_EQ(out[1], 0x387fc000u);
  EXPECT_EQ(out[2], 0xb3800000u);
  EXPECT_EQ(out[3], 0x7fc00000u);
  EXPECT_EQ(out[4], 0x7fc00000u);
  EXPECT_EQ(out[5], 0x7fc00000u);
  EXPECT_EQ(out[6], 0x00000000u);
  EXPECT_EQ(out[7], fbits(131008.0f));
  EXPECT_EQ(out[8], 0x7fc00000u);
  EXPECT_EQ(out[9], 0x7f800000u);
  EXPECT_EQ(out[10], fbits(0.333251953125f));
  EXPECT_EQ(out[11], fbits(-std::ldexp(1.0f, -14)));
  for (int i = 12; i < 16; ++i) EXPECT_EQ(out[i], 0u) << i;
}

// The four products of a row are added one at a time, in column order, each sum rounded:
// 2^24 + 1 rounds back to 2^24 in f32, so a row's result depends on where its large
// products stand. In f32 each product is rounded before it is added (no fused multiply-add).
TEST(IssAmp, AccumulatesInColumnOrderWithRoundedProducts) {
  {
    SCOPED_TRACE("f16");
    const std::vector<uint16_t> x = {0x7000, 0x3c00, 0x3c00, 0x7000};  // 8192, 1, 1, 8192
    std::vector<uint16_t> w(16 * 4, 0);
    w[0] = 0x6800, w[1] = 0x3c00, w[2] = 0x3c00, w[3] = 0xe800;  // 2^24, 1, 1, -2^24: 0
    w[4] = 0xe800, w[5] = 0x3c00, w[6] = 0x3c00, w[7] = 0x6800;  // -2^24, 1, 1, 2^24: 2
    AmpHarness h(mac_program(kF16, 1, 0), amp_params());
    put(h, kW, w);
    put(h, kX, x);
    h.run_ok();
    EXPECT_EQ(h.mem32(kOut), 0u);
    EXPECT_EQ(h.mem32(kOut + 4), fbits(2.0f));
  }
  {
    SCOPED_TRACE("f16, the accumulator first");
    // Row W = (2048, -2048, 1, 0). Step 1, x = (8192, 0, 0, 0): acc = 2^24. Step 2,
    // x = (2^-11, 8192, 1, 0): products 1, -2^24, 1, 0: ((2^24 + 1) - 2^24) + 1 = 1. Adding
    // the products first would give 2, taking p1 before p0 also 2.
    const std::vector<uint16_t> x = {0x7000, 0, 0, 0, 0x1000, 0x7000, 0x3c00, 0};
    std::vector<uint16_t> w(16 * 4, 0);
    w[0] = 0x6800, w[1] = 0xe800, w[2] = 0x3c00;
    AmpHarness h(mac_program(kF16, 2, 0), amp_params());
    put(h, kW, w);
    put(h, kX, x);
    h.run_ok();
    EXPECT_EQ(h.mem32(kOut), fbits(1.0f));
  }
  {
    SCOPED_TRACE("f32");
    const uint32_t two24 = fbits(16777216.0f), one = fbits(1.0f), one_ulp = 0x3f800001u;
    const std::vector<uint32_t> x = {two24, one, one_ulp, one};
    const std::vector<uint32_t> w = {
        one, one, 0, fbits(-16777216.0f),  // 2^24, 1, 0, -2^24: 0
        0, 0xbf800002u, one_ulp, 0,        // -(1 + 2^-22) + (1 + 2^-23)^2: the product rounds
                                           // to 1 + 2^-22, so 0 (fused: 2^-46)
        fbits(-1.0f), one, 0, one,         // -2^24, 1, 0, 1: -2^24 + 2
        0, 0, 0, 0};
    AmpHarness h(mac_program(kF32, 1, 0), amp_params());
    put(h, kW, w);
    put(h, kX, x);
    h.run_ok();
    EXPECT_EQ(words(h, kOut, 4), (std::vector<uint32_t>{0, 0, fbits(-16777214.0f), 0}));
    RefAmp ref(kAmpMaxRows);
    ref.w = w;
    ref.mac(x.data(), 4);
    EXPECT_EQ(words(h, kOut, 4), ref.stored(4));
  }
}

// f16 and f32 share the accumulators: f32 macs update rows 0..R32-1, f16 macs rows
// 0..R16-1, amp.st.<type> stores R of its type, amp.clr clears them all.
TEST(IssAmp, TypesShareTheAccumulators) {
  Asm a;
  a.li(s0, kW);
  a.li(s1, kX);
  a.li(s2, kOut);
  a.amp_ldw(kF32, s0);          // 4 rows of f32 at kW
  a.amp_mac(kF32, zero, s1);    // x at kX (16 bytes)
  a.addi(s0, s0, 64);
  a.addi(s1, s1, 16);
  a.amp_ldw(kF16, s0);          // 16 rows of f16 at kW + 64
  a.amp_mac(kF16, t0, s1);      // x at kX + 16
  a.amp_st(kF16, s2);           // 16 words
  a.addi(s2, s2, 64);
  a.amp_st(kF32, s2);           // 4 words
  a.amp_clr(kF32);              // clears every accumulator
  a.addi(s2, s2, 16);
  a.amp_st(kF16, s2);
  a.halt(zero);
  std::mt19937 rng(9);
  std::vector<uint32_t> w32(16), x32(4);
  std::vector<uint16_t> w16(64), x16(4);
  for (auto& v : w32) v = random_float(rng, 1);
  for (auto& v : x32) v = random_float(rng, 1);
  for (auto& v : w16) v = random_half(rng, 1);
  for (auto& v : x16) v = random_half(rng, 1);
  RefAmp ref(kAmpMaxRows);
  ref.w = w32;
  ref.mac(x32.data(), 4);
  ref.w.clear();
  for (uint16_t v : w16) ref.w.push_back(ref_half(v));
  uint32_t xh[4];
  for (int j = 0; j < 4; ++j) xh[j] = ref_half(x16[j]);
  ref.mac(xh, 16);
  AmpHarness h(a, amp_params());
  put(h, kW, w32);
  put(h, kW + 64, w16);
  put(h, kX, x32);
  put(h, kX + 16, x16);
  h.run_ok();
  EXPECT_EQ(words(h, kOut, 16), ref.stored(16));
  EXPECT_EQ(words(h, kOut + 64, 4), ref.stored(4));
  EXPECT_EQ(words(h, kOut + 80, 16), std::vector<uint32_t>(16, 0));
  EXPECT_EQ(h.x(t0), kX + 24);
}

// ---- rows, CSRs, timing ----------------------------------------------------------------

TEST(IssAmp, RowsComeFromTheParamsAndTheCsrs) {
  Asm a;
  a.csrr(a0, kRows16);
  a.csrr(a1, kRows32);
  a.li(s0, kW);
  a.li(s2, kOut);
  a.amp_ldw(kF16, s0);
  a.amp_mac(kF16, zero, s0);    // x = the first 4 weights
  a.amp_st(kF16, s2);
  a.addi(s2, s2, 512);
  a.amp_st(kF32, s2);
  a.halt(zero);
  struct Case { uint32_t f16, f32, r16, r32; };
  for (const Case c : {Case{64, 16, 16, 4}, Case{32, 8, 8, 2}, Case{256, 256, 64, 64}, Case{4, 4, 1, 1}}) {
    SCOPED_TRACE(c.f16);
    AmpHarness h(a, amp_params(c.f16, c.f32));
    std::vector<uint16_t> w(64 * 4, 0x3c00);  // all ones
    put(h, kW, w);
    put(h, kOut, std::vector<uint32_t>(64 + 1, 0xdeadbeef));
    put(h, kOut + 512, std::vector<uint32_t>(64 + 1, 0xdeadbeef));
    h.run_ok();
    EXPECT_EQ(h.x(a0), c.r16);
    EXPECT_EQ(h.x(a1), c.r32);
    // R16 rows of 1*1 + 1*1 + 1*1 + 1*1, then the unused sentinel.
    EXPECT_EQ(words(h, kOut, c.r16), std::vector<uint32_t>(c.r16, fbits(4.0f)));
    EXPECT_EQ(h.mem32(kOut + 4 * c.r16), 0xdeadbeefu);
    // amp.st.f32 stores R32 accumulators (the same shared ones).
    const uint32_t shared = std::min(c.r16, c.r32);
    EXPECT_EQ(words(h, kOut + 512, shared), std::vector<uint32_t>(shared, fbits(4.0f)));
    EXPECT_EQ(h.mem32(kOut + 512 + 4 * c.r32), 0xdeadbeefu);
  }
}

TEST(IssAmp, ParamsAreValidated) {
  Asm a;
  a.halt(zero);
  for (auto [f16, f32] : {std::pair{30u, 16u}, std::pair{64u, 6u}, std::pair{260u, 16u}, std::pair{64u, 1024u}}) {
    SCOPED_TRACE(f16);
    try {
      AmpHarness h(a, amp_params(f16, f32));
      ADD_FAILURE() << "accepted";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(f16 % 4 || f16 > 256 ? "amp_f16_macs" : "amp_f32_macs"), std::string::npos)
          << e.what();
    }
  }
  EXPECT_NO_THROW(AmpHarness(a, amp_params(0, 0)));
}

TEST(IssAmp, AmprowsCsrsAreReadOnly) {
  Asm a;
  a.addi(t0, zero, 4);
  a.csrw(kRows16, t0);
  AmpHarness h(a, amp_params());
  h.run();
  ASSERT_EQ(h.stop.reason, StopReason::Fault);
  EXPECT_EQ(h.stop.fault->kind, "illegal instruction");
  EXPECT_EQ(h.stop.fault->detail, "write to read-only CSR amprows16");
}

TEST(IssAmp, EveryAmpInstructionTakesOneSlot) {
  Asm a;
  a.li(s0, kW);
  a.csrr(a0, kCycle);
  a.amp_clr(kF16);
  a.amp_ldw(kF16, s0);
  a.amp_mac(kF16, s1, s0);
  a.amp_ldw(kF32, s0);
  a.amp_mac(kF32, s1, s0);
  a.amp_st(kF32, s0);
  a.csrr(a1, kCycle);
  a.halt(zero);
  AmpHarness h(a, amp_params());
  h.run_ok();
  EXPECT_EQ(h.x(a1) - h.x(a0), 7u * 6);
  EXPECT_EQ(h.core.thread_stats(0).instret, 11u);
}

// ---- fflags ----------------------------------------------------------------------------

// The AMP's products and sums raise invalid, overflow, underflow and inexact on the host,
// none of which may reach fflags; flags set before stay exactly as they are; a later F
// instruction still reports its own flags. frm does not apply to the AMP (always RNE).
TEST(IssAmp, LeavesFflagsAloneAndIgnoresFrm) {
  Asm a;
  a.li(s0, kW);
  a.li(s1, kX);
  a.li(s2, kOut);
  a.csrrwi(zero, 0x002, 3);     // frm = RUP
  a.csrrwi(zero, kFflags, 0);
  a.amp_ldw(kF32, s0);
  a.amp_mac(kF32, zero, s1);
  a.amp_st(kF32, s2);
  a.addi(s3, s0, 64);
  a.addi(s4, s1, 16);
  a.addi(s5, s2, 64);
  a.amp_clr(kF16);
  a.amp_ldw(kF16, s3);
  a.amp_mac(kF16, zero, s4);
  a.amp_st(kF16, s5);
  a.csrr(a0, kFflags);          // 0
  a.csrrwi(zero, kFflags, 0x10);
  a.amp_ldw(kF32, s0);
  a.amp_mac(kF32, zero, s1);
  a.csrr(a1, kFflags);          // still NV only
  a.csrrwi(zero, kFflags, 0);
  a.flw(1, 0, s1);              // 3e38
  a.fadd(2, 1, 1);              // OF | NX
  a.amp_ldw(kF32, s0);
  a.amp_mac(kF32, zero, s1);
  a.csrr(a2, kFflags);
  a.halt(zero);
  const uint32_t one_ulp = 0x3f800001u;
  const std::vector<uint32_t> w32 = {0, fbits(INFINITY), 0, 0,   // inf * 0: invalid, NaN
                                     fbits(2.0f), 0, 0, 0,       // 2 * 3e38: overflow
                                     0, 0, fbits(1e-30f), 0,     // 1e-30 * 1e-20: underflow to 0
                                     0, 0, 0, one_ulp};          // inexact; RUP would round up
  const std::vector<uint32_t> x32 = {fbits(3e38f), 0, fbits(1e-20f), one_ulp};
  std::vector<uint16_t> w16(64, 0);
  w16[0] = 0x7c00;                       // inf * 0: invalid
  w16[5] = 0x3c00, w16[6] = 0x7bff;      // 1 + 65504^2: inexact in f32
  w16[8] = 0x7d00;                       // a signalling NaN (invalid, if converted by F16C)
  const std::vector<uint16_t> x16 = {0x0000, 0x3c00, 0x7bff, 0x3c00};
  RefAmp ref32(kAmpMaxRows), ref16(kAmpMaxRows);
  ref32.w = w32;
  ref32.mac(x32.data(), 4);
  for (uint16_t v : w16) ref16.w.push_back(ref_half(v));
  uint32_t xh[4];
  for (int j = 0; j < 4; ++j) xh[j] = ref_half(x16[j]);
  ref16.mac(xh, 16);
  EXPECT_EQ(ref32.stored(4), (std::vector<uint32_t>{fpu::kCanonicalNan, 0x7f800000u, 0, 0x3f800002u}));
  // A trace sink that does float arithmetic of its own (raising the host's inexact flag),
  // called between the instructions of a run of AMP instructions.
  struct FloatTrace : TraceSink {
    volatile float num = 1.0f, den = 3.0f, sink = 0.0f;
    unsigned retired = 0;
    void retire(const TileIdentity&, const Program&, const RetiredInsn&) override {
      sink = num / den;
      ++retired;
    }
  };
  for (uint32_t q : {1u, 1024u, 0u}) {  // 0: quantum 1024 with tracing (the stepping loop)
    SCOPED_TRACE(q);
    FloatTrace trace;
    AmpHarness h(a, amp_params(64, 16, q == 0 ? 1024 : q));
    if (q == 0) h.core.set_trace(&trace);
    put(h, kW, w32);
    put(h, kX, x32);
    put(h, kW + 64, w16);
    put(h, kX + 16, x16);
    h.run_ok();
    if (q == 0) {
      EXPECT_EQ(trace.retired, h.core.instret());
    }
    EXPECT_EQ(h.x(a0), 0u);
    EXPECT_EQ(h.x(a1), 0x10u);
    EXPECT_EQ(h.x(a2), fpu::OF | fpu::NX);
    EXPECT_EQ(words(h, kOut, 4), ref32.stored(4));
    EXPECT_EQ(words(h, kOut + 64, 16), ref16.stored(16));
  }
}

// A worker's quantum can end between two AMP instructions of one run (thread_quantum 1,
// 2, 3): the flags of the AMP's arithmetic still stay out of fflags.
TEST(IssAmp, LeavesFflagsAloneWhenAQuantumEndsInsideARun) {
  Asm a;
  a.la(t0, "worker");
  a.run(zero, t0, zero);
  a.join();
  a.halt(zero);
  a.label("worker");
  a.li(s0, kW);
  a.li(s1, kX);
  a.li(s2, kOut);
  a.amp_ldw(kF32, s0);
  a.amp_mac(kF32, s1, s1);  // inf * 0, overflow, underflow, inexact (rows as below)
  a.amp_mac(kF32, s1, s1);
  a.amp_ldw(kF32, s0);
  a.amp_mac(kF32, s1, s1);
  a.amp_st(kF32, s2);
  a.csrr(a0, kFflags);
  a.wexit(a0);
  const std::vector<uint32_t> w32 = {0, fbits(INFINITY), 0, 0, fbits(2.0f), 0, 0, 0,
                                     0, 0, fbits(1e-30f), 0, 0, 0, 0, 0x3f800001u};
  std::vector<uint32_t> x32;
  for (int k = 0; k < 3; ++k)
    for (uint32_t v : {fbits(3e38f), 0u, fbits(1e-20f), 0x3f800001u}) x32.push_back(v);
  for (uint32_t q : {1u, 2u, 3u, 1024u}) {
    SCOPED_TRACE(q);
    AmpHarness h(a, amp_params(64, 16, q));
    put(h, kW, w32);
    put(h, kX, x32);
    h.run_ok();
    EXPECT_EQ(h.core.thread_stats(1).last_status, 0);
    EXPECT_EQ(h.fcsr(1), 0u);
    EXPECT_EQ(h.mem32(kOut + 4), 0x7f800000u);  // the arithmetic did happen
  }
}

// ---- the state is per thread -----------------------------------------------------------

// Each thread has its own W and accumulators; a started worker gets a fresh state, as it
// gets fresh registers.
TEST(IssAmp, StateIsPerThreadAndFreshAtWorkerStart) {
  Asm a;
  a.li(s0, kW);
  a.li(s1, kX);
  a.amp_ldw(kF32, s0);          // the supervisor's W: rows of ones
  a.la(t0, "worker");
  a.li(a0, kW + 64);            // the worker's W: rows of twos
  a.run(zero, t0, a0);
  a.join();
  a.amp_mac(kF32, zero, s1);    // still the supervisor's W
  a.li(s2, kOut);
  a.amp_st(kF32, s2);
  a.la(t0, "fresh");
  a.run(zero, t0, zero);        // context 1 again
  a.join();
  a.halt(zero);
  a.label("worker");
  a.amp_ldw(kF32, a0);
  a.li(t1, kX);
  a.amp_mac(kF32, zero, t1);
  a.li(t2, kOut + 16);
  a.amp_st(kF32, t2);
  a.wexit(zero);
  a.label("fresh");
  a.li(t2, kOut + 32);
  a.amp_st(kF32, t2);           // zero accumulators
  a.li(t1, kX);
  a.label("bad");
  a.amp_mac(kF32, zero, t1);    // no weights since this start
  a.wexit(zero);
  AmpHarness h(a, amp_params());
  put(h, kW, std::vector<float>(16, 1.0f));
  put(h, kW + 64, std::vector<float>(16, 2.0f));
  put(h, kX, std::vector<float>{1.0f, 1.0f, 1.0f, 1.0f});
  put(h, kOut + 32, std::vector<uint32_t>(4, 0xdeadbeef));
  h.run();
  ASSERT_EQ(h.stop.reason, StopReason::Fault);
  EXPECT_EQ(h.stop.fault->thread, 1u);
  EXPECT_EQ(h.stop.fault->pc, a.addr("bad"));
  EXPECT_EQ(h.stop.fault->detail, "amp.mac.f32 with no weights loaded (amp.ldw.f32 first)");
  EXPECT_EQ(words(h, kOut, 4), std::vector<uint32_t>(4, fbits(4.0f)));
  EXPECT_EQ(words(h, kOut + 16, 4), std::vector<uint32_t>(4, fbits(8.0f)));
  EXPECT_EQ(words(h, kOut + 32, 4), std::vector<uint32_t>(4, 0u));
}

// ---- faults ----------------------------------------------------------------------------

struct AmpFault {
  const char* name;
  void (*emit)(Asm&);  // s0 = kW, s1 = kX, s2 = kOut; the faulting instruction is "bad"
  const char* kind;
  const char* detail;
  const char* disasm;
  uint32_t f16_macs = 64;
};

const AmpFault kAmpFaults[] = {
    {"misaligned ldw", [](Asm& a) { a.addi(s0, s0, 2); a.label("bad"); a.amp_ldw(kF16, s0); }, "misaligned access",
     "amp.ldw.f16 weights of 128 bytes at 0x00050002 (needs 4-byte alignment)", "amp.ldw.f16 s0"},
    {"misaligned f16 mac", [](Asm& a) { a.amp_ldw(kF16, s0); a.addi(s1, s1, 4); a.label("bad"); a.amp_mac(kF16, s1, s1); },
     "misaligned access", "amp.mac.f16 inputs of 8 bytes at 0x00058004 (needs 8-byte alignment)", "amp.mac.f16 s1, s1"},
    {"misaligned f32 mac", [](Asm& a) { a.amp_ldw(kF32, s0); a.addi(s1, s1, 8); a.label("bad"); a.amp_mac(kF32, s1, s1); },
     "misaligned access", "amp.mac.f32 inputs of 16 bytes at 0x00058008 (needs 16-byte alignment)", "amp.mac.f32 s1, s1"},
    {"misaligned st", [](Asm& a) { a.addi(s2, s2, 1); a.label("bad"); a.amp_st(kF32, s2); }, "misaligned access",
     "amp.st.f32 accumulators of 16 bytes at 0x0005c001 (needs 4-byte alignment)", "amp.st.f32 s2"},
    {"ldw past SRAM", [](Asm& a) { a.li(s0, 0x7ffc0); a.label("bad"); a.amp_ldw(kF16, s0); }, "access fault",
     "amp.ldw.f16 weights of 128 bytes at 0x0007ffc0 outside SRAM [0x00040000, 0x00080000)", "amp.ldw.f16 s0"},
    {"ldw past SRAM after a good one", [](Asm& a) { a.amp_ldw(kF32, s0); a.li(s0, 0x7fff0); a.label("bad"); a.amp_ldw(kF32, s0); },
     "access fault", "amp.ldw.f32 weights of 64 bytes at 0x0007fff0 outside SRAM", "amp.ldw.f32 s0"},
    {"null mac", [](Asm& a) { a.amp_ldw(kF16, s0); a.label("bad"); a.amp_mac(kF16, s1, zero); }, "access fault",
     "amp.mac.f16 inputs of 8 bytes at 0x00000000 outside SRAM [0x00040000, 0x00080000)", "amp.mac.f16 s1, zero"},
    {"st into code", [](Asm& a) { a.li(s2, 0x40000); a.label("bad"); a.amp_st(kF16, s2); }, "access fault",
     "amp.st.f16 accumulators of 64 bytes at 0x00040000 into code [0x00040000, 0x", "amp.st.f16 s2"},
    {"mac before ldw", [](Asm& a) { a.label("bad"); a.amp_mac(kF16, s1, s1); }, "illegal instruction",
     "amp.mac.f16 with no weights loaded (amp.ldw.f16 first)", "amp.mac.f16 s1, s1"},
    {"f16 mac on f32 weights", [](Asm& a) { a.amp_ldw(kF32, s0); a.label("bad"); a.amp_mac(kF16, s1, s1); },
     "illegal instruction", "amp.mac.f16 with f32 weights loaded (the last amp.ldw was amp.ldw.f32)",
     "amp.mac.f16 s1, s1"},
    {"f32 mac on f16 weights", [](Asm& a) { a.amp_ldw(kF16, s0); a.label("bad"); a.amp_mac(kF32, s1, s1); },
     "illegal instruction", "amp.mac.f32 with f16 weights loaded (the last amp.ldw was amp.ldw.f16)",
     "amp.mac.f32 s1, s1"},
    {"no f16 AMP", [](Asm& a) { a.label("bad"); a.amp_ldw(kF16, s0); }, "illegal instruction",
     "amp.ldw.f16: this tile has no f16 AMP (amp_f16_macs = 0)", "amp.ldw.f16 s0", 0},
    {"worker type mismatch",
     [](Asm& a) {
       a.amp_ldw(kF16, s0);  // the supervisor's W says nothing about the worker's
       a.la(t0, "worker"); a.run(zero, t0, zero); a.join(); a.halt(zero);
       a.label("worker"); a.li(s1, kX); a.label("bad"); a.amp_mac(kF16, s1, s1);
     },
     "illegal instruction", "amp.mac.f16 with no weights loaded", "amp.mac.f16 s1, s1"},
    {"undefined AMP encoding", [](Asm& a) { a.label("bad"); a.word(r_type(2, 0, s1, 1, s1, 0x2b)); },
     "illegal instruction", "undefined encoding", ".word 0x040494ab"},
    {"mac into bank 8", [](Asm& a) { a.amp_ldw(kF16, s0); a.label("bad"); a.amp_mac(kF16, s1, s1, 8); },
     "illegal instruction", "undefined encoding", ".word 0x008494ab"},
    {"st from bank 9", [](Asm& a) { a.label("bad"); a.amp_st(kF32, s2, 9); },
     "illegal instruction", "undefined encoding", ".word 0x0299202b"},
};

TEST(IssAmp, Faults) {
  for (const AmpFault& c : kAmpFaults) {
    SCOPED_TRACE(c.name);
    Asm a;
    a.li(s0, kW);
    a.li(s1, kX);
    a.li(s2, kOut);
    c.emit(a);
    a.halt(zero);
    AmpHarness h(a, amp_params(c.f16_macs, 16));
    h.run();
    expect_fault_at_bad(h.stop, a, c.kind, c.detail, c.disasm, std::nullopt);  // some in a worker
  }
}

// ---- accumulator banks ------------------------------------------------------------------

// `steps` times: amp.ldw W_k, then one amp.mac per bank b (x walks 8 consecutive vectors,
// the GEMM kernel's pattern); then amp.st of bank b to kOut + 256 b.
Asm bank_program(uint32_t type, uint32_t steps, uint32_t w_step_bytes) {
  Asm a;
  a.li(s0, kW);
  a.li(s1, kX);
  a.li(s2, kOut);
  a.li(s3, steps);
  a.amp_clr(type);
  a.label("loop");
  a.amp_ldw(type, s0);
  for (uint32_t b = 0; b < kBanks; ++b) a.amp_mac(type, s1, s1, b);
  a.addi(s0, s0, static_cast<int32_t>(w_step_bytes));
  a.addi(s3, s3, -1);
  a.bne(s3, zero, "loop");
  for (uint32_t b = 0; b < kBanks; ++b) {
    a.amp_st(type, s2, b);
    a.addi(s2, s2, 256);
  }
  a.halt(zero);
  return a;
}

// Every bank accumulates its own column, bit for bit as the reference (one RefAmp per
// bank), on the fast path (quantum 1024) and the stepping loop (quantum 1), for R a
// multiple of 8, of 4 only, and 2.
TEST(IssAmpBanks, EachBankAccumulatesIndependentlyAndBitExact) {
  constexpr uint32_t kSteps = 16;
  struct Case { uint32_t f16, f32; };
  for (const Case c : {Case{64, 16}, Case{32, 8}, Case{256, 256}})
    for (uint32_t type : {kF16, kF32})
      for (uint32_t quantum : {1024u, 1u})
        for (int kind = 0; kind < 2; ++kind) {
          const uint32_t rows = (type == kF16 ? c.f16 : c.f32) / 4;
          SCOPED_TRACE(::testing::Message() << "type " << type << " rows " << rows << " quantum " << quantum
                                            << " kind " << kind);
          const uint32_t w_bytes = rows * 4 * (type == kF16 ? 2 : 4);
          std::mt19937 rng(77 + kind + 10 * rows + type);
          std::vector<RefAmp> ref(kBanks, RefAmp(kAmpMaxRows));
          std::vector<uint16_t> w16, x16;
          std::vector<uint32_t> w32, x32;
          for (uint32_t k = 0; k < kSteps; ++k) {
            std::vector<uint32_t> w;
            for (uint32_t i = 0; i < rows * 4; ++i) {
              if (type == kF16) {
                w16.push_back(random_half(rng, kind));
                w.push_back(ref_half(w16.back()));
              } else {
                w32.push_back(random_float(rng, kind));
                w.push_back(w32.back());
              }
            }
            for (uint32_t b = 0; b < kBanks; ++b) {
              uint32_t x[4];
              for (uint32_t& v : x) {
                if (type == kF16) {
                  x16.push_back(random_half(rng, kind));
                  v = ref_half(x16.back());
                } else {
                  x32.push_back(random_float(rng, kind));
                  v = x32.back();
                }
              }
              ref[b].w = w;
              ref[b].mac(x, rows);
            }
          }
          AmpHarness h(bank_program(type, kSteps, w_bytes), amp_params(c.f16, c.f32, quantum));
          if (type == kF16) {
            put(h, kW, w16);
            put(h, kX, x16);
          } else {
            put(h, kW, w32);
            put(h, kX, x32);
          }
          h.run_ok();
          for (uint32_t b = 0; b < kBanks; ++b) {
            SCOPED_TRACE(b);
            EXPECT_EQ(words(h, kOut + 256 * b, rows), ref[b].stored(rows));
          }
          EXPECT_EQ(h.x(s1), kX + kSteps * kBanks * (type == kF16 ? 8 : 16));
        }
}

// amp.clr clears every bank; banks other than the one named are untouched.
TEST(IssAmpBanks, ClrClearsEveryBank) {
  Asm a;
  a.li(s0, kW);
  a.li(s2, kOut);
  a.amp_ldw(kF16, s0);
  for (uint32_t b = 0; b < kBanks; ++b) a.amp_mac(kF16, zero, s0, b);  // x = the first 4 weights
  a.amp_clr(kF32);
  a.amp_mac(kF16, zero, s0, 3);
  a.amp_mac(kF16, zero, s0, 3);
  for (uint32_t b = 0; b < kBanks; ++b) {
    a.amp_st(kF16, s2, b);
    a.addi(s2, s2, 64);
  }
  a.halt(zero);
  for (uint32_t quantum : {1024u, 1u}) {
    SCOPED_TRACE(quantum);
    AmpHarness h(a, amp_params(64, 16, quantum));
    put(h, kW, std::vector<uint16_t>(16 * 4, 0x3c00));  // all ones
    put(h, kOut, std::vector<uint32_t>(16 * kBanks, 0xdeadbeef));
    h.run_ok();
    for (uint32_t b = 0; b < kBanks; ++b) {
      SCOPED_TRACE(b);
      EXPECT_EQ(words(h, kOut + 64 * b, 16), std::vector<uint32_t>(16, b == 3 ? fbits(8.0f) : 0u));
    }
  }
}

// The banks of one bank number are shared by both types, like the accumulators of bank 0.
TEST(IssAmpBanks, TypesShareEachBank) {
  Asm a;
  a.li(s0, kW);
  a.li(s2, kOut);
  a.amp_ldw(kF32, s0);                // 4 rows of 1.0f
  a.amp_mac(kF32, zero, s0, 6);       // x = 1.0f x 4: rows 0..3 of bank 6 = 4
  a.addi(s0, s0, 64);
  a.amp_ldw(kF16, s0);                // 16 rows of f16 1.0
  a.amp_mac(kF16, zero, s0, 6);       // all 16 rows of bank 6 += 4
  a.amp_st(kF16, s2, 6);
  a.addi(s2, s2, 64);
  a.amp_st(kF32, s2, 5);              // bank 5: untouched, zero
  a.halt(zero);
  AmpHarness h(a, amp_params());
  put(h, kW, std::vector<float>(16, 1.0f));
  put(h, kW + 64, std::vector<uint16_t>(64, 0x3c00));
  h.run_ok();
  std::vector<uint32_t> want(16, fbits(4.0f));
  for (int i = 0; i < 4; ++i) want[i] = fbits(8.0f);
  EXPECT_EQ(words(h, kOut, 16), want);
  EXPECT_EQ(words(h, kOut + 64, 4), std::vector<uint32_t>(4, 0u));
}

TEST(IssAmpBanks, AmpbanksCsrIsEightAndReadOnly) {
  Asm a;
  a.csrr(a0, kBanksCsr);
  a.halt(zero);
  AmpHarness h(a, amp_params());
  h.run_ok();
  EXPECT_EQ(h.x(a0), kBanks);

  Asm w;
  w.addi(t0, zero, 4);
  w.label("bad");
  w.csrw(kBanksCsr, t0);
  w.halt(zero);
  AmpHarness hw(w, amp_params());
  hw.run();
  ASSERT_EQ(hw.stop.reason, StopReason::Fault);
  EXPECT_EQ(hw.stop.fault->kind, "illegal instruction");
  EXPECT_EQ(hw.stop.fault->detail, "write to read-only CSR ampbanks");
  EXPECT_EQ(hw.stop.fault->pc, w.addr("bad"));
}

}  // namespace
