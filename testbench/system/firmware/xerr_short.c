/* Exchange error: tile 0 sends 8 bytes to tile 1, whose matching receive expects 16 (the
 * send shorter than its receive; xerr_length.c is the longer one). */
#include "xerr_common.h"

static void xerr_role(uint32_t tile) {
  if (tile == 0) {
    ipu_xdst(1, 1);
    ipu_send(tx, 8);
  } else if (tile == 1) {
    ipu_xsrc(0);
    ipu_recv(rx, sizeof rx);
  }
}
