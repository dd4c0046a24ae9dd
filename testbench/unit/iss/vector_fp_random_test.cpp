// The vector FP instructions (docs/xipu.md "Vector arithmetic") on random and special
// operands, run by the ISS and checked bit for bit, fflags included, against references
// written independently of tlm/iss/vector_fp.cpp and f16_math.h:
//  - f32 lanes: the ISS's scalar semantics, the exact fpu:: functions (fadd / fsub / fmul /
//    fmadd.s at RNE), one lane at a time, flags ORed;
//  - f16 lanes and the conversions: the exact value as an integer in units of 2^-48 (every
//    f16 sum and product is one), rounded by searching the sorted table of all finite
//    f16 values for the nearest, ties to the even encoding; tininess from the threshold
//    2^-14 - 2^-26 (below it, rounding with an unbounded exponent stays below 2^-14).
// Over 10^6 lane operations in all, in batches of records the program walks through.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "iss/fpu.h"
#include "iss_harness.h"

namespace {

using namespace isstest;
using namespace rvasm;
namespace fpu = ipusim::iss::fpu;
__extension__ typedef __int128 i128;
__extension__ typedef unsigned __int128 u128;

constexpr uint32_t kFflags = 0x001;
constexpr uint32_t kBase = 0x48000, kRecords = 3072, kRecordWords = 16;  // 192 KiB of records
constexpr uint32_t kBatches = 8;  // per instruction: 14 * 8 * 3072 records, 1.03e6 lanes

// ---- the f16 reference ------------------------------------------------------------------

bool h_nan(uint16_t h) { return (h & 0x7c00) == 0x7c00 && (h & 0x3ff) != 0; }
bool h_snan(uint16_t h) { return h_nan(h) && (h & 0x200) == 0; }
bool h_inf(uint16_t h) { return (h & 0x7fff) == 0x7c00; }
bool h_neg(uint16_t h) { return (h & 0x8000) != 0; }
bool h_zero(uint16_t h) { return (h & 0x7fff) == 0; }

// |h| in units of 2^-24, from the fields: subnormal man, normal (1024 + man) * 2^(e - 1).
uint64_t h_units24(uint16_t h) {
  const uint32_t e = (h >> 10) & 31, man = h & 1023;
  return e == 0 ? man : uint64_t{1024 + man} << (e - 1);
}
i128 h_value48(uint16_t h) {  // signed, units of 2^-48
  const i128 v = static_cast<i128>(h_units24(h)) << 24;
  return h_neg(h) ? -v : v;
}

// All positive finite f16 values (encodings 0 .. 0x7bff are increasing), units of 2^-48.
const std::vector<u128>& f16_table() {
  static const std::vector<u128> t = [] {
    std::vector<u128> v(0x7c00);
    for (uint32_t i = 0; i < 0x7c00; ++i) v[i] = static_cast<u128>(h_units24(static_cast<uint16_t>(i))) << 24;
    return v;
  }();
  return t;
}

// Rounds a nonzero exact value (units of 2^-48) to f16, nearest with ties to even.
uint16_t ref_round16(i128 x, uint32_t& flags) {
  const bool neg = x < 0;
  const u128 mag = static_cast<u128>(neg ? -x : x);
  const uint16_t sign = neg ? 0x8000 : 0;
  const u128 overflow_at = u128{65520} << 48;  // halfway from 65504 to 2^16: ties go up (even)
  if (mag >= overflow_at) {
    flags |= fpu::OF | fpu::NX;
    return sign | 0x7c00;
  }
  const auto& t = f16_table();
  // The last entry <= mag, and the next one (65520 stands for the value past 65504).
  const size_t lo = static_cast<size_t>(std::upper_bound(t.begin(), t.end(), mag) - t.begin()) - 1;
  const u128 below = t[lo], above = lo + 1 < t.size() ? t[lo + 1] : u128{65536} << 48;
  if (below == mag) return static_cast<uint16_t>(sign | lo);
  flags |= fpu::NX;
  const u128 tiny_below = (u128{1} << 34) - (u128{1} << 22);  // 2^-14 - 2^-26
  if (mag < tiny_below) flags |= fpu::UF;
  size_t pick;
  if (mag - below != above - mag)
    pick = mag - below < above - mag ? lo : lo + 1;
  else
    pick = lo % 2 == 0 ? lo : lo + 1;
  return static_cast<uint16_t>(sign | pick);  // pick == 0x7c00 cannot happen below overflow_at
}

// An exact zero sum: -0 only when both terms are -0 (round to nearest).
uint16_t ref_zero_sum(bool neg1, bool zero1, bool neg2, bool zero2) {
  return zero1 && zero2 && neg1 && neg2 ? 0x8000 : 0;
}

uint16_t ref_nan(bool signalling, uint32_t& flags) {
  if (signalling) flags |= fpu::NV;
  return 0x7e00;
}

uint16_t ref_add16(uint16_t a, uint16_t b, uint32_t& flags) {
  if (h_nan(a) || h_nan(b)) return ref_nan(h_snan(a) || h_snan(b), flags);
  if (h_inf(a) && h_inf(b) && h_neg(a) != h_neg(b)) return ref_nan(true, flags);
  if (h_inf(a)) return a;
  if (h_inf(b)) return b;
  const i128 x = h_value48(a) + h_value48(b);
  if (x == 0) return ref_zero_sum(h_neg(a), h_zero(a), h_neg(b), h_zero(b));
  return ref_round16(x, flags);
}

uint16_t ref_mul16(uint16_t a, uint16_t b, uint32_t& flags) {
  if (h_nan(a) || h_nan(b)) return ref_nan(h_snan(a) || h_snan(b), flags);
  const uint16_t sign = (a ^ b) & 0x8000;
  if ((h_inf(a) && h_zero(b)) || (h_zero(a) && h_inf(b))) return ref_nan(true, flags);
  if (h_inf(a) || h_inf(b)) return sign | 0x7c00;
  if (h_zero(a) || h_zero(b)) return sign;
  const i128 x = static_cast<i128>(h_units24(a)) * static_cast<i128>(h_units24(b));  // units of 2^-48
  return ref_round16(sign ? -x : x, flags);
}

uint16_t ref_fma16(uint16_t a, uint16_t b, uint16_t c, uint32_t& flags) {
  const bool zero_times_inf = (h_inf(a) && h_zero(b)) || (h_zero(a) && h_inf(b));
  if (zero_times_inf) return ref_nan(true, flags);
  if (h_nan(a) || h_nan(b) || h_nan(c)) return ref_nan(h_snan(a) || h_snan(b) || h_snan(c), flags);
  const bool pneg = ((a ^ b) & 0x8000) != 0;
  if (h_inf(a) || h_inf(b)) {
    if (h_inf(c) && h_neg(c) != pneg) return ref_nan(true, flags);
    return pneg ? 0xfc00 : 0x7c00;
  }
  if (h_inf(c)) return c;
  const i128 p = static_cast<i128>(h_units24(a)) * static_cast<i128>(h_units24(b));
  const i128 x = (pneg ? -p : p) + h_value48(c);
  if (x == 0) return ref_zero_sum(pneg, p == 0, h_neg(c), h_zero(c));
  return ref_round16(x, flags);
}

uint16_t ref_f32_to_f16(uint32_t a, uint32_t& flags) {
  const uint16_t sign = static_cast<uint16_t>(a >> 16 & 0x8000);
  const uint32_t mag = a & 0x7fffffffu;
  if (mag > 0x7f800000u) return ref_nan((a & 0x00400000u) == 0, flags);
  if (mag == 0x7f800000u) return sign | 0x7c00;
  if (mag == 0) return sign;
  const int e = static_cast<int>(mag >> 23);
  if (e < 127 - 25) {  // below 2^-25 (half the least subnormal): to zero, underflow
    flags |= fpu::UF | fpu::NX;
    return sign;
  }
  if (e > 127 + 16) {  // at least 2^17: overflow
    flags |= fpu::OF | fpu::NX;
    return sign | 0x7c00;
  }
  // Now 2^-25 <= |a| < 2^17: the lsb of a (2^(e - 150) >= 2^-48) is a whole number of units.
  const i128 units = static_cast<i128>((mag & 0x7fffffu) | 0x800000u) << (e - 127 - 23 + 48);
  return ref_round16(sign ? -units : units, flags);
}

uint32_t ref_f16_to_f32(uint16_t h, uint32_t& flags) {
  if (h_nan(h)) {
    if (h_snan(h)) flags |= fpu::NV;
    return 0x7fc00000u;
  }
  if (h_inf(h)) return h_neg(h) ? 0xff800000u : 0x7f800000u;
  const double mag = std::ldexp(static_cast<double>(h_units24(h)), -24);
  return fbits(static_cast<float>(h_neg(h) ? -mag : mag));  // exact: 11 significant bits
}

// ---- operands ---------------------------------------------------------------------------

struct Gen {
  std::mt19937_64 rng{20261125};
  uint32_t bits(uint32_t n) { return static_cast<uint32_t>(rng()) & ((1u << n) - 1); }
  bool chance(uint32_t one_in) { return rng() % one_in == 0; }

