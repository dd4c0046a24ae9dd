/*
 * xipu_tour: uses every function of ipu/xipu.h once, printing what it reads, so the
 * header is compiled and assembled by every build and its behaviour can be looked at
 * on the simulator:  ipusim run --config configs/test/tile1.yaml --elf build/firmware/xipu_tour.elf
 */
#include <stdio.h>
#include <string.h>

#include "ipu/xipu.h"

/* The IEEE binary16 bits of a small positive integer n (1 <= n < 2048: exact). */
static uint16_t f16_of(unsigned n) {
  unsigned e = 0;
  while ((n >> (e + 1)) != 0) ++e;
  return (uint16_t)(((e + 15) << 10) | ((n << (10 - e)) & 0x3ff));
}

/* AMP buffers, sized for the largest AMP (aligned for its inputs). */
static uint16_t w16[IPU_AMP_MAX_ROWS * 4] __attribute__((aligned(8)));
static float w32[IPU_AMP_MAX_ROWS * 4] __attribute__((aligned(16)));
static uint16_t x16[4] __attribute__((aligned(8)));
static float x32[4] __attribute__((aligned(16)));
static float acc[IPU_AMP_MAX_ROWS];

/* Each started worker records which context ran it in its own slot (BSP style: no two
 * workers write the same word). Contexts are reused as soon as a worker ends. */
static unsigned ran_on[6];

static int worker(void *arg) {
  unsigned *slot = arg;
  *slot = ipu_thread_id();
  if (*slot == 2) ipu_wexit(20); /* ends early with a status of its own */
  return (int)*slot;
}

int main(void) {
  printf("tile %lu of %lu, ipu %lu of %lu, thread %lu (%s), %lu workers\n",
         (unsigned long)ipu_tile_id(), (unsigned long)ipu_num_tiles(), (unsigned long)ipu_id(),
         (unsigned long)ipu_num_ipus(), (unsigned long)ipu_thread_id(),
         ipu_is_supervisor() ? "supervisor" : "worker", (unsigned long)ipu_num_workers());
  printf("global tile id %lu, AMP rows %lu (f16) / %lu (f32)\n", (unsigned long)ipu_global_tile_id(),
         (unsigned long)ipu_amp_rows16(), (unsigned long)ipu_amp_rows32());
  printf("sram %#lx + %lu bytes, superstep %lu\n", (unsigned long)ipu_sram_base(),
         (unsigned long)ipu_sram_size(), (unsigned long)ipu_superstep());
  printf("worker stacks at %#lx, %lu bytes each, exit stub at %#lx\n",
         (unsigned long)ipu_wstackbase(), (unsigned long)ipu_wstacksize(),
         (unsigned long)ipu_wexitpc());
  /* Rewriting a CSR with its own value: shows the setters without moving anything. */
  ipu_set_wstackbase(ipu_wstackbase());
  ipu_set_wstacksize(ipu_wstacksize());
  ipu_set_wexitpc(ipu_wexitpc());

  uint64_t c0 = ipu_cycles(), t0 = ipu_time(), i0 = ipu_instret();
  unsigned started_as[6];
  for (unsigned w = 0; w < 6; ++w) started_as[w] = ipu_run(worker, &ran_on[w]);
  ipu_join();
  uint64_t c1 = ipu_cycles(), t1 = ipu_time(), i1 = ipu_instret();
  printf("6 workers on contexts");
  for (unsigned w = 0; w < 6; ++w) printf(" %u/%u", started_as[w], ran_on[w]);
  printf(" (run's id / thread CSR)\n");
  printf("%llu cycles, %llu time, %llu supervisor instructions for the run / join\n",
         (unsigned long long)(c1 - c0), (unsigned long long)(t1 - t0),
         (unsigned long long)(i1 - i0));

  ipu_set_frm(1);
  ipu_set_fflags(0x1f);
  printf("fcsr %#lx (frm %lu, fflags %#lx)\n", (unsigned long)ipu_fcsr(),
         (unsigned long)ipu_frm(), (unsigned long)ipu_fflags());
  ipu_set_fcsr(0);

  ipu_sync(IPU_SYNC_WORKERS);
  ipu_sync(IPU_SYNC_IPU);
  printf("after two syncs: superstep %lu\n", (unsigned long)ipu_superstep());

  static const char line[] = "a line written with one cwrite\n";
  size_t n = ipu_cwrite(line, strlen(line));
  ipu_cputc('0' + (char)(n % 10));
  ipu_cputc('\n');

  /* AMP, f16: W[i][j] = i + j + 1, x = (1, 2, 3, 4): acc[i] = 10 i + 30. */
  const unsigned r16 = ipu_amp_rows16(), r32 = ipu_amp_rows32();
  for (unsigned i = 0; i < r16; ++i)
    for (unsigned j = 0; j < 4; ++j) w16[i * 4 + j] = f16_of(i + j + 1);
  for (unsigned j = 0; j < 4; ++j) x16[j] = f16_of(j + 1);
  ipu_amp_clr();
  ipu_amp_ldw_f16(w16);
  const void *next = ipu_amp_mac_f16(x16);
  ipu_amp_st(acc);
  printf("amp f16: acc[0] %d, acc[%u] %d, next input +%d bytes\n", (int)acc[0], r16 - 1, (int)acc[r16 - 1],
         (int)((const char *)next - (const char *)x16));
  /* AMP, f32: W[i][j] = 4 i + j, x = (1, 1, 1, 1) twice: acc[i] = 2 (16 i + 6). */
  for (unsigned i = 0; i < r32; ++i)
    for (unsigned j = 0; j < 4; ++j) w32[i * 4 + j] = (float)(4 * i + j);
  for (unsigned j = 0; j < 4; ++j) x32[j] = 1.0f;
  ipu_amp_clr_f32();
  ipu_amp_ldw_f32(w32);
  ipu_amp_mac_f32(x32);
  ipu_amp_mac_f32(x32);
  ipu_amp_st_f32(acc);
  printf("amp f32: acc[0] %d, acc[%u] %d\n", (int)acc[0], r32 - 1, (int)acc[r32 - 1]);
  ipu_amp_st_f16(acc); /* the f16 form stores R16 of the same accumulators */
  ipu_halt(0);
}
