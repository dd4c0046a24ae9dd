/* The vector arithmetic intrinsics of ipu/xipu.h (docs/xipu.md "Vector arithmetic") on a
 * tile: every function once or more, results checked bit for bit (f32 lanes against the
 * scalar operations, fused ones against fmaf, f16 lanes against worked values) and the
 * flags read from fflags. Prints one line per failure and "vector_intrinsics: N failures";
 * the exit status is N. Run by testbench/firmware/diff/xipu_firmware_test.cpp. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "ipu/xipu.h"

static unsigned failures;

static uint32_t bits(float f) {
  uint32_t u;
  memcpy(&u, &f, 4);
  return u;
}
static float from_bits(uint32_t u) {
  float f;
  memcpy(&f, &u, 4);
  return f;
}
static void clear_flags(void) { __asm__ volatile("fsflags x0" ::: "memory"); }
static uint32_t read_flags(void) {
  uint32_t f;
  __asm__ volatile("frflags %0" : "=r"(f)::"memory");
  return f;
}
static void expect(const char *what, uint32_t got, uint32_t want) {
  if (got != want) {
    printf("FAIL %s: got %08lx, want %08lx\n", what, (unsigned long)got, (unsigned long)want);
    ++failures;
  }
}

/* Inputs through volatile so nothing is folded at compile time. */
static volatile float in32[] = {1.5f, -4.0f, 2.25f, 0.5f, 10.0f, -1.0f, 3.0f, 0x1p-30f};
static volatile uint16_t in16[] = {0x3c00, 0x4000, 0x4200, 0x4400,   /* 1 2 3 4 */
                                   0x3800, 0x3400, 0xbc00, 0x4000,   /* 0.5 0.25 -1 2 */
                                   0x3c01, 0x3bff, 0x7bff, 0x0001};  /* 1+2^-10, 1-2^-11, max, 2^-24 */

static void f32_lanes(void) {
  const ipu_f32x2 a = ipu_f32x2_make(in32[0], in32[1]), b = ipu_f32x2_make(in32[2], in32[3]);
  const ipu_f32x2 acc = ipu_f32x2_make(in32[4], in32[5]);
  const float s = in32[6];
  ipu_f32x2 r = ipu_f32v2_add(a, b);
  expect("f32v2_add[0]", bits(ipu_f32x2_lane(r, 0)), bits(in32[0] + in32[2]));
  expect("f32v2_add[1]", bits(ipu_f32x2_lane(r, 1)), bits(in32[1] + in32[3]));
  r = ipu_f32v2_sub(a, b);
  expect("f32v2_sub[0]", bits(ipu_f32x2_lane(r, 0)), bits(in32[0] - in32[2]));
  expect("f32v2_sub[1]", bits(ipu_f32x2_lane(r, 1)), bits(in32[1] - in32[3]));
  r = ipu_f32v2_mul(a, b);
  expect("f32v2_mul[0]", bits(ipu_f32x2_lane(r, 0)), bits(in32[0] * in32[2]));
  expect("f32v2_mul[1]", bits(ipu_f32x2_lane(r, 1)), bits(in32[1] * in32[3]));
  r = ipu_f32v2_mac(acc, a, b);
  expect("f32v2_mac[0]", bits(ipu_f32x2_lane(r, 0)), bits(fmaf(in32[0], in32[2], in32[4])));
  expect("f32v2_mac[1]", bits(ipu_f32x2_lane(r, 1)), bits(fmaf(in32[1], in32[3], in32[5])));
  r = ipu_f32v2_axpy(acc, a, s);
  expect("f32v2_axpy[0]", bits(ipu_f32x2_lane(r, 0)), bits(fmaf(s, in32[0], in32[4])));
  expect("f32v2_axpy[1]", bits(ipu_f32x2_lane(r, 1)), bits(fmaf(s, in32[1], in32[5])));

  /* Fused: (1 + 2^-12)^2 - (1 + 2^-11) = 2^-24, where rounding the product first (a tie,
   * to even: 1 + 2^-11) gives 0; the other lane 1 + 2^-30 is inexact. */
  const ipu_f32x2 p = ipu_f32x2_make(1.0f + 0x1p-12f * in32[3] * 2.0f, in32[6] - 2.0f);
  const ipu_f32x2 q = ipu_f32x2_make(1.0f + 0x1p-12f * in32[3] * 2.0f, in32[7]);
  const ipu_f32x2 c = ipu_f32x2_make(-in32[6] + 2.0f - 0x1p-11f, in32[6] - 2.0f);
  clear_flags();
  r = ipu_f32v2_mac(c, p, q);
  const uint32_t flags = read_flags();
  expect("f32v2_mac fused", bits(ipu_f32x2_lane(r, 0)), bits(0x1p-24f));
  expect("f32v2_mac inexact lane", bits(ipu_f32x2_lane(r, 1)), bits(1.0f));
  expect("f32v2_mac flags", flags, 1u /* NX */);
}

