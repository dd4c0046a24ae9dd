/*
 * hello: every tile prints who it is. Run it on a whole chip:
 *   ipusim run --config configs/gc200.yaml --elf build/firmware/hello.elf
 */
#include <stdio.h>

#include "ipu/xipu.h"

int main(void) {
  printf("hello from tile %u of %u on ipu %u\n", (unsigned)ipu_tile_id(),
         (unsigned)ipu_num_tiles(), (unsigned)ipu_id());
  return 0;
}