  uint16_t f16() {
    static constexpr uint16_t special[] = {0x0000, 0x8000, 0x7c00, 0xfc00, 0x7e00, 0xfe00, 0x7c01, 0x7d55,
                                           0xfd00, 0x7fff, 0x0001, 0x8001, 0x03ff, 0x0400, 0x7bff, 0xfbff,
                                           0x3c00, 0xbc00, 0x3bff, 0x3c01, 0x5bff, 0x1400};
    switch (rng() % 8) {
      case 0: return special[rng() % std::size(special)];
      case 1: return static_cast<uint16_t>(bits(1) << 15 | bits(10));              // subnormal
      case 2: return static_cast<uint16_t>(bits(1) << 15 | (13 + bits(3)) << 10 | bits(10));  // near 1
      case 3: return static_cast<uint16_t>(bits(1) << 15 | (26 + bits(2)) << 10 | bits(10));  // large
      default: return static_cast<uint16_t>(bits(16));
    }
  }
  uint32_t f32() {
    static constexpr uint32_t special[] = {0x00000000u, 0x80000000u, 0x7f800000u, 0xff800000u, 0x7fc00000u,
                                           0x7f800001u, 0xffa00000u, 0x7fc12345u, 0x00000001u, 0x807fffffu,
                                           0x00800000u, 0x7f7fffffu, 0xff7fffffu, 0x3f800000u, 0x3f7fffffu,
                                           0x477fe000u, 0x477ff000u, 0x33000000u, 0x33400000u, 0x387fc000u};
    switch (rng() % 8) {
      case 0: return special[rng() % std::size(special)];
      case 1: return bits(1) << 31 | bits(23);                          // subnormal
      case 2: return bits(1) << 31 | (120 + bits(4)) << 23 | bits(23);  // near 1
      case 3: return bits(1) << 31 | (101 + bits(5)) << 23 | bits(23);  // f16 subnormal range
      case 4: return bits(1) << 31 | (139 + bits(3)) << 23 | bits(23);  // around f16 max
      case 5: return bits(1) << 31 | (bits(1) ? 250 + bits(2) : 1 + bits(2)) << 23 | bits(23);  // overflow / underflow
      default: return static_cast<uint32_t>(rng());
    }
  }
};

// ---- the instructions --------------------------------------------------------------------

// Record layout (words): 0..3 fd's initial value (f8..f11), 4..7 fs1 (f12..f15), 8..9 fs2
// (f16, f17), 10..13 f8..f11 after the instruction, 14 its fflags.
enum class Kind { f32v2_add, f32v2_sub, f32v2_mul, f32v2_mac, f32v2_axpy, f16v4_add, f16v4_sub, f16v4_mul,
                  f16v4_mac, f16v4_axpy, f32v2_tof16, f16v2_tof32, f32v4_tof16, f16v4_tof32 };

uint32_t encode(Kind k) {
  switch (k) {
    case Kind::f32v2_add: return ipu_encode_f32v2_add(8, 12, 16);
    case Kind::f32v2_sub: return ipu_encode_f32v2_sub(8, 12, 16);
    case Kind::f32v2_mul: return ipu_encode_f32v2_mul(8, 12, 16);
    case Kind::f32v2_mac: return ipu_encode_f32v2_mac(8, 12, 16);
    case Kind::f32v2_axpy: return ipu_encode_f32v2_axpy(8, 12, 16);
    case Kind::f16v4_add: return ipu_encode_f16v4_add(8, 12, 16);
    case Kind::f16v4_sub: return ipu_encode_f16v4_sub(8, 12, 16);
    case Kind::f16v4_mul: return ipu_encode_f16v4_mul(8, 12, 16);
    case Kind::f16v4_mac: return ipu_encode_f16v4_mac(8, 12, 16);
    case Kind::f16v4_axpy: return ipu_encode_f16v4_axpy(8, 12, 16);
    case Kind::f32v2_tof16: return ipu_encode_f32v2_tof16(8, 12);
    case Kind::f16v2_tof32: return ipu_encode_f16v2_tof32(8, 12);
    case Kind::f32v4_tof16: return ipu_encode_f32v4_tof16(8, 12);
    case Kind::f16v4_tof32: return ipu_encode_f16v4_tof32(8, 12);
  }
  return 0;
}

bool f16_inputs(Kind k) {
  return (k >= Kind::f16v4_add && k <= Kind::f16v4_axpy) || k == Kind::f16v2_tof32 || k == Kind::f16v4_tof32;
}

uint16_t lane16(const uint32_t* w, unsigned i) { return static_cast<uint16_t>(w[i / 2] >> (16 * (i % 2))); }

// The reference: record words 0..9 in, words 10..14 out.
void reference(Kind k, uint32_t* r) {
  uint32_t out[4] = {r[0], r[1], r[2], r[3]}, flags = 0;
  const uint32_t *fd = r, *fs1 = r + 4, *fs2 = r + 8;
  uint16_t h[4];
  switch (k) {
    case Kind::f32v2_add: for (int i = 0; i < 2; ++i) out[i] = fpu::add(fs1[i], fs2[i], fpu::RNE, flags); break;
    case Kind::f32v2_sub: for (int i = 0; i < 2; ++i) out[i] = fpu::sub(fs1[i], fs2[i], fpu::RNE, flags); break;
    case Kind::f32v2_mul: for (int i = 0; i < 2; ++i) out[i] = fpu::mul(fs1[i], fs2[i], fpu::RNE, flags); break;
    case Kind::f32v2_mac: for (int i = 0; i < 2; ++i) out[i] = fpu::madd(fs1[i], fs2[i], fd[i], fpu::RNE, flags); break;
    case Kind::f32v2_axpy: for (int i = 0; i < 2; ++i) out[i] = fpu::madd(fs2[0], fs1[i], fd[i], fpu::RNE, flags); break;
    case Kind::f16v4_add: for (unsigned i = 0; i < 4; ++i) h[i] = ref_add16(lane16(fs1, i), lane16(fs2, i), flags); break;
    case Kind::f16v4_sub:
      for (unsigned i = 0; i < 4; ++i) {
        const uint16_t b = lane16(fs2, i);
        h[i] = ref_add16(lane16(fs1, i), h_nan(b) ? b : static_cast<uint16_t>(b ^ 0x8000), flags);
      }
      break;
    case Kind::f16v4_mul: for (unsigned i = 0; i < 4; ++i) h[i] = ref_mul16(lane16(fs1, i), lane16(fs2, i), flags); break;
    case Kind::f16v4_mac:
      for (unsigned i = 0; i < 4; ++i) h[i] = ref_fma16(lane16(fs1, i), lane16(fs2, i), lane16(fd, i), flags);
      break;
    case Kind::f16v4_axpy:
      for (unsigned i = 0; i < 4; ++i) h[i] = ref_fma16(lane16(fs2, 0), lane16(fs1, i), lane16(fd, i), flags);
      break;
    case Kind::f32v2_tof16: out[0] = uint32_t{ref_f32_to_f16(fs1[1], flags)} << 16 | ref_f32_to_f16(fs1[0], flags); break;
    case Kind::f32v4_tof16:
      for (unsigned w = 0; w < 2; ++w)
        out[w] = uint32_t{ref_f32_to_f16(fs1[2 * w + 1], flags)} << 16 | ref_f32_to_f16(fs1[2 * w], flags);
      break;
    case Kind::f16v2_tof32: for (unsigned i = 0; i < 2; ++i) out[i] = ref_f16_to_f32(lane16(fs1, i), flags); break;
    case Kind::f16v4_tof32: for (unsigned i = 0; i < 4; ++i) out[i] = ref_f16_to_f32(lane16(fs1, i), flags); break;
  }
  if (k >= Kind::f16v4_add && k <= Kind::f16v4_axpy) {
    out[0] = uint32_t{h[1]} << 16 | h[0];
    out[1] = uint32_t{h[3]} << 16 | h[2];
  }
  std::copy(out, out + 4, r + 10);
  r[14] = flags;
}

void fill(Kind k, Gen& g, uint32_t* r) {
  const bool half = f16_inputs(k);
  for (unsigned i = 0; i < 10; ++i) r[i] = half ? uint32_t{g.f16()} << 16 | g.f16() : g.f32();
  // Cancellation: the accumulator (or fs2) near the negated product (or fs1), so results
  // land in the subnormal range, on exact zeros and on ties.
  if (g.chance(4)) {
    for (unsigned i = 0; i < 4; ++i) {
      const uint32_t nudge = g.bits(2);
      if (k == Kind::f32v2_mac && i < 2) {
        uint32_t unused = 0;
        r[i] = fpu::mul(r[4 + i], r[8 + i], fpu::RNE, unused) ^ 0x80000000u;
        r[i] += nudge;
      } else if (k == Kind::f32v2_add && i < 2) {
        r[8 + i] = (r[4 + i] ^ 0x80000000u) + nudge;
      } else if (k == Kind::f16v4_mac) {
        uint32_t unused = 0;
        const uint16_t p = ref_mul16(lane16(r + 4, i), lane16(r + 8, i), unused);
        const uint16_t c = static_cast<uint16_t>((p ^ 0x8000) + nudge);
        r[i / 2] = (r[i / 2] & ~(0xffffu << (16 * (i % 2)))) | uint32_t{c} << (16 * (i % 2));
      } else if (k == Kind::f16v4_add) {
        const uint16_t c = static_cast<uint16_t>((lane16(r + 4, i) ^ 0x8000) + nudge);
        r[8 + i / 2] = (r[8 + i / 2] & ~(0xffffu << (16 * (i % 2)))) | uint32_t{c} << (16 * (i % 2));
      }
    }
  }
}

// The program: for each record, load f8..f17, clear fflags, run the instruction, store
// f8..f11 and fflags.
Asm program(Kind k) {
  Asm a;
  a.li(s0, kBase);
  a.li(s1, kRecords);
  a.label("loop");
  for (uint32_t i = 0; i < 10; ++i) a.flw(8 + i, static_cast<int32_t>(4 * i), s0);
  a.csrrwi(zero, kFflags, 0);
  a.word(encode(k));
  for (uint32_t i = 0; i < 4; ++i) a.fsw(8 + i, static_cast<int32_t>(40 + 4 * i), s0);
  a.csrr(t0, kFflags);
  a.sw(t0, 56, s0);
  a.addi(s0, s0, 64);
  a.addi(s1, s1, -1);
  a.bne(s1, zero, "loop");
  a.halt(zero);
  return a;
}

std::string hex(const uint32_t* r, unsigned n) {
  std::string s;
  for (unsigned i = 0; i < n; ++i) s += fmt::format("{:08x} ", r[i]);
  return s;
}

std::string kind_name(const ::testing::TestParamInfo<Kind>& info) {
  static const char* const names[] = {"f32v2_add", "f32v2_sub", "f32v2_mul", "f32v2_mac", "f32v2_axpy",
                                      "f16v4_add", "f16v4_sub", "f16v4_mul", "f16v4_mac", "f16v4_axpy",
                                      "f32v2_tof16", "f16v2_tof32", "f32v4_tof16", "f16v4_tof32"};
  return names[static_cast<unsigned>(info.param)];
}

class IssVectorFpRandom : public ::testing::TestWithParam<Kind> {};

TEST_P(IssVectorFpRandom, MatchesTheReferenceBitForBit) {
  const Kind k = GetParam();
  testelf::Image img;
  img.data_addr = kBase;
  img.bss_bytes = kRecords * kRecordWords * 4;
  Harness h(program(k), test_params(1 << 20), img);
  Gen g;
  g.rng.seed(1000 + static_cast<unsigned>(k));
  std::vector<uint32_t> records(kRecords * kRecordWords), expected(records.size());
  unsigned mismatches = 0;
  for (uint32_t batch = 0; batch < kBatches; ++batch) {
    for (uint32_t i = 0; i < kRecords; ++i) fill(k, g, &records[i * kRecordWords]);
    expected = records;
    for (uint32_t i = 0; i < kRecords; ++i) reference(k, &expected[i * kRecordWords]);
    h.reset();
    ASSERT_TRUE(h.core.write(kBase, std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(records.data()),
                                                             records.size() * 4)));
    h.run_ok();
    ASSERT_TRUE(h.core.read(kBase, std::span<uint8_t>(reinterpret_cast<uint8_t*>(records.data()), records.size() * 4)));
    for (uint32_t i = 0; i < kRecords && mismatches < 10; ++i) {
      const uint32_t* got = &records[i * kRecordWords];
      const uint32_t* want = &expected[i * kRecordWords];
      if (!std::equal(got + 10, got + 15, want + 10)) {
        ++mismatches;
        ADD_FAILURE() << "in: " << hex(want, 10) << "\n got: " << hex(got + 10, 5) << "\nwant: " << hex(want + 10, 5);
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(
    AllInstructions, IssVectorFpRandom,
    ::testing::Values(Kind::f32v2_add, Kind::f32v2_sub, Kind::f32v2_mul, Kind::f32v2_mac, Kind::f32v2_axpy,
                      Kind::f16v4_add, Kind::f16v4_sub, Kind::f16v4_mul, Kind::f16v4_mac, Kind::f16v4_axpy,
                      Kind::f32v2_tof16, Kind::f16v2_tof32, Kind::f32v4_tof16, Kind::f16v4_tof32),
    kind_name);

}  // namespace
