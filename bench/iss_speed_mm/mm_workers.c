/* iss_speed kernel, tile build with six workers: the same 64x64 f32 and i32 products,
   rows split over the workers (run / join each repetition). Measures the ISS with
   thread quanta and the scheduler in the loop. */
#include <stdint.h>
#include <stdio.h>
#define N 64
#define WORKERS 6
float A[N][N], B[N][N], C[N][N];
int32_t IA[N][N], IB[N][N], IC[N][N];
static char wstacks[WORKERS][2048] __attribute__((aligned(16)));

static void wexit_stub(int status) { __asm__ volatile(".insn r 0x0B, 0, 2, x0, %0, x0" ::"r"(status)); for (;;) {} }

static int worker(int w) {
  for (int i = w; i < N; i += WORKERS)
    for (int j = 0; j < N; j++) {
      float s = 0; int32_t t = 0;
      for (int k = 0; k < N; k++) { s += A[i][k] * B[k][j]; t += IA[i][k] * IB[k][j]; }
      C[i][j] = s; IC[i][j] = t;
    }
  return 0;
}

int main(void) {
  __asm__ volatile("csrw 0x8c0, %0" ::"r"(wstacks));
  __asm__ volatile("csrw 0x8c1, %0" ::"r"(sizeof wstacks[0]));
  __asm__ volatile("csrw 0x8c2, %0" ::"r"(wexit_stub));
  for (int i = 0; i < N; i++) for (int j = 0; j < N; j++) {
    A[i][j] = (float)(i + j) * 0.5f; B[i][j] = (float)(i - j) * 0.25f; IA[i][j] = i * 3 + j; IB[i][j] = i - 2 * j;
  }
  for (int r = 0; r < 200; r++) {
    for (int w = 0; w < WORKERS; w++) {
      unsigned id;
      __asm__ volatile(".insn r 0x0B, 0, 0, %0, %1, %2" : "=r"(id) : "r"(worker), "r"(w) : "memory");
    }
    __asm__ volatile(".insn r 0x0B, 0, 1, x0, x0, x0" ::: "memory");
  }
  printf("%d %d\n", (int)C[5][7], IC[9][3]);
  return 0;
}
