/* access fault: a store into the program's own code (code is read-only: W^X). */
#include "fault_common.h"

FAULT_FN static void trigger(void *code) {
  __asm__ volatile(FAULT_SITE "sw zero, 0(%0)" ::"r"(code) : "memory");
}

int main(void) {
  printf("fault_store_code: storing over main()\n");
  trigger((void *)main);
  printf("not reached\n");
  return 0;
}
