/*
 * supersteps: the chip speed benchmark's kernel. Every tile runs SUPERSTEPS supersteps;
 * in each, the supervisor starts six workers that each run a compute-bound integer / f32
 * loop of about WORK_INSNS instructions, joins them, and syncs the IPU. The work differs
 * per tile and worker only in its data, so every tile retires the same instruction count.
 * Prints one checksum line from tile 0 (the others stay quiet so the console is not
 * what is measured).
 */
#include <stdint.h>
#include <stdio.h>

#include <ipu/xipu.h>

#ifndef WORK_INSNS
#define WORK_INSNS 10000 /* instructions per worker per superstep (approximate) */
#endif
#ifndef SUPERSTEPS
#define SUPERSTEPS 8
#endif
#define WORKERS 6
#define INSNS_PER_ITER 9 /* the loop body below, as compiled at -O2 */

static volatile uint32_t results[WORKERS];

static int work(void *arg) {
  uint32_t w = (uint32_t)(uintptr_t)arg;
  uint32_t x = 0x9e3779b9u * (w + 1) + ipu_tile_id();
  float f = (float)w;
  for (int i = 0; i < WORK_INSNS / INSNS_PER_ITER; ++i) {
    x = x * 1664525u + 1013904223u;
    f = f * 0.999f + (float)(x >> 20);
    x ^= x >> 13;
  }
  results[w] = x ^ (uint32_t)f;
  return 0;
}

int main(void) {
  uint32_t sum = 0;
  for (int s = 0; s < SUPERSTEPS; ++s) {
    for (uint32_t w = 0; w < WORKERS; ++w) ipu_run(work, (void *)(uintptr_t)w);
    ipu_join();
    for (int w = 0; w < WORKERS; ++w) sum = sum * 31u + results[w];
    ipu_sync(IPU_SYNC_IPU);
  }
  if (ipu_tile_id() == 0 && ipu_id() == 0)
    printf("supersteps: %d x %d insns/worker, checksum 0x%08lx\n", SUPERSTEPS, WORK_INSNS,
           (unsigned long)sum);
  return 0;
}
