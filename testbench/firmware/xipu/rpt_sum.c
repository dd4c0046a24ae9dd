/*
 * rpt from C (docs/xipu.md "Zero-overhead loops"): sums an array with a three-instruction
 * rpt body in inline asm (IPU_RPT) and checks the sum and the cycle count: the csrr
 * before, the rpt and 3 slots per element, nothing for the loop, so the second csrr
 * issues 6 * (2 + 3n) cycles after the first. The same sum with a branch loop costs two
 * more slots per element (the counter and the branch). Exit status 0: both right.
 */
#include <stdint.h>
#include <stdio.h>

#include "ipu/xipu.h"

#define N 200

static int32_t data[N];

/* The sum of p[0..n), and the cycles from the first csrr to the second. */
static uint32_t sum_rpt(const int32_t *p, uint32_t n, uint32_t *cycles) {
  uint32_t sum = 0, v, c0, c1;
  __asm__ volatile("csrr %[c0], cycle\n\t"
                   IPU_RPT("%[n]", 3) "\n\t"
                   "lw %[v], 0(%[p])\n\t"
                   "add %[s], %[s], %[v]\n\t"
                   "addi %[p], %[p], 4\n\t"
                   "csrr %[c1], cycle"
                   : [s] "+r"(sum), [p] "+r"(p), [v] "=&r"(v), [c0] "=&r"(c0), [c1] "=&r"(c1)
                   : [n] "r"(n)
                   : "memory");
  *cycles = c1 - c0;
  return sum;
}

/* The same loop with a counter and a branch. */
static uint32_t sum_branch(const int32_t *p, uint32_t n, uint32_t *cycles) {
  uint32_t sum = 0, v, c0, c1;
  __asm__ volatile("csrr %[c0], cycle\n\t"
                   "beqz %[n], 2f\n"
                   "1:\n\t"
                   "lw %[v], 0(%[p])\n\t"
                   "add %[s], %[s], %[v]\n\t"
                   "addi %[p], %[p], 4\n\t"
                   "addi %[n], %[n], -1\n\t"
                   "bnez %[n], 1b\n"
                   "2:\n\t"
                   "csrr %[c1], cycle"
                   : [s] "+r"(sum), [p] "+r"(p), [n] "+r"(n), [v] "=&r"(v), [c0] "=&r"(c0), [c1] "=&r"(c1)
                   :
                   : "memory");
  *cycles = c1 - c0;
  return sum;
}

static int check(const char *what, uint32_t n) {
  uint32_t want = 0, cycles, cycles_branch;
  for (uint32_t i = 0; i < n; ++i) want += (uint32_t)data[i];
  const uint32_t sum = sum_rpt(data, n, &cycles);
  const uint32_t sum_b = sum_branch(data, n, &cycles_branch);
  const uint32_t want_cycles = 6 * (2 + 3 * n);
  const uint32_t want_branch = n ? 6 * (2 + 5 * n) : 6 * 2;
  const int ok = sum == want && sum_b == want && cycles == want_cycles && cycles_branch == want_branch;
  printf("rpt_sum %s: n %lu sum %ld (want %ld) cycles %lu (want %lu) branch loop %lu (want %lu): %s\n", what,
         (unsigned long)n, (long)(int32_t)sum, (long)(int32_t)want, (unsigned long)cycles, (unsigned long)want_cycles,
         (unsigned long)cycles_branch, (unsigned long)want_branch, ok ? "ok" : "FAIL");
  return ok;
}

int main(void) {
  for (uint32_t i = 0; i < N; ++i) data[i] = (int32_t)(i * 7919u % 1000u) - 400;
  /* A line per check, then the summary every program of this folder prints
   * (xipu_firmware_test.cpp). */
  const int failures = !check("all", N) + !check("one", 1) + !check("none", 0);
  printf("rpt_sum: %d failures\n", failures);
  return failures ? 1 : 0;
}
