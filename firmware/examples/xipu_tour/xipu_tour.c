/*
 * xipu_tour: uses every function of ipu/xipu.h once, printing what it reads, so the
 * header is compiled and assembled by every build and its behaviour can be looked at
 * on the simulator:  ipusim run --config configs/test/tile1.yaml --elf build/firmware/xipu_tour.elf
 */
#include <stdio.h>
#include <string.h>

#include "ipu/xipu.h"

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
  ipu_halt(0);
}
