/* Exchange error: tile 0 sends 16 bytes to tile 1, which posts no receive. */
#include "xerr_common.h"

static void xerr_role(uint32_t tile) {
  if (tile == 0) {
    ipu_xdst(1, 1);
    ipu_send(tx, sizeof tx);
  }
}
