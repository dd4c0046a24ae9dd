/*
 * xipu_next.h: the exchange (custom-0 funct3 = 2) and AMP (custom-1) instructions of
 * docs/xipu.md as inline functions, for the kernels only, until ipu/xipu.h carries them.
 *
 * Same names and signatures as the functions xipu.h is getting; each block is dropped as
 * soon as xipu.h (or the host fake chip of testbench/system/kernels/host) defines its
 * feature macro, so there is never a second definition.
 */
#ifndef KERNELS_XIPU_NEXT_H
#define KERNELS_XIPU_NEXT_H

#include <stdint.h>

#include "ipu/xipu.h"

#ifndef IPU_CSR_AMPROWS16
#define IPU_CSR_AMPROWS16 0xCC9 /* AMP f16 weight rows R16 */
#define IPU_CSR_AMPROWS32 0xCCA /* AMP f32 weight rows R32 */
#endif

/* ---- exchange (custom-0, funct3 = 2; supervisor only) ------------------------------ */
#if !defined(IPU_HAVE_EXCHANGE) && !defined(IPU_F3_EXCHANGE)
#define IPU_HAVE_EXCHANGE 1

/* This tile's id across the system: ipu * ntiles + tile (what xdst / xsrc name). */
static inline uint32_t ipu_global_tile_id(void) {
  return ipu_id() * ipu_num_tiles() + ipu_tile_id();
}

/* Adds global tiles first .. first + count - 1 to the pending destination set. */
static inline void ipu_xdst(uint32_t first, uint32_t count) {
  __asm__ volatile(".insn r 0x0B, 2, 0x00, x0, %0, %1" ::"r"(first), "r"(count));
}

/* Posts a send of len bytes at addr to the pending destination set (then emptied).
 * The memory clobber keeps every store to the buffer before the posting. */
static inline void ipu_send(const void *addr, uint32_t len) {
  __asm__ volatile(".insn r 0x0B, 2, 0x01, x0, %0, %1" ::"r"(addr), "r"(len) : "memory");
}

/* Names the source tile (global id) of the next ipu_recv. */
static inline void ipu_xsrc(uint32_t tile) {
  __asm__ volatile(".insn r 0x0B, 2, 0x02, x0, %0, x0" ::"r"(tile));
}

/* Posts a receive of len bytes into addr from the tile of the last ipu_xsrc. */
static inline void ipu_recv(void *addr, uint32_t len) {
  __asm__ volatile(".insn r 0x0B, 2, 0x03, x0, %0, %1" ::"r"(addr), "r"(len) : "memory");
}

/* Closes the exchange phase and waits until this tile's part of it is complete. The
 * memory clobber makes the received data visible to the code after it. */
static inline void ipu_xwait(void) {
  __asm__ volatile(".insn r 0x0B, 2, 0x04, x0, x0, x0" ::: "memory");
}
#endif /* exchange */

/* ---- AMP (custom-1; per-thread state) --------------------------------------------- */
#if !defined(IPU_HAVE_AMP) && !defined(IPU_OPC_CUSTOM1)
#define IPU_HAVE_AMP 1

static inline uint32_t ipu_amp_rows16(void) { uint32_t v; IPU_CSR_READ_CONST(IPU_CSR_AMPROWS16, v); return v; }
static inline uint32_t ipu_amp_rows32(void) { uint32_t v; IPU_CSR_READ_CONST(IPU_CSR_AMPROWS32, v); return v; }

/* Loads W (R16 x 4 f16, row-major) from w. */
static inline void ipu_amp_ldw_f16(const void *w) {
  __asm__ volatile(".insn r 0x2B, 0, 0, x0, %0, x0" ::"r"(w) : "memory");
}
/* acc[i] += W[i][0..3] . x[0..3] (4 f16 at x); returns x + 8 bytes. */
static inline const void *ipu_amp_mac_f16(const void *x) {
  __asm__ volatile(".insn r 0x2B, 1, 0, %0, %0, x0" : "+r"(x) : : "memory");
  return x;
}
/* Loads W (R32 x 4 f32, row-major) from w. */
static inline void ipu_amp_ldw_f32(const void *w) {
  __asm__ volatile(".insn r 0x2B, 0, 1, x0, %0, x0" ::"r"(w) : "memory");
}
/* acc[i] += W[i][0..3] . x[0..3] (4 f32 at x); returns x + 16 bytes. */
static inline const void *ipu_amp_mac_f32(const void *x) {
  __asm__ volatile(".insn r 0x2B, 1, 1, %0, %0, x0" : "+r"(x) : : "memory");
  return x;
}
/* Stores the accumulators (R f32) to out. */
static inline void ipu_amp_st(float *out) {
  __asm__ volatile(".insn r 0x2B, 2, 0, x0, %0, x0" ::"r"(out) : "memory");
}
/* Clears the accumulators. */
static inline void ipu_amp_clr(void) {
  __asm__ volatile(".insn r 0x2B, 3, 0, x0, x0, x0" ::: "memory");
}
#endif /* AMP */

#endif /* KERNELS_XIPU_NEXT_H */
