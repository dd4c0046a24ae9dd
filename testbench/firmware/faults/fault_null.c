/* access fault: a load through a null pointer (address 0 is never mapped). */
#include "fault_common.h"

FAULT_FN static uint32_t trigger(const volatile uint32_t *p) {
  uint32_t v;
  __asm__ volatile(FAULT_SITE "lw %0, 0(%1)" : "=r"(v) : "r"(p));
  return v;
}

int main(void) {
  printf("fault_null: loading through a null pointer\n");
  printf("not reached %lu\n", (unsigned long)trigger(0));
  return 0;
}
