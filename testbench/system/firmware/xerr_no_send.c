/* Exchange error: tile 1 expects 16 bytes from tile 0, which sends nothing. */
#include "xerr_common.h"

static void xerr_role(uint32_t tile) {
  if (tile == 1) {
    ipu_xsrc(0);
    ipu_recv(rx, sizeof rx);
  }
}
