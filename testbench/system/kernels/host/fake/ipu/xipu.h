/*
 * The fake chip's ipu/xipu.h: the same functions as firmware/include/ipu/xipu.h plus the
 * exchange and AMP functions, implemented on the host by fake_chip.cpp, so the kernels
 * of firmware/kernels compile natively (KERNELS_HOST) and run with one host thread per
 * tile. Only what the kernels use and the wide loads and stores;
 * numerics only (the cycle counter is a fake).
 */
#ifndef IPU_XIPU_H
#define IPU_XIPU_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* The real constants (IPU_SRAM_BASE, IPU_SYNC_*, IPU_AMP_BANKS, ...): the ISA source's. */
#include <ipu/xipu_isa.h>

#ifdef __cplusplus
extern "C" {
#endif

uint32_t ipu_tile_id(void);
uint32_t ipu_id(void);
uint32_t ipu_thread_id(void);
uint32_t ipu_num_tiles(void);
uint32_t ipu_num_ipus(void);
uint32_t ipu_num_workers(void);
uint32_t ipu_sram_base(void);
uint32_t ipu_sram_size(void);
uint32_t ipu_superstep(void);
uint64_t ipu_cycles(void); /* a per-tile counter that grows by a fixed step per call */

typedef int (*ipu_worker_fn)(void *arg);
uint32_t ipu_run(ipu_worker_fn fn, void *arg); /* runs fn to completion at once */
void ipu_join(void);
void ipu_sync(uint32_t zone);

uint32_t ipu_global_tile_id(void);
void ipu_xdst(uint32_t first, uint32_t count);
void ipu_send(const void *addr, uint32_t len);
void ipu_xsrc(uint32_t tile);
void ipu_recv(void *addr, uint32_t len);
void ipu_xwait(void);

uint32_t ipu_amp_rows16(void);
uint32_t ipu_amp_rows32(void);
void ipu_amp_ldw_f16(const void *w);
const void *ipu_amp_mac_f16(const void *x);
void ipu_amp_ldw_f32(const void *w);
const void *ipu_amp_mac_f32(const void *x);
void ipu_amp_st(float *out);
void ipu_amp_clr(void);
/* Accumulator banks (docs/xipu.md): the real header's macros take a compile-time bank. */
uint32_t ipu_amp_banks(void);
const void *kfake_amp_mac_f16_bank(const void *x, uint32_t bank);
const float *kfake_amp_mac_f32_bank(const float *x, uint32_t bank);
void kfake_amp_st_bank(float *out, uint32_t bank);
#define IPU_AMP_MAC_F16(x, bank) kfake_amp_mac_f16_bank((x), (bank))
#define IPU_AMP_MAC_F32(x, bank) kfake_amp_mac_f32_bank((x), (bank))
#define IPU_AMP_ST_F16(out, bank) kfake_amp_st_bank((out), (bank))
#define IPU_AMP_ST_F32(out, bank) kfake_amp_st_bank((out), (bank))

/* The wide loads and stores as plain copies (the alignment and code checks are the
 * simulator's: a kernel is tested for them there). */
/* The types of the real header: a pair is a complex float (its two words), a quad a GCC /
 * Clang vector. */
typedef __complex__ float ipu_f32x2;
static inline ipu_f32x2 ipu_f32x2_make(float lo, float hi) {
  ipu_f32x2 v = lo;
  __imag__ v = hi;
  return v;
}
static inline float ipu_f32x2_lane(ipu_f32x2 v, int i) { return i ? __imag__ v : __real__ v; }
typedef float ipu_f32x4 __attribute__((vector_size(16)));
static inline ipu_f32x2 ipu_ld64(const void *p) { ipu_f32x2 r; memcpy(&r, p, 8); return r; }
static inline ipu_f32x4 ipu_ld128(const void *p) { ipu_f32x4 r; memcpy(&r, p, 16); return r; }
static inline ipu_f32x2 ipu_ld64_pi(const float **p) { ipu_f32x2 r = ipu_ld64(*p); *p += 2; return r; }
static inline ipu_f32x4 ipu_ld128_pi(const float **p) { ipu_f32x4 r = ipu_ld128(*p); *p += 4; return r; }
static inline void ipu_st64(void *p, ipu_f32x2 v) { memcpy(p, &v, 8); }
static inline void ipu_st128(void *p, ipu_f32x4 v) { memcpy(p, &v, 16); }
static inline void ipu_st64_pi(float **p, ipu_f32x2 v) { ipu_st64(*p, v); *p += 2; }
static inline void ipu_st128_pi(float **p, ipu_f32x4 v) { ipu_st128(*p, v); *p += 4; }
static inline ipu_f32x4 ipu_ld128st64_pi(const float **ld, float **st, ipu_f32x2 v) {
  ipu_f32x4 r = ipu_ld128_pi(ld); /* the load reads before the store writes */
  ipu_st64_pi(st, v);
  return r;
}
static inline ipu_f32x2 ipu_ld64st64_pi(const float **ld, float **st, ipu_f32x2 v) {
  ipu_f32x2 r = ipu_ld64_pi(ld);
  ipu_st64_pi(st, v);
  return r;
}

/* The kernels' kprintf on the host: appends to the calling tile's console text. */
int kfake_printf(const char *format, ...) __attribute__((format(printf, 1, 2)));

#ifdef __cplusplus
}
#endif

#endif /* IPU_XIPU_H */