static uint32_t word16(ipu_f16x4 v, int i) { return ipu_f16x4_word(v, i); }

static void f16_lanes(void) {
  const ipu_f16x4 a = ipu_f16x4_make(in16[0], in16[1], in16[2], in16[3]);
  const ipu_f16x4 b = ipu_f16x4_make(in16[4], in16[5], in16[6], in16[7]);
  const ipu_f16x4 one = ipu_f16x4_make(in16[0], in16[0], in16[0], in16[0]);
  ipu_f16x4 r = ipu_f16v4_add(a, b);
  expect("f16v4_add lo", word16(r, 0), 0x40803e00u); /* 1.5, 2.25 */
  expect("f16v4_add hi", word16(r, 1), 0x46004000u); /* 2, 6 */
  r = ipu_f16v4_sub(a, b);
  expect("f16v4_sub lo", word16(r, 0), 0x3f003800u);
  expect("f16v4_sub hi", word16(r, 1), 0x40004400u);
  r = ipu_f16v4_mul(a, b);
  expect("f16v4_mul lo", word16(r, 0), 0x38003800u);
  expect("f16v4_mul hi", word16(r, 1), 0x4800c200u);
  r = ipu_f16v4_mac(one, a, b);
  expect("f16v4_mac lo", word16(r, 0), 0x3e003e00u);
  expect("f16v4_mac hi", word16(r, 1), 0x4880c000u);
  r = ipu_f16v4_axpy(one, a, in16[1]);
  expect("f16v4_axpy lo", word16(r, 0), 0x45004200u); /* 3, 5 */
  expect("f16v4_axpy hi", word16(r, 1), 0x48804700u); /* 7, 9 */

  /* Fused: (1 + 2^-10)(1 - 2^-11) - 1 = 2^-11 - 2^-21 (0x0ffe); max + max overflows. */
  const ipu_f16x4 x = ipu_f16x4_make(in16[8], in16[8], in16[10], in16[11]);
  const ipu_f16x4 y = ipu_f16x4_make(in16[9], in16[9], in16[0], in16[4]);
  const ipu_f16x4 m1 = ipu_f16x4_make(0xbc00, 0xbc00, in16[10], 0);
  clear_flags();
  r = ipu_f16v4_mac(m1, x, y);
  const uint32_t flags = read_flags();
  expect("f16v4_mac fused", word16(r, 0), 0x0ffe0ffeu);
  expect("f16v4_mac overflow, underflow", word16(r, 1), 0x00007c00u); /* inf; 2^-25 -> +0 */
  expect("f16v4_mac flags", flags, 4u | 2u | 1u /* OF UF NX */);
}

static void conversions(void) {
  const ipu_f32x2 a = ipu_f32x2_make(in32[0], 65520.0f * in32[3] * 2.0f);
  clear_flags();
  const ipu_f16x2 h = ipu_f32v2_tof16(a);
  expect("f32v2_tof16", (uint32_t)h[0] | (uint32_t)h[1] << 16, 0x7c003e00u); /* 1.5; inf */
  expect("f32v2_tof16 flags", read_flags(), 4u | 1u);
  const ipu_f32x4 q = {in32[0], in32[1], in32[2], in32[3]};
  const ipu_f16x4 h4 = ipu_f32v4_tof16(q);
  expect("f32v4_tof16 lo", word16(h4, 0), 0xc4003e00u); /* 1.5, -4 */
  expect("f32v4_tof16 hi", word16(h4, 1), 0x38004080u); /* 2.25, 0.5 */
  const ipu_f16x2 two = {in16[11], 0x7d00}; /* 2^-24; a signalling NaN */
  clear_flags();
  const ipu_f32x2 w = ipu_f16v2_tof32(two);
  expect("f16v2_tof32[0]", bits(ipu_f32x2_lane(w, 0)), bits(0x1p-24f));
  expect("f16v2_tof32[1]", bits(ipu_f32x2_lane(w, 1)), 0x7fc00000u);
  expect("f16v2_tof32 flags", read_flags(), 16u /* NV */);
  const ipu_f16x4 four = ipu_f16x4_make(in16[0], in16[1], in16[6], in16[10]);
  const ipu_f32x4 f = ipu_f16v4_tof32(four);
  expect("f16v4_tof32[0]", bits(f[0]), bits(1.0f));
  expect("f16v4_tof32[1]", bits(f[1]), bits(2.0f));
  expect("f16v4_tof32[2]", bits(f[2]), bits(-1.0f));
  expect("f16v4_tof32[3]", bits(f[3]), bits(65504.0f));
  (void)from_bits;
}

/* The register forms on pair variables bound to even pairs, set and read with
 * IPU_PAIR_SET / IPU_PAIR_GET, against the same worked values: callee-saved pairs (fs0 =
 * f8, fs2 = f18 ...), as the checks call printf. */
