/* Recursion and the stack: naive Fibonacci, Ackermann, Towers of Hanoi, mutual
 * recursion, recursive quicksort, a deep recursion with a large frame, and
 * setjmp / longjmp out of nested calls. */
#include <setjmp.h>

#include "progs_common.h"

static unsigned fib(unsigned n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }

static unsigned ackermann(unsigned m, unsigned n) {
  if (m == 0) return n + 1;
  if (n == 0) return ackermann(m - 1, 1);
  return ackermann(m - 1, ackermann(m, n - 1));
}

static unsigned hanoi_moves;
static uint32_t hanoi_trace;
static void hanoi(unsigned n, unsigned from, unsigned to, unsigned via) {
  if (n == 0) return;
  hanoi(n - 1, from, via, to);
  ++hanoi_moves;
  hanoi_trace = hanoi_trace * 3u + from * 4u + to;
  hanoi(n - 1, via, to, from);
}

static int is_odd(unsigned n);
static int is_even(unsigned n) { return n == 0 ? 1 : is_odd(n - 1); }
static int is_odd(unsigned n) { return n == 0 ? 0 : is_even(n - 1); }

static void quicksort(int32_t *a, int lo, int hi) {
  if (lo >= hi) return;
  int32_t pivot = a[(lo + hi) / 2];
  int i = lo, j = hi;
  while (i <= j) {
    while (a[i] < pivot) ++i;
    while (a[j] > pivot) --j;
    if (i <= j) {
      int32_t t = a[i];
      a[i++] = a[j];
      a[j--] = t;
    }
  }
  quicksort(a, lo, j);
  quicksort(a, i, hi);
}

/* A frame of ~100 bytes per level, 400 levels deep: ~40 KiB of stack. */
static uint32_t deep(unsigned depth, volatile uint32_t *parent) {
  volatile uint32_t local[20];
  for (unsigned i = 0; i < 20; ++i) local[i] = depth * 31u + i + (parent ? parent[i] : 0u);
  if (depth == 0) return local[19];
  return deep(depth - 1, local) ^ local[depth % 20];
}

static jmp_buf escape;
static unsigned unwind_depth;
static void dive(unsigned n) {
  if (n == 0) longjmp(escape, 42);
  ++unwind_depth;
  if (n < 1000) dive(n - 1);
}

int main(void) {
  printf("fib(20) = %u\n", fib(20));
  printf("ackermann(2, 3) = %u, ackermann(3, 3) = %u\n", ackermann(2, 3), ackermann(3, 3));
  hanoi(10, 1, 3, 2);
  printf("hanoi(10): %u moves, trace %08lx\n", hanoi_moves, (unsigned long)hanoi_trace);
  printf("is_even(1001) = %d, is_odd(777) = %d\n", is_even(1001), is_odd(777));

  int32_t v[200];
  uint32_t seed = 99;
  for (int i = 0; i < 200; ++i) {
    seed ^= seed << 13;
    seed ^= seed >> 17;
    seed ^= seed << 5;
    v[i] = (int32_t)(seed % 20001u) - 10000;
  }
  quicksort(v, 0, 199);
  int ok = 1;
  for (int i = 1; i < 200; ++i) ok &= v[i - 1] <= v[i];
  printf("quicksort ok %d: %ld %ld %ld\n", ok, (long)v[0], (long)v[100], (long)v[199]);

  printf("deep(400) = %08lx\n", (unsigned long)deep(400, NULL));

  int r = setjmp(escape);
  if (r == 0) {
    dive(50);
    printf("not reached\n");
  } else {
    printf("longjmp returned %d after %u levels\n", r, unwind_depth);
  }
  mix(hanoi_trace);
  mix(fib(15));
  print_hash("recursion");
  return 0;
}
