/*
 * halt_early: tile 1 halts at once; every other tile syncs the IPU and so waits for a
 * tile that will never arrive. The run must end with a sync deadlock naming tile 1.
 */
#include "ipu/xipu.h"

int main(void) {
  if (ipu_tile_id() == 1) return 0;
  ipu_sync(IPU_SYNC_IPU);
  return 0;
}
