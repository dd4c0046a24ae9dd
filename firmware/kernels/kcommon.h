/*
 * kcommon.h: what every chip-level kernel shares: the Xipu functions (ipu/xipu.h),
 * printing, tile-local storage, and a few exchange helpers.
 *
 * The kernels are plain C over ipu/xipu.h, so they also compile natively for a host
 * that provides that header (KERNELS_HOST defined, KTILE and kprintf given).
 */
#ifndef KERNELS_KCOMMON_H
#define KERNELS_KCOMMON_H

#include <stddef.h>
#include <stdint.h>

#include "ipu/xipu.h"
#include "kinputs.h"

/* KTILE: the storage class of per-tile data (nothing on a tile, which has memory of its
 * own); kprintf: the kernels' printf. A host build of the kernels, where every tile is a
 * thread, defines both on its command line. */
#ifndef KTILE
#define KTILE
#endif
#ifndef kprintf
#include <stdio.h>
#define kprintf printf
#endif

/* A kernel's headline results on tile 0 of each IPU, for host programs that read them
 * by symbol (the driver's system tests read `kc_result`): `magic` is KC_RESULT_MAGIC once
 * the kernel has finished, `hash` its result hash (or 0), `value` its other figures in
 * the order docs/kernels.md gives per kernel. value[0..3] come with kc_report; a kernel
 * with more figures sets value[4..] first with kc_report_more (a host reading a prefix of
 * the record, as older readers do, still sees the same first figures). */
#define KC_RESULT_MAGIC 0x4B524553u /* 'KRES' */
#define KC_RESULT_VALUES 8
struct kc_result {
  uint32_t magic;
  uint32_t hash;
  uint32_t value[KC_RESULT_VALUES];
};
extern KTILE volatile struct kc_result kc_result;
/* value[i] (i = 4 .. KC_RESULT_VALUES - 1), before kc_report, which marks the record done. */
static inline void kc_report_more(uint32_t i, uint32_t v) {
  if (i >= 4 && i < KC_RESULT_VALUES) kc_result.value[i] = v;
}
static inline void kc_report(uint32_t hash, uint32_t v0, uint32_t v1, uint32_t v2, uint32_t v3) {
  kc_result.hash = hash;
  kc_result.value[0] = v0;
  kc_result.value[1] = v1;
  kc_result.value[2] = v2;
  kc_result.value[3] = v3;
  kc_result.magic = KC_RESULT_MAGIC;
}

/* The global id of tile 0 of this tile's IPU (kernels run on every IPU separately). */
static inline uint32_t kc_ipu_base(void) { return ipu_global_tile_id() - ipu_tile_id(); }

/* The low 32 bits of the cycle counter (one csrr: the cycle this instruction issues in),
 * enough for differences inside one kernel. */
static inline uint32_t kc_cycle32(void) {
#ifdef KERNELS_HOST
  return (uint32_t)ipu_cycles();
#else
  uint32_t v;
  IPU_CSR_READ(IPU_CSR_CYCLE, v);
  return v;
#endif
}

/* The bit pattern of an f32 (a union: one fmv.x.w, where memcpy became four byte loads). */
static inline uint32_t kc_bits(float f) {
  union {
    float f;
    uint32_t u;
  } v = {f};
  return v.u;
}

/* h after kin_hash_word of the bits of each of the n floats at p, in order. With p 8-aligned
 * and n even, the words come in pairs by ld64.pi and reach the integer xor / mul chain
 * by fmv.x.w, which co-issues with it: 5 slots per two words under a rpt, where a plain
 * lw loop takes 5 instructions a word. */
uint32_t kc_hash_words(uint32_t h, const float *p, uint32_t n);

/* Gathers `len` bytes (a multiple of 4) from every tile of this IPU onto tile 0, in
 * tile order, into `all` (tile 0 only; T * len bytes; may be NULL on other tiles).
 * One superstep: sync over the IPU, exchange. Every tile of the IPU must call it. */
void kc_gather_to_tile0(const void *rec, uint32_t len, void *all);

/* Allocates `bytes` (8-aligned) or, if the heap is exhausted, prints which buffer did
 * not fit and returns NULL. On the tile straight from sbrk: picolibc's malloc clears
 * every block it hands out, a byte loop that cost a GEMM tile 1.25M instructions. The
 * kernels never free. */
void *kc_alloc(size_t bytes, const char *what);

/* The same, 16-aligned (for ld128 / st128), at the cost of up to 8 bytes. */
void *kc_alloc16(size_t bytes, const char *what);

#endif /* KERNELS_KCOMMON_H */
