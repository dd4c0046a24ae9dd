/* worker start: a worker calls run while six workers (itself included) run. The
 * supervisor starts five workers that spin, then a sixth that starts a seventh. */
#include "fault_common.h"

static volatile uint32_t spins;

static int spin(void *arg) {
  (void)arg;
  for (uint32_t i = 0; i < 2000000u; ++i) spins = spins + 1;
  return 0;
}

FAULT_FN static uint32_t start_one_more(void) {
  uint32_t id;
  __asm__ volatile(FAULT_SITE ".insn r 0x0B, 0, 0x00, %0, %1, %2"
                   : "=r"(id)
                   : "r"(spin), "r"(0)
                   : "memory");
  return id;
}

static int seventh_starter(void *arg) {
  (void)arg;
  return (int)start_one_more();
}

int main(void) {
  printf("fault_worker_start: starting a seventh worker from the sixth\n");
  for (int i = 0; i < 5; ++i) ipu_run(spin, NULL);
  ipu_run(seventh_starter, NULL);
  ipu_join();
  printf("not reached\n");
  return 0;
}
