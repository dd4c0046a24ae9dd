/*
 * The program the debugger tests stop and step: on every tile the six workers each sum
 * a run of integers with accumulate() and store it in totals[worker]; the supervisor
 * adds them up, syncs and prints "tile T checksum N".
 */
#include <stdint.h>
#include <stdio.h>

#include "ipu/xipu.h"

volatile int32_t totals[7];
int32_t checksum;

__attribute__((noinline)) int32_t accumulate(int32_t first, int32_t count) {
  int32_t sum = 0;
  for (int32_t i = 0; i < count; ++i) {
    sum += first + i;
  }
  return sum;
}

static int worker(void *arg) {
  const uint32_t w = ipu_thread_id();
  const int32_t count = 20 + (int32_t)ipu_tile_id() + (int32_t)w;
  totals[w] = accumulate((int32_t)(uintptr_t)arg, count);
  return 0;
}

int main(void) {
  for (uintptr_t w = 1; w <= 6; ++w) ipu_run(worker, (void *)(w * 100));
  ipu_join();
  for (uint32_t w = 1; w <= 6; ++w) checksum += totals[w];
  ipu_sync(1);
  printf("tile %u checksum %ld\n", (unsigned)ipu_tile_id(), (long)checksum);
  return 0;
}
