/* misaligned access: a 4-byte load from an address that is 2 mod 4. */
#include "fault_common.h"

static uint32_t words[4] = {1, 2, 3, 4};

FAULT_FN static uint32_t trigger(const uint32_t *p) {
  uint32_t v;
  __asm__ volatile(FAULT_SITE "lw %0, 2(%1)" : "=r"(v) : "r"(p));
  return v;
}

int main(void) {
  printf("fault_misaligned: loading a word from a halfword-aligned address\n");
  printf("not reached %lu\n", (unsigned long)trigger(words));
  return 0;
}
