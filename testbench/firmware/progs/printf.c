/* printf (picolibc tinystdio) of integers and floating point in many formats. */
#include <float.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>

#include "progs_common.h"

int main(void) {
  static volatile int ints[] = {0, 1, -1, 42, -42, 1000000, INT_MAX, INT_MIN};
  for (unsigned i = 0; i < COUNT_OF(ints); ++i) {
    int v = ints[i];
    printf("[%d] [%i] [%u] [%x] [%X] [%o] [%5d] [%-5d] [%05d] [%+d] [% d] [%#x] [%#o] [%.3d]\n", v,
           v, (unsigned)v, (unsigned)v, (unsigned)v, (unsigned)v, v, v, v, v, v, (unsigned)v,
           (unsigned)v, v);
  }
  static volatile long long wide[] = {0LL, -1LL, LLONG_MAX, LLONG_MIN, 0x123456789abcdefLL};
  for (unsigned i = 0; i < COUNT_OF(wide); ++i)
    printf("[%lld] [%llu] [%llx] [%20lld]\n", wide[i], (unsigned long long)wide[i],
           (unsigned long long)wide[i], wide[i]);
  printf("[%" PRId32 "] [%" PRIu32 "] [%" PRIx32 "] [%hhd] [%hd] [%zu] [%ld]\n", INT32_MIN,
         UINT32_MAX, (uint32_t)0xdeadbeefu, (signed char)200, (short)40000, sizeof(double), LONG_MIN);
  printf("[%c%c%c] [%s] [%10s] [%-10s] [%.2s] [%%] [%*d] [%-*d] [%.*f]\n", 'i', 'p', 'u',
         "tile", "right", "left", "truncate", 6, 7, 6, 7, 2, 3.14159);

  static volatile float floats[] = {0.0f, -0.0f, 1.0f, -1.5f, 3.14159265f, 1e-10f,
                                    123456.789f, 1e30f, FLT_MAX, FLT_MIN, 1.4e-45f};
  for (unsigned i = 0; i < COUNT_OF(floats); ++i) {
    double d = floats[i];
    printf("[%f] [%.2f] [%e] [%.3E] [%g] [%G] [%10.4f] [%-12.3e] [%+.1f]\n", d, d, d, d, d, d, d,
           d, d);
  }
  static volatile double doubles[] = {0.1, 2.5, 1e100, -1e-100, 123456789012345.0, 0.5e-320};
  for (unsigned i = 0; i < COUNT_OF(doubles); ++i)
    printf("[%.17g] [%.0f] [%#.0f] [%a]\n", doubles[i], doubles[i], doubles[i], doubles[i]);
  double inf = 1.0 / (doubles[0] - doubles[0]);
  printf("[%f] [%F] [%e] [%g] [%f] [%5.1f]\n", inf, -inf, inf, -inf, nan(""), inf);
  printf("rounding of ties: [%.0f] [%.0f] [%.0f] [%.1f] [%.1f] [%.2f]\n", 0.5, 1.5, 2.5, 0.25,
         0.35, 1.005);
  int n = printf("length of this line\n");
  printf("printf returned %d\n", n);
  puts("puts adds a newline");
  putchar('x');
  putchar('\n');
  fputs("fputs to stdout\n", stdout);
  fprintf(stderr, "stderr goes to the same console\n");
  return 0;
}
