/* Exchange error (an ISS fault): tile 1 posts a receive from tile 0 into an address below
 * the tile's SRAM. */
#include "xerr_common.h"

static void xerr_role(uint32_t tile) {
  if (tile == 0) {
    ipu_xdst(1, 1);
    ipu_send(tx, sizeof tx);
  } else if (tile == 1) {
    ipu_xsrc(0);
    ipu_recv((void *)0x1000, sizeof tx);
  }
}
