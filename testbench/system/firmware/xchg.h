/*
 * The exchange instructions of docs/xipu.md (funct3 = 2) for the system tests. The ISS
 * work adds them to ipu/xipu.h; these local copies (tb_ prefix, so both can coexist) keep
 * the tests independent of when that lands.
 */
#ifndef TB_XCHG_H
#define TB_XCHG_H

#include <stdint.h>

/* Adds the tiles first .. first + count - 1 (global ids) to the pending destinations. */
static inline void tb_xdst(uint32_t first, uint32_t count) {
  __asm__ volatile(".insn r 0x0B, 2, 0x00, x0, %0, %1" ::"r"(first), "r"(count) : "memory");
}
/* Posts a send of len bytes at addr to the pending destinations. */
static inline void tb_send(const void *addr, uint32_t len) {
  __asm__ volatile(".insn r 0x0B, 2, 0x01, x0, %0, %1" ::"r"(addr), "r"(len) : "memory");
}
/* Sets the source tile (global id) of the next receive. */
static inline void tb_xsrc(uint32_t tile) {
  __asm__ volatile(".insn r 0x0B, 2, 0x02, x0, %0, x0" ::"r"(tile) : "memory");
}
/* Posts a receive of len bytes into addr. */
static inline void tb_recv(void *addr, uint32_t len) {
  __asm__ volatile(".insn r 0x0B, 2, 0x03, x0, %0, %1" ::"r"(addr), "r"(len) : "memory");
}
/* Closes the exchange phase and waits for this tile's part of it. */
static inline void tb_xwait(void) { __asm__ volatile(".insn r 0x0B, 2, 0x04, x0, x0, x0" ::: "memory"); }

/* The global id of this tile. */
static inline uint32_t tb_global_tile(void) {
  return ipu_id() * ipu_num_tiles() + ipu_tile_id();
}

#endif
