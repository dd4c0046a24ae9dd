/* illegal instruction: a write to the read-only Xipu CSR `tile`. */
#include "fault_common.h"

FAULT_FN static void trigger(uint32_t v) {
  __asm__ volatile(FAULT_SITE "csrw 0xCC0, %0" ::"r"(v));
}

int main(void) {
  printf("fault_csr_write: writing the read-only tile CSR\n");
  trigger(5);
  printf("not reached\n");
  return 0;
}
