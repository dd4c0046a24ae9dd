/*
 * Helpers shared by the differential test programs. Every program runs unchanged on a
 * tile (ipusim) and under qemu-riscv32, so it uses no Xipu operation and prints nothing
 * that may legitimately differ between the two (cycle or instret counts, addresses).
 *
 * Inputs are read through volatile tables so the compiler cannot fold the operations
 * under test into constants.
 */
#ifndef PROGS_COMMON_H
#define PROGS_COMMON_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define COUNT_OF(a) (sizeof(a) / sizeof((a)[0]))

static inline uint32_t f2u(float f) {
  uint32_t u;
  memcpy(&u, &f, sizeof u);
  return u;
}

static inline float u2f(uint32_t u) {
  float f;
  memcpy(&f, &u, sizeof f);
  return f;
}

/* A running hash of everything a program computes, printed at its end (cheap: the
 * programs stay small enough to trace instruction by instruction). */
static uint32_t progs_hash = 2166136261u;
static inline void mix(uint32_t v) {
  progs_hash = (((progs_hash << 5) | (progs_hash >> 27)) ^ v) * 16777619u;
}
static inline void print_hash(const char *name) { printf("%s hash %08lx\n", name, (unsigned long)progs_hash); }

#endif
