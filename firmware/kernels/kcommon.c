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

uint32_t kc_hash_words(uint32_t h, const float *p, uint32_t n) {
#ifndef KERNELS_HOST
  if (n >= 2 && n % 2u == 0 && (uintptr_t)p % 8u == 0) {
    const uint32_t prime = 16777619u, runs = n / 2u - 1u;
    uint32_t w0, w1;
    /* A pair's chain is xor, mul, xor, mul; its last mul waits for the next step, where
     * it pairs with an fmv.x.w (and no slot of the body pairs with the instruction after
     * the body). */
#define H_STEP "xor %[h], %[h], %[w0]\n\t" "fmv.x.w %[w1], f1\n\t" \
               "mul %[h], %[h], %[prime]\n\t" "xor %[h], %[h], %[w1]\n\t"
    __asm__ volatile(IPU_OP_LD64_PI_INSN ", f0, %[p], x0\n\t"
                     "fmv.x.w %[w0], f0\n\t"
                     H_STEP
                     IPU_RPT("%[n]", 7) "\n\t"
                     IPU_OP_LD64_PI_INSN ", f0, %[p], x0\n\t"
                     "fmv.x.w %[w0], f0\n\t"
                     "mul %[h], %[h], %[prime]\n\t"
                     H_STEP
                     "mul %[h], %[h], %[prime]"
                     : [h] "+r"(h), [p] "+r"(p), [w0] "=&r"(w0), [w1] "=&r"(w1)
                     : [n] "r"(runs), [prime] "r"(prime)
                     : "f0", "f1", "memory");
#undef H_STEP
    return h;
  }
#endif
  for (uint32_t i = 0; i < n; ++i) h = kin_hash_word(h, kc_bits(p[i]));
  return h;
}
