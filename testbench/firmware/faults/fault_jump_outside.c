/* access fault: a jump to data (a fetch outside the executable segment). The fault is
 * at the jump target, `fault_target`; `fault_site` is the jump itself. */
#include "fault_common.h"

/* A valid instruction (addi x0, x0, 0) in data: executing it must still fault. */
uint32_t fault_target[4] __attribute__((aligned(16))) = {0x00000013u, 0x00000013u};

FAULT_FN static void trigger(void *target) {
  __asm__ volatile(FAULT_SITE "jalr ra, 0(%0)" ::"r"(target) : "ra", "memory");
}

int main(void) {
  printf("fault_jump_outside: jumping into .data\n");
  trigger(fault_target);
  printf("not reached\n");
  return 0;
}
