/*
 * spin: the compute-bound loop behind the chip speed figures. Every superstep the six
 * workers each run SPIN_ITERS iterations of a 10-instruction integer loop body (about
 * 10 * SPIN_ITERS instructions per worker), the supervisor joins them and syncs the IPU;
 * SPIN_STEPS supersteps, then tile 0 prints the result.
 */
#include <stdint.h>
#include <stdio.h>

#include "ipu/xipu.h"

#ifndef SPIN_ITERS
#define SPIN_ITERS 1000
#endif
#ifndef SPIN_STEPS
#define SPIN_STEPS 10
#endif

static uint32_t results[6];

static int spin(void *arg) {
  uint32_t *out = arg;
  uint32_t a = (uint32_t)(uintptr_t)arg, b = 7, c = 0;
  for (uint32_t i = 0; i < SPIN_ITERS; ++i) {
    /* 10 instructions per iteration with the loop's addi / bne */
    __asm__ volatile(
        "add %0, %0, %1\n\t"
        "xor %1, %1, %0\n\t"
        "slli %2, %0, 3\n\t"
        "sub %0, %0, %2\n\t"
        "or %2, %2, %1\n\t"
        "srli %1, %1, 1\n\t"
        "add %2, %2, %0\n\t"
        "xor %0, %0, %2\n\t"
        : "+r"(a), "+r"(b), "+r"(c));
  }
  *out = a ^ b ^ c;
  return 0;
}

int main(void) {
  uint32_t acc = 0;
  for (uint32_t s = 0; s < SPIN_STEPS; ++s) {
    for (uint32_t w = 0; w < 6; ++w) ipu_run(spin, &results[w]);
    ipu_join();
    for (uint32_t w = 0; w < 6; ++w) acc += results[w];
    ipu_sync(IPU_SYNC_IPU);
  }
  if (ipu_tile_id() == 0) printf("spin: %d steps of %d iterations, %08lx\n", SPIN_STEPS, SPIN_ITERS, (unsigned long)acc);
  return 0;
}
