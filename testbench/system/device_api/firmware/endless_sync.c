/* endless_sync: every tile syncs the IPU forever; a run of it ends only by abort or reset
 * (the device-API timeout tests). */
#include "ipu/xipu.h"

int main(void) {
  for (;;) ipu_sync(IPU_SYNC_IPU);
  return 0;
}
