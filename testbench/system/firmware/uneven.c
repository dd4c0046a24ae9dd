/*
 * uneven: BSP supersteps with uneven work per tile. In superstep s the six workers of tile
 * t each run (t + 1) * (s + 1) * 40 rounds of an integer hash; the supervisor joins them,
 * folds their results into the tile's value and prints it, then syncs the IPU. With
 * UNEVEN_EXCHANGE each superstep ends with a ring exchange: every tile sends its value to
 * the next tile of the IPU and receives the previous tile's, which feeds the next step.
 * The printed values and every cycle count must be the same for any number of host
 * threads (testbench/system/chip).
 * With UNEVEN_CHATTER the workers print a line per round batch and the supervisor
 * (tile + 1) * UNEVEN_CHATTER lines per superstep, so tiles fill their console buffers
 * (tile::kConsoleBufferBytes) by different amounts, some while workers run: the lines,
 * values and cycles must be the same whatever the buffer's size
 * (testbench/system/cli/console_buffer_test.cpp).
 */
#include <stdint.h>
#include <stdio.h>

#include "ipu/xipu.h"

#define STEPS 4

struct job {
  uint32_t seed, rounds, out;
};

static struct job jobs[6];
static uint32_t value, incoming;

#ifdef UNEVEN_CHATTER
#include "line_text.h"

static void say(const char *what, uint32_t a, uint32_t b) {
  char line[48];
  char *p = put_u32(put_text(line, what), a);
  p = put_u32(put_text(p, " at "), b);
  *p++ = '\n';
  ipu_cwrite(line, (size_t)(p - line));
}
#endif

static int work(void *arg) {
  struct job *j = arg;
  uint32_t h = j->seed;
  for (uint32_t r = 0; r < j->rounds; ++r) {
    h = (h ^ (h >> 13)) * 0x5bd1e995u + r;
#ifdef UNEVEN_CHATTER
    if (r % 16 == 0) say("worker hash ", h, r);
#endif
  }
  j->out = h;
  return 0;
}

int main(void) {
  const uint32_t tile = ipu_tile_id(), tiles = ipu_num_tiles();
  value = tile * 2654435761u;
  for (uint32_t s = 0; s < STEPS; ++s) {
    uint32_t workers = ipu_num_workers();
    if (workers > 6) workers = 6;
    for (uint32_t w = 0; w < workers; ++w) {
      jobs[w].seed = value + w;
      jobs[w].rounds = (tile + 1) * (s + 1) * 40;
      ipu_run(work, &jobs[w]);
    }
    ipu_join();
    for (uint32_t w = 0; w < workers; ++w) value = value * 31u + jobs[w].out;
#ifdef UNEVEN_CHATTER
    for (uint32_t i = 0; i < (tile + 1) * UNEVEN_CHATTER; ++i) say("supervisor value ", value + i, i);
#endif
    printf("step %lu value %08lx\n", (unsigned long)s, (unsigned long)value);
    ipu_sync(IPU_SYNC_IPU);
#ifdef UNEVEN_EXCHANGE
    const uint32_t base = ipu_id() * tiles;
    ipu_xdst(base + (tile + 1) % tiles, 1);
    ipu_send(&value, sizeof value);
    ipu_xsrc(base + (tile + tiles - 1) % tiles);
    ipu_recv(&incoming, sizeof incoming);
    ipu_xwait();
    value ^= incoming;
#else
    (void)incoming;
    (void)tiles;
#endif
  }
  printf("done %08lx\n", (unsigned long)value);
  return 0;
}
