/* access fault: a store to the first byte past the end of the tile's SRAM. */
#include "fault_common.h"

FAULT_FN static void trigger(uint32_t addr) {
  __asm__ volatile(FAULT_SITE "sw zero, 0(%0)" ::"r"(addr) : "memory");
}

int main(void) {
  printf("fault_out_of_sram: storing past the end of SRAM\n");
  trigger(ipu_sram_base() + ipu_sram_size());
  printf("not reached\n");
  return 0;
}
