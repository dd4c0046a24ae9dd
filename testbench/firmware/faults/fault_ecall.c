/* ecall: there is no operating system on a tile. */
#include "fault_common.h"

FAULT_FN static void trigger(void) { __asm__ volatile(FAULT_SITE "ecall" ::: "memory"); }

int main(void) {
  printf("fault_ecall: making a system call\n");
  trigger();
  printf("not reached\n");
  return 0;
}
