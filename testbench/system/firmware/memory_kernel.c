/*
 * memory_kernel.c: known memory use for the memory report's tests
 * (testbench/system/cli/memory_report_test.cpp, docs/memory_report.md).
 *
 * Each thread's deepest point is a function with a variable-length array, deeper than
 * anything else the thread calls (printf from main included); the function reads its sp
 * there, and main prints every thread's after joining them, so the test compares the
 * report's lowest sp with the thread's own. Worker k (k = 1..6) goes k x 256 + 64 bytes
 * deep. The heap: one malloc, and main prints the break it left. The exchange: a ring of
 * one 64-byte message per tile into memk_inbox. Known symbols: memk_table (bss, 3000 B)
 * and memk_rodata (rodata, 1200 B).
 *
 * Built as stack_overflow.elf with MEMK_OVERFLOW: worker 2 asks for 6000 bytes, more
 * than its 4 KiB stack; the memory watch stops it before it writes them.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "ipu/xipu.h"

extern char __heap_start[];

char memk_table[3000];
const uint32_t memk_rodata[300] = {1, 2, 3};
static volatile uint32_t memk_sp[7];
static uint32_t memk_inbox[16], memk_outbox[16];

static inline uint32_t current_sp(void) {
  uint32_t sp;
  __asm__ volatile("mv %0, sp" : "=r"(sp));
  return sp;
}

/* Goes `bytes` deep below its frame, writes all of it, records sp there. */
__attribute__((noinline)) static uint32_t deepest(uint32_t thread, uint32_t bytes) {
  volatile uint8_t buf[bytes];
  for (uint32_t i = 0; i < bytes; ++i) buf[i] = (uint8_t)(i + thread);
  memk_sp[thread] = current_sp();
  return buf[bytes / 2];
}

static int worker(void *arg) {
  const uint32_t k = ipu_thread_id();
  (void)arg;
#ifdef MEMK_OVERFLOW
  return (int)deepest(k, k == 2 ? 6000 : 128);
#else
  return (int)deepest(k, k * 256 + 64);
#endif
}

int main(void) {
  for (uint32_t w = 0; w < 6; ++w) ipu_run(worker, NULL);
  ipu_join();
  deepest(0, 5000);
  char *block = malloc(1000);
  block[0] = (char)memk_rodata[ipu_tile_id() % 3];
  memk_table[ipu_tile_id()] = block[0];

  const uint32_t tile = ipu_tile_id(), tiles = ipu_num_tiles(), base = ipu_id() * tiles;
  for (uint32_t i = 0; i < 16; ++i) memk_outbox[i] = tile * 100 + i;
  ipu_sync(IPU_SYNC_IPU);
  ipu_xdst(base + (tile + 1) % tiles, 1);
  ipu_send(memk_outbox, sizeof memk_outbox);
  ipu_xsrc(base + (tile + tiles - 1) % tiles);
  ipu_recv(memk_inbox, sizeof memk_inbox);
  ipu_xwait();

  for (uint32_t t = 0; t < 7; ++t) printf("memk thread %lu sp 0x%08lx\n", (unsigned long)t, (unsigned long)memk_sp[t]);
  printf("memk heap used %ld inbox 0x%08lx\n", (long)((char *)sbrk(0) - __heap_start), (unsigned long)(uintptr_t)memk_inbox);
  return memk_inbox[0] == ((tile + tiles - 1) % tiles) * 100 ? 0 : 1;
}
