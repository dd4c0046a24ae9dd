/* illegal instruction: a custom-0 encoding Xipu does not define (funct7 0x7f). */
#include "fault_common.h"

FAULT_FN static void trigger(void) { __asm__ volatile(FAULT_SITE ".insn r 0x0B, 0, 0x7f, x0, x0, x0"); }

int main(void) {
  printf("fault_illegal: executing an undefined Xipu instruction\n");
  trigger();
  printf("not reached\n");
  return 0;
}
