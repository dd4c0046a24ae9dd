/*
 * The exchange functions of ipu/xipu.h (docs/xipu.md, funct3 = 2) for the system test
 * firmware. The ISS work adds them to xipu.h; until a build has that version, the same
 * inline functions are defined here. (xipu.h's exchange arrived together with the AMP
 * CSR numbers, hence the test.)
 */
#ifndef TB_XCHG_H
#define TB_XCHG_H

#include <stddef.h>
#include <stdint.h>

#include "ipu/xipu.h"

#ifndef IPU_CSR_AMPROWS16
static inline uint32_t ipu_global_tile_id(void) { return ipu_id() * ipu_num_tiles() + ipu_tile_id(); }
static inline void ipu_xdst(uint32_t first, uint32_t count) {
  __asm__ volatile(".insn r 0x0B, 2, 0x00, x0, %0, %1" ::"r"(first), "r"(count));
}
static inline void ipu_send(const void *buf, size_t len) {
  __asm__ volatile(".insn r 0x0B, 2, 0x01, x0, %0, %1" ::"r"(buf), "r"(len) : "memory");
}
static inline void ipu_xsrc(uint32_t tile) { __asm__ volatile(".insn r 0x0B, 2, 0x02, x0, %0, x0" ::"r"(tile)); }
static inline void ipu_recv(void *buf, size_t len) {
  __asm__ volatile(".insn r 0x0B, 2, 0x03, x0, %0, %1" ::"r"(buf), "r"(len) : "memory");
}
static inline void ipu_xwait(void) { __asm__ volatile(".insn r 0x0B, 2, 0x04, x0, x0, x0" ::: "memory"); }
#endif

#endif
