/* Control flow: nested and early-exit loops, switch (jump tables), function pointers,
 * computed goto, and some classic integer kernels (sieve, sort, CRC-32, Collatz). */
#include "progs_common.h"

static volatile unsigned limit = 2000;

static unsigned sieve(unsigned n) {
  static uint8_t composite[2001];
  memset(composite, 0, sizeof composite);
  unsigned primes = 0;
  for (unsigned i = 2; i <= n; ++i) {
    if (composite[i]) continue;
    ++primes;
    for (unsigned j = i * i; j <= n; j += i) composite[j] = 1;
  }
  return primes;
}

static uint32_t crc32(const uint8_t *p, unsigned n) {
  uint32_t crc = 0xffffffffu;
  while (n--) {
    crc ^= *p++;
    for (int k = 0; k < 8; ++k) crc = (crc >> 1) ^ (0xedb88320u & (0u - (crc & 1u)));
  }
  return ~crc;
}

static void bubble_sort(int32_t *a, unsigned n) {
  for (unsigned i = 0; i + 1 < n; ++i) {
    int swapped = 0;
    for (unsigned j = 0; j + 1 < n - i; ++j)
      if (a[j] > a[j + 1]) {
        int32_t t = a[j];
        a[j] = a[j + 1];
        a[j + 1] = t;
        swapped = 1;
      }
    if (!swapped) break;
  }
}

static unsigned collatz_steps(uint32_t x) {
  unsigned steps = 0;
  do {
    x = (x & 1u) ? 3u * x + 1u : x >> 1;
    ++steps;
  } while (x != 1u);
  return steps;
}

static int classify(int v) {
  switch (v) { /* dense: a jump table */
    case 0: return 10;
    case 1: return 21;
    case 2: return 32;
    case 3: return 43;
    case 4: return 54;
    case 5: return 65;
    case 6: return 76;
    case 7: return 87;
    case 8: return 98;
    case 9: return 109;
    case 100: return -1;
    default: return v * 2;
  }
}

static int32_t add(int32_t a, int32_t b) { return a + b; }
static int32_t sub(int32_t a, int32_t b) { return a - b; }
static int32_t mul(int32_t a, int32_t b) { return a * b; }
static int32_t (*const ops[])(int32_t, int32_t) = {add, sub, mul};

static int32_t interpret(const uint8_t *code) {
  static const void *const dispatch[] = {&&op_push, &&op_add, &&op_mul, &&op_dup, &&op_end};
  int32_t stack[16], *sp = stack;
#define NEXT goto *dispatch[*code++]
  NEXT;
op_push:
  *sp++ = *code++;
  NEXT;
op_add:
  sp[-2] += sp[-1];
  --sp;
  NEXT;
op_mul:
  sp[-2] *= sp[-1];
  --sp;
  NEXT;
op_dup:
  sp[0] = sp[-1];
  ++sp;
  NEXT;
op_end:
  return sp[-1];
#undef NEXT
}

int main(void) {
  unsigned n = limit;
  printf("primes <= %u: %u\n", n, sieve(n));

  uint8_t buf[256];
  for (unsigned i = 0; i < sizeof buf; ++i) buf[i] = (uint8_t)(i * 7 + 3);
  printf("crc32 %08lx\n", (unsigned long)crc32(buf, sizeof buf));

  int32_t a[64];
  uint32_t seed = 12345;
  for (unsigned i = 0; i < 64; ++i) {
    seed = seed * 1103515245u + 12345u;
    a[i] = (int32_t)(seed >> 8) - (1 << 22);
  }
  bubble_sort(a, 64);
  int sorted = 1;
  for (unsigned i = 1; i < 64; ++i) sorted &= a[i - 1] <= a[i];
  printf("sorted %d min %ld max %ld\n", sorted, (long)a[0], (long)a[63]);

  unsigned best = 0, best_x = 0;
  for (uint32_t x = 1; x < 300; ++x) {
    unsigned s = collatz_steps(x);
    if (s > best) best = s, best_x = x;
  }
  printf("longest collatz below 300: %u (%u steps)\n", best_x, best);

  int sum = 0;
  for (int v = -3; v < 120; ++v) sum += classify(v);
  printf("switch sum %d\n", sum);

  int32_t acc = 1;
  for (int i = 0; i < 30; ++i) acc = ops[i % 3](acc, i + 2);
  printf("function pointers %ld\n", (long)acc);

  static const uint8_t program[] = {0, 3, 0, 4, 1, 3, 2, 0, 5, 1, 4}; /* (3+4)^2+5 */
  printf("computed goto %ld\n", (long)interpret(program));

  /* Nested loops with break / continue / labelled exit. */
  unsigned count = 0;
  for (unsigned i = 0; i < 50; ++i) {
    if (i % 7 == 3) continue;
    for (unsigned j = 0; j < 50; ++j) {
      if (j > i) break;
      if ((i ^ j) == 42) goto done;
      count += (i * j) & 3;
    }
  }
done:
  printf("nested count %u\n", count);
  mix(count);
  mix((uint32_t)acc);
  print_hash("loops");
  return 0;
}
