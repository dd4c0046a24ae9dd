/*
 * vecadd: the supervisor splits c = a + b over the tile's workers (six on every chip),
 * starts them with ipu_run, waits with ipu_join, checks every element and prints a
 * checksum. Returns 0 if the result is right, 1 if not.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "ipu/xipu.h"

#define N 1536

static float a[N], b[N], c[N];

struct slice {
  const float *a, *b;
  float *c;
  unsigned n;
};

static int add_slice(void *arg) {
  const struct slice *s = arg;
  for (unsigned i = 0; i < s->n; ++i) s->c[i] = s->a[i] + s->b[i];
  return (int)s->n;
}

static uint32_t bits_of(float f) {
  uint32_t u;
  memcpy(&u, &f, sizeof u);
  return u;
}

int main(void) {
  for (unsigned i = 0; i < N; ++i) {
    a[i] = (float)i * 0.5f;
    b[i] = 1000.0f - (float)i * 0.25f;
    c[i] = -1.0f;
  }

  unsigned workers = ipu_num_workers();
  static struct slice slices[8];
  if (workers > 8) workers = 8;
  unsigned begin = 0;
  for (unsigned w = 0; w < workers; ++w) {
    unsigned n = N / workers + (w < N % workers ? 1 : 0);
    slices[w] = (struct slice){a + begin, b + begin, c + begin, n};
    ipu_run(add_slice, &slices[w]);
    begin += n;
  }
  ipu_join();

  unsigned bad = 0;
  uint32_t checksum = 0;
  float sum = 0.0f;
  for (unsigned i = 0; i < N; ++i) {
    float want = a[i] + b[i];
    if (bits_of(c[i]) != bits_of(want)) ++bad;
    checksum = checksum * 31u + bits_of(c[i]);
    sum += c[i];
  }
  printf("vecadd: %u elements on %u workers, checksum 0x%08lx, sum %.1f, %u wrong\n", N,
         workers, (unsigned long)checksum, (double)sum, bad);
  return bad ? 1 : 0;
}