static float lane(ipu_f32x2 v, int i) { return ipu_f32x2_lane(v, i); }
static void register_forms(void) {
  register ipu_f32x2 x __asm__("fs0"), y __asm__("fs2"), d __asm__("fs4"), acc __asm__("fs6");
  register float s __asm__("fs8") = in32[6];
  IPU_PAIR_SET(x, ipu_f32x2_make(in32[0], in32[1]));
  IPU_PAIR_SET(y, ipu_f32x2_make(in32[2], in32[3]));
  IPU_PAIR_SET(acc, ipu_f32x2_make(in32[4], in32[5]));
  IPU_F32V2_ADD(d, x, y);
  ipu_f32x2 r = IPU_PAIR_GET(d);
  expect("IPU_F32V2_ADD[0]", bits(lane(r, 0)), bits(in32[0] + in32[2]));
  expect("IPU_F32V2_ADD[1]", bits(lane(r, 1)), bits(in32[1] + in32[3]));
  IPU_F32V2_SUB(d, x, y);
  r = IPU_PAIR_GET(d);
  expect("IPU_F32V2_SUB[1]", bits(lane(r, 1)), bits(in32[1] - in32[3]));
  IPU_F32V2_MUL(d, x, y);
  r = IPU_PAIR_GET(d);
  expect("IPU_F32V2_MUL[0]", bits(lane(r, 0)), bits(in32[0] * in32[2]));
  IPU_F32V2_MAC(acc, x, y);
  r = IPU_PAIR_GET(acc);
  expect("IPU_F32V2_MAC[0]", bits(lane(r, 0)), bits(fmaf(in32[0], in32[2], in32[4])));
  expect("IPU_F32V2_MAC[1]", bits(lane(r, 1)), bits(fmaf(in32[1], in32[3], in32[5])));
  IPU_F32V2_AXPY(x, y, s); /* the destination may be a source */
  r = IPU_PAIR_GET(x);
  expect("IPU_F32V2_AXPY[0]", bits(lane(r, 0)), bits(fmaf(in32[6], in32[2], in32[0])));
  expect("IPU_F32V2_AXPY[1]", bits(lane(r, 1)), bits(fmaf(in32[6], in32[3], in32[1])));

  register ipu_f16x4 h __asm__("fs0"), k __asm__("fs2"), q __asm__("fs4");
  register float t __asm__("fs8") = ipu_f16_scalar(in16[1]);
  IPU_PAIR_SET(h, ipu_f16x4_make(in16[0], in16[1], in16[2], in16[3]));
  IPU_PAIR_SET(k, ipu_f16x4_make(in16[4], in16[5], in16[6], in16[7]));
  IPU_F16V4_ADD(q, h, k);
  expect("IPU_F16V4_ADD lo", word16(IPU_PAIR_GET(q), 0), 0x40803e00u);
  expect("IPU_F16V4_ADD hi", word16(IPU_PAIR_GET(q), 1), 0x46004000u);
  IPU_F16V4_SUB(q, h, k);
  expect("IPU_F16V4_SUB hi", word16(IPU_PAIR_GET(q), 1), 0x40004400u);
  IPU_F16V4_MUL(q, h, k);
  expect("IPU_F16V4_MUL hi", word16(IPU_PAIR_GET(q), 1), 0x4800c200u);
  IPU_PAIR_SET(q, ipu_f16x4_make(in16[0], in16[0], in16[0], in16[0]));
  IPU_F16V4_MAC(q, h, k);
  expect("IPU_F16V4_MAC lo", word16(IPU_PAIR_GET(q), 0), 0x3e003e00u);
  expect("IPU_F16V4_MAC hi", word16(IPU_PAIR_GET(q), 1), 0x4880c000u);
  IPU_PAIR_SET(q, ipu_f16x4_make(in16[0], in16[0], in16[0], in16[0]));
  IPU_F16V4_AXPY(q, h, t);
  expect("IPU_F16V4_AXPY lo", word16(IPU_PAIR_GET(q), 0), 0x45004200u);
  expect("IPU_F16V4_AXPY hi", word16(IPU_PAIR_GET(q), 1), 0x48804700u);

  /* The lane accessors: lane i of a pair is the i-th binary16 in memory order. */
  const ipu_f16x4 m = ipu_f16x4_make(in16[8], in16[9], in16[10], in16[11]);
  for (int i = 0; i < 4; ++i) expect("ipu_f16x4_lane", ipu_f16x4_lane(m, i), in16[8 + i]);
  expect("ipu_f16x4_of_words", word16(ipu_f16x4_of_words(0x3bff3c01u, 0x00017bffu), 1), 0x00017bffu);
}

int main(void) {
  f32_lanes();
  f16_lanes();
  conversions();
  register_forms();
  printf("vector_intrinsics: %u failures\n", failures);
  return (int)failures;
}
