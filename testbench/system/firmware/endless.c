/*
 * endless: tile 3 of every IPU never halts: spin_forever() loops without a sync, the bug
 * run budgets, timeouts and the driver's abort() exist for. Every other tile halts at
 * once. Built with ENDLESS_ALL as endless_all: every tile loops (a whole chip stuck).
 */
#include "ipu/xipu.h"

static volatile unsigned counter;

__attribute__((noinline)) void spin_forever(void) {
  for (;;) ++counter;
}

int main(void) {
#ifndef ENDLESS_ALL
  if (ipu_tile_id() != 3) return 0;
#endif
  spin_forever();
  return 0;
}
