/* Exchange error (an ISS fault): tile 2 posts a send to tile 3 before any sync, in its
 * compute phase. */
#include <stdint.h>

#include "ipu/xipu.h"

uint32_t tx[4] = {0x11111111u, 0x22222222u, 0x33333333u, 0x44444444u};

int main(void) {
  if (ipu_global_tile_id() == 2) {
    ipu_xdst(3, 1);
    ipu_send(tx, sizeof tx);
  }
  ipu_sync(IPU_SYNC_IPU);
  return 0;
}
