/*
 * The exchange error programs (xerr_*.c) on a 4-tile IPU: every tile syncs, then runs
 * its part of a broken exchange (xerr_role), then waits for it. Besides the broken pair,
 * tiles 2 -> 3 form a valid pair: a failed exchange must deliver nothing, so tile 3's
 * receive buffer `rx` must keep its initial words too (the tests read it after the run).
 */
#ifndef XERR_COMMON_H
#define XERR_COMMON_H

#include <stdint.h>

#include "ipu/xipu.h"

uint32_t tx[4] = {0x11111111u, 0x22222222u, 0x33333333u, 0x44444444u};
uint32_t rx[4] = {0xa5a5a5a5u, 0xa5a5a5a5u, 0xa5a5a5a5u, 0xa5a5a5a5u};

static void xerr_role(uint32_t tile);  /* the broken part, per program */

static void valid_pair(uint32_t tile) {
  if (tile == 2) {
    ipu_xdst(3, 1);
    ipu_send(tx, sizeof tx);
  } else if (tile == 3) {
    ipu_xsrc(2);
    ipu_recv(rx, sizeof rx);
  }
}

int main(void) {
  const uint32_t tile = ipu_global_tile_id();
  ipu_sync(IPU_SYNC_IPU);
  valid_pair(tile);
  xerr_role(tile);
  ipu_xwait();
  return 0;
}

#endif
