/* Bit manipulation without Zbb: libgcc's clz / ctz / popcount / bswap and open-coded
 * rotates, bit reversal and parity, on 32- and 64-bit values. */
#include "progs_common.h"

static uint32_t rotl(uint32_t x, unsigned r) { return (x << (r & 31)) | (x >> ((32 - r) & 31)); }

static uint32_t reverse(uint32_t x) {
  x = ((x >> 1) & 0x55555555u) | ((x & 0x55555555u) << 1);
  x = ((x >> 2) & 0x33333333u) | ((x & 0x33333333u) << 2);
  x = ((x >> 4) & 0x0f0f0f0fu) | ((x & 0x0f0f0f0fu) << 4);
  return __builtin_bswap32(x);
}

static volatile uint32_t values[] = {1u,          2u,          3u,          0x80000000u,
                                     0xffffffffu, 0x00010000u, 0x12345678u, 0xf0f0f0f0u,
                                     0x0000ff00u, 0x7fffffffu, 0xdeadbeefu, 0x00000100u};

int main(void) {
  for (unsigned i = 0; i < COUNT_OF(values); ++i) {
    uint32_t v = values[i];
    uint64_t w = ((uint64_t)v << 32) | (v >> 3);
    printf("%08lx clz %2d ctz %2d pop %2d par %d bswap %08lx rev %08lx rotl7 %08lx | "
           "clzll %2d ctzll %2d popll %2d bswap64 %016llx\n",
           (unsigned long)v, __builtin_clz(v), __builtin_ctz(v), __builtin_popcount(v),
           __builtin_parity(v), (unsigned long)__builtin_bswap32(v), (unsigned long)reverse(v),
           (unsigned long)rotl(v, 7), __builtin_clzll(w), __builtin_ctzll(w),
           __builtin_popcountll(w), (unsigned long long)__builtin_bswap64(w));
    mix(reverse(v) ^ rotl(v, i));
  }
  /* Signed / unsigned shifts and extensions through C. */
  static volatile int32_t s[] = {-1, -128, 127, INT32_MIN, 0x12345678};
  for (unsigned i = 0; i < COUNT_OF(s); ++i) {
    int32_t v = s[i];
    printf("%ld: >>3 %ld, (u)>>3 %lu, (int8) %d, (uint8) %u, (int16) %d, <<4 %ld\n", (long)v,
           (long)(v >> 3), (unsigned long)((uint32_t)v >> 3), (int8_t)v, (uint8_t)v, (int16_t)v,
           (long)(int32_t)((uint32_t)v << 4));
  }
  print_hash("bitops");
  return 0;
}
