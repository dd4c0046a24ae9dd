/*
 * wide_intrinsics: the wide load / store intrinsics of ipu/xipu.h (docs/xipu.md "Wide
 * loads and stores") from C at the firmware's optimization, on every tile: a copy with
 * ld128_pi / st128_pi, a scaled copy with ld64_pi / st64_pi, a streaming pass with
 * ld128st64_pi and ld64st64_pi whose store trails its load in the same buffer, the
 * plain forms and the register-pair macros (IPU_LD64_PI ...). Each check prints a line;
 * the exit status is the number of failures.
 */
#include <stdio.h>

#include "ipu/xipu.h"

#define N 32

static float src[N] __attribute__((aligned(16)));
static float dst[N] __attribute__((aligned(16)));
static float buf[N + 8] __attribute__((aligned(16)));

static int failures;

static void check(const char *what, int ok) {
  printf("%s %s\n", what, ok ? "ok" : "FAILED");
  failures += !ok;
}

/* Copies n floats (n a multiple of 4) with 16-byte loads and stores. */
static void copy128(float *out, const float *in, int n) {
  for (int i = 0; i < n; i += 4) ipu_st128_pi(&out, ipu_ld128_pi(&in));
}

/* out[i] = 2 in[i] with 8-byte loads and stores. */
static void scale64(float *out, const float *in, int n) {
  for (int i = 0; i < n; i += 2) {
    const ipu_f32x2 v = ipu_ld64_pi(&in);
    ipu_st64_pi(&out, ipu_f32x2_make(2.0f * ipu_f32x2_lane(v, 0), 2.0f * ipu_f32x2_lane(v, 1)));
  }
}

/* The register forms on pair variables bound to even pairs (no calls while they live):
 * out = 2 in with each step's store folded into the next step's load (IPU_LD64ST64_PI),
 * then out[2], out[3] = in[4], in[5] with the plain forms. */
static int register_forms(float *out, const float *in, int n) {
  register ipu_f32x2 x __asm__("fa0"), d __asm__("fa2");
  const float *l = in;
  float *s = out;
  IPU_LD64_PI(x, l);
  for (int i = 2; i < n; i += 2) {
    IPU_F32V2_ADD(d, x, x);
    IPU_LD64ST64_PI(x, l, s, d);
  }
  IPU_F32V2_ADD(d, x, x);
  IPU_ST64_PI(d, s);
  IPU_LD64(x, in + 4);
  IPU_ST64(x, out + 2);
  return l == in + n && s == out + n;
}

int main(void) {
  for (int i = 0; i < N; ++i) src[i] = (float)(i + 1) + 0.25f * (float)(ipu_tile_id() + 1);

  copy128(dst, src, N);
  int ok = 1;
  for (int i = 0; i < N; ++i) ok &= dst[i] == src[i];
  check("ld128.pi / st128.pi copy", ok);

  scale64(dst, src, N);
  ok = 1;
  for (int i = 0; i < N; ++i) ok &= dst[i] == 2.0f * src[i];
  check("ld64.pi / st64.pi scale", ok);

  /* buf[i] = 2 src[i]; then one pass loads 4 floats of buf a step while storing the sum of
   * the previous step's first and last two (a 2-float result per 4 loaded) into the same
   * buf, behind the load: each load must see buf before its own step's store. */
  for (int i = 0; i < N; ++i) buf[i] = dst[i];
  const float *ld = buf;
  float *st = buf;
  ipu_f32x2 carry = ipu_f32x2_make(0.0f, 0.0f);
  for (int i = 0; i < N; i += 4) {
    ipu_f32x4 v = ipu_ld128st64_pi(&ld, &st, carry);
    carry = ipu_f32x2_make(v[0] + v[2], v[1] + v[3]);
  }
  ok = ld == buf + N && st == buf + N / 2;
  for (int k = 1; k < N / 4; ++k) {
    const int i = 4 * (k - 1);
    ok &= buf[2 * k] == 2.0f * (src[i] + src[i + 2]) && buf[2 * k + 1] == 2.0f * (src[i + 1] + src[i + 3]);
  }
  ok &= buf[0] == 0.0f && buf[1] == 0.0f;
  check("ld128st64.pi streaming", ok);

  /* ld64st64.pi: swap the halves of each pair while moving src to dst. */
  const float *l2 = src;
  float *s2 = dst;
  ipu_f32x2 prev = ipu_ld64(src);
  l2 += 2;
  for (int i = 2; i < N; i += 2) {
    const ipu_f32x2 swapped = ipu_f32x2_make(ipu_f32x2_lane(prev, 1), ipu_f32x2_lane(prev, 0));
    prev = ipu_ld64st64_pi(&l2, &s2, swapped);
  }
  ok = 1;
  for (int i = 0; i + 2 < N; i += 2) ok &= dst[i] == src[i + 1] && dst[i + 1] == src[i];
  check("ld64st64.pi pairs", ok);

  ok = register_forms(dst, src, N);
  for (int i = 0; i < N; ++i) ok &= dst[i] == (i == 2 || i == 3 ? src[i + 2] : 2.0f * src[i]);
  check("register-pair macros", ok);

  /* The plain forms leave the pointer alone. */
  ipu_f32x4 q = ipu_ld128(src + 4);
  ipu_st128(dst + 8, q);
  ipu_f32x2 p = ipu_ld64(src + 2);
  ipu_st64(dst + 2, p);
  check("ld128 / st128 / ld64 / st64",
        dst[8] == src[4] && dst[11] == src[7] && dst[2] == src[2] && dst[3] == src[3] && q[3] == src[7]);
  return failures;
}
