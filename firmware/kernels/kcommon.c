/*
 * kcommon.c: helpers shared by the kernels (see kcommon.h).
 */
#include "kcommon.h"

#include <stdlib.h>
#include <string.h>
#ifndef KERNELS_HOST
#include <unistd.h>
#endif

KTILE volatile struct kc_result kc_result;

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
#ifdef KERNELS_HOST
  void *p = malloc(bytes);
#else
  const uintptr_t brk = (uintptr_t)sbrk(0);
  void *p = sbrk((ptrdiff_t)(((8 - brk % 8) % 8) + ((bytes + 7) & ~(size_t)7)));
  if (p == (void *)-1)
    p = NULL;
  else
    p = (void *)(((uintptr_t)p + 7) & ~(uintptr_t)7);
#endif
  if (!p)
    kprintf("tile %lu: out of memory for %s (%lu bytes)\n", (unsigned long)ipu_tile_id(),
            what, (unsigned long)bytes);
  return p;
}

void *kc_alloc16(size_t bytes, const char *what) {
  uint8_t *p = kc_alloc(bytes + 8, what);
  return p ? p + ((uintptr_t)p % 16u) : NULL;
}
