/* illegal instruction: a worker executes the supervisor-only `halt`. */
#include "fault_common.h"

FAULT_FN static void halt_from_worker(void) {
  __asm__ volatile(FAULT_SITE ".insn r 0x0B, 0, 0x03, x0, zero, x0");
}

static int worker(void *arg) {
  (void)arg;
  halt_from_worker();
  return 0;
}

int main(void) {
  printf("fault_worker_halt: a worker executes halt\n");
  ipu_run(worker, NULL);
  ipu_join();
  printf("not reached\n");
  return 0;
}
