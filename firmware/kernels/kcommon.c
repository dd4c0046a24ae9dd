/*
 * kcommon.c: helpers shared by the kernels (see kcommon.h).
 */
#include "kcommon.h"

#include <stdlib.h>
#include <string.h>

void kc_gather_to_tile0(const void *rec, uint32_t len, void *all) {
  const uint32_t me = ipu_tile_id(), tiles = ipu_num_tiles(), base = kc_ipu_base();
  ipu_sync(IPU_SYNC_IPU);
  if (me == 0) {
    memcpy(all, rec, len);
    for (uint32_t t = 1; t < tiles; ++t) {
      ipu_xsrc(base + t);
      ipu_recv((uint8_t *)all + (size_t)t * len, len);
    }
  } else {
    ipu_xdst(base, 1);
    ipu_send(rec, len);
  }
  ipu_xwait();
}

void *kc_alloc(size_t bytes, const char *what) {
  void *p = malloc(bytes);
  if (!p)
    kprintf("tile %lu: out of memory for %s (%lu bytes)\n", (unsigned long)ipu_tile_id(),
            what, (unsigned long)bytes);
  return p;
}
