/*
 * stream_asm.c: STREAM's triad a[i] = b[i] + s c[i], f32, hand-written for the tile's
 * memory pipeline (docs/xipu.md): every issue slot in the loop is one ld128st64.pi
 * (16 bytes loaded, 8 stored) co-issued with one f32v2.axpy, so two elements per slot,
 * 24 bytes: the most the default paths (16 B loaded + 8 B stored per cycle) carry.
 *
 * A step is four elements: c[4k..4k+3] into a quad R, b[4k..4k+3] into a quad P,
 * P.lo += s R.lo and P.hi += s R.hi (f32v2.axpy, fused: b + s c with one rounding), then
 * P's two pairs stored to a. Software-pipelined over three steps, so no slot's two
 * instructions depend on each other (the co-issue rule) and no instruction's load
 * overwrites the pair it stores:
 *
 *   step k, slot 1:  axpy P(k-1).lo   |  ld128st64.pi R(k) <- c,  a <- P(k-2).hi
 *   step k, slot 2:  axpy P(k-1).hi   |  ld128st64.pi P(k) <- b,  a <- P(k-1).lo
 *
 * With R, P alternating between two register sets (even steps: R = f0..f3, P = f4..f7;
 * odd: R = f8..f11, P = f12..f15; s in f16), two steps make the rpt body (8 instructions,
 * 8 elements, 4 slots). The first two steps and the last two are written out (ld128.pi
 * before there is anything to store, st64.pi after there is nothing to load).
 */
#include "kcommon.h"
#include "stream.h"

/* The instructions, as `.insn` lines (ipu/xipu_isa.h). s is f16 throughout. */
#define LD(q, p) IPU_OP_LD128_PI_INSN ", " #q ", %[" #p "], x0\n\t"
#define LDST(q, p, st) IPU_OP_LD128ST64_PI_INSN ", " #q ", %[" #p "], %[a], " #st "\n\t"
#define ST(st) IPU_OP_ST64_PI_INSN ", x0, %[a], " #st "\n\t"
#define AXPY(d, r) IPU_OP_F32V2_AXPY_INSN ", " #d ", " #r ", f16\n\t"

int stream_triad_asm(void *arg) {
  const struct stream_job *j = arg;
  float *a = j->a;
  const float *b = j->b, *c = j->c;
  /* n / 4 steps (even, at least 2): two in the prologue, the rest in pairs. */
  const uint32_t body_runs = (j->n / 4u - 2u) / 2u;
  register float s __asm__("f16") = j->s;
  __asm__ volatile(
      /* step 0 */
      LD(f0, c) LD(f4, b)
      /* step 1 (odd) */
      AXPY(f4, f0) LD(f8, c)
      AXPY(f6, f2) LDST(f12, b, f4)
      /* steps 2 .. n/4 - 1, two per run */
      IPU_RPT("%[runs]", 8) "\n\t"
      AXPY(f12, f8) LDST(f0, c, f6)
      AXPY(f14, f10) LDST(f4, b, f12)
      AXPY(f4, f0) LDST(f8, c, f14)
      AXPY(f6, f2) LDST(f12, b, f4)
      /* step n/4 (even): the last step's sums, the last stores */
      AXPY(f12, f8) ST(f6)
      AXPY(f14, f10) ST(f12)
      ST(f14)
      : [a] "+r"(a), [b] "+r"(b), [c] "+r"(c)
      : [runs] "r"(body_runs), "f"(s)
      : "f0", "f1", "f2", "f3", "f4", "f5", "f6", "f7", "f8", "f9", "f10", "f11", "f12",
        "f13", "f14", "f15", "memory");
  return 0;
}
