/*
 * matmul: a mixed integer / f32 benchmark kernel for the ISS. Each repetition multiplies
 * two 64x64 f32 matrices and two 64x64 int32 matrices (one fused loop nest), then
 * perturbs the inputs so no repetition can be skipped. Prints a checksum of the last
 * products. MATMUL_REPS sets the repetitions (matmul.elf: ~600M instructions;
 * matmul_small.elf: a few million, for tests). Uses no Xipu operation, so its qemu
 * twin (matmul.qemu.elf) runs the same instructions under qemu-riscv32.
 * With MATMUL_WORKERS defined (matmul_workers.elf, tile only) the six workers split the
 * rows of every product (run / join each repetition), which puts the ISS's thread
 * scheduler in the measurement.
 * With MATMUL_INT_ONLY defined (matmul_i32.elf) only the int32 product is computed:
 * integer instructions only (lw, mul, add, addi, bne); with MATMUL_FLOAT_ONLY
 * (matmul_f32.elf) only the f32 product (flw, fmadd.s and the loop's address arithmetic).
 * With matmul.elf (mixed) they are the translator's three benchmark kernels.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#ifdef MATMUL_WORKERS
#include <ipu/xipu.h>
#define WORKERS 6
#endif

#ifndef MATMUL_REPS
#ifdef MATMUL_INT_ONLY
#define MATMUL_REPS 748 /* 4x: the translator and qemu run it in ~0.05 s at 187 */
#else
#define MATMUL_REPS 187
#endif
#endif
#define N 64

static float fa[N][N], fb[N][N], fc[N][N];
static int32_t ia[N][N], ib[N][N], ic[N][N];

static void init(void) {
  for (int i = 0; i < N; ++i)
    for (int j = 0; j < N; ++j) {
      fa[i][j] = (float)(i + j) * 0.5f;
      fb[i][j] = (float)(i - j) * 0.25f;
      ia[i][j] = i * 3 + j;
      ib[i][j] = i - 2 * j;
    }
}

static void multiply_rows(int first, int step) {
  for (int i = first; i < N; i += step)
    for (int j = 0; j < N; ++j) {
      float s = 0.0f;
      int32_t t = 0;
      for (int k = 0; k < N; ++k) {
#ifndef MATMUL_INT_ONLY
        s += fa[i][k] * fb[k][j];
#endif
#ifndef MATMUL_FLOAT_ONLY
        t += ia[i][k] * ib[k][j];
#endif
      }
      fc[i][j] = s;
      ic[i][j] = t;
    }
}

#ifdef MATMUL_WORKERS
static int worker(void *arg) {
  multiply_rows((int)(intptr_t)arg, WORKERS);
  return 0;
}

static void multiply(void) {
  for (int w = 0; w < WORKERS; ++w) ipu_run(worker, (void *)(intptr_t)w);
  ipu_join();
}
#else
static void multiply(void) { multiply_rows(0, 1); }
#endif

static void perturb(int rep) {
  fa[rep % N][(rep * 7) % N] += 1.0f;
  ia[(rep * 5) % N][rep % N] += 1;
}

static uint32_t checksum(void) {
  uint32_t sum = 0;
  for (int i = 0; i < N; ++i)
    for (int j = 0; j < N; ++j) {
      uint32_t bits;
      memcpy(&bits, &fc[i][j], sizeof bits);
      sum = (sum * 31u) ^ bits ^ (uint32_t)ic[i][j];
    }
  return sum;
}

int main(void) {
  init();
  for (int rep = 0; rep < MATMUL_REPS; ++rep) {
    multiply();
    perturb(rep);
  }
  printf("matmul: %d x %dx%d f32+i32, checksum 0x%08lx, fc[5][7] = %.3f, ic[9][3] = %ld\n",
         MATMUL_REPS, N, N, (unsigned long)checksum(), (double)fc[5][7], (long)ic[9][3]);
  return 0;
}
