/* console_chatter: the program of the device-API console tests (console_api_test.cpp).
 * Every tile's supervisor prints a line, two workers print one each (thread-tagged
 * lines), the IPU syncs, then the supervisor prints `chatter_lines` numbered lines with a
 * sync after every hundred (the host sets it, the same on every tile: thousands over many
 * supersteps fill the console queue while the run goes on, so its flow control runs)
 * and, if `chatter_long` is not 0, one line of that many bytes (longer than one wire
 * text: it crosses the socket in pieces). With `chatter_forever` set it then prints a line and
 * syncs for ever (a run that ends only by timeout, abort or reset). */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "ipu/xipu.h"

volatile uint32_t chatter_lines = 3;
volatile uint32_t chatter_long = 0;
volatile uint32_t chatter_forever = 0;

static char long_line[2048];

static int worker(void *arg) {
  (void)arg;
  printf("worker %u of tile %u\n", (unsigned)ipu_thread_id(), (unsigned)ipu_tile_id());
  return 0;
}

int main(void) {
  const unsigned tile = (unsigned)ipu_tile_id();
  printf("tile %u of ipu %u starts\n", tile, (unsigned)ipu_id());
  ipu_run(worker, 0);
  ipu_run(worker, 0);
  ipu_join();
  ipu_sync(IPU_SYNC_IPU);
  for (uint32_t i = 0; i < chatter_lines; ++i) {
    printf("line %u of tile %u\n", (unsigned)i, tile);
    if (i % 100 == 99) ipu_sync(IPU_SYNC_IPU);  /* many supersteps: the lines flow as the run goes on */
  }
  const uint32_t n = chatter_long < sizeof long_line ? chatter_long : sizeof long_line - 1;
  if (n > 0) {
    memset(long_line, 'a' + (int)(tile % 26), n);
    long_line[n] = 0;
    printf("%s\n", long_line);
  }
  for (uint32_t round = 0; chatter_forever; ++round) {
    printf("round %u of tile %u\n", (unsigned)round, tile);
    ipu_sync(IPU_SYNC_IPU);
  }
  return 0;
}
