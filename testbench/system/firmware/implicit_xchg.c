/*
 * implicit_xchg: postings closed without an xwait. Tile t and its partner t ^ 1 swap a
 * word, then sync (the sync performs the exchange first) and print what arrived; then
 * they swap again and halt (the halt performs the exchange first).
 */
#include <stdint.h>
#include <stdio.h>

#include "ipu/xipu.h"

static uint32_t mine, theirs;

static void swap_with_partner(void) {
  const uint32_t partner = ipu_global_tile_id() ^ 1u;
  ipu_xdst(partner, 1);
  ipu_send(&mine, sizeof mine);
  ipu_xsrc(partner);
  ipu_recv(&theirs, sizeof theirs);
}

int main(void) {
  mine = 0x1000u + ipu_tile_id();
  ipu_sync(IPU_SYNC_IPU);
  swap_with_partner();
  ipu_sync(IPU_SYNC_IPU);  /* exchanges first */
  printf("got %lx\n", (unsigned long)theirs);
  mine += 0x100u;
  swap_with_partner();
  return 0;                /* the halt exchanges first */
}
