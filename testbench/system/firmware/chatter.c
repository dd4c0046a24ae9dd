/*
 * chatter: tiles that print more than their console buffer holds (tile::kConsoleBufferBytes,
 * docs/platform.md "Console ordering").
 *
 * chatter: in each of CHATTER_STEPS supersteps one worker of every tile prints a line,
 * then the supervisor prints (tile + 1) * CHATTER_LINES numbered lines and syncs the IPU,
 * so every tile fills its buffer several times in the same superstep, by different
 * amounts. The output must be in the documented order (superstep, tile, emission), the
 * same bytes for every host thread count.
 *
 * chatter_forever (CHATTER_FOREVER): every tile prints "tile T tick N" for ever, without a
 * sync: a run that ends only by a budget, a timeout or a console that cannot be written.
 */
#include <stdint.h>

#include "ipu/xipu.h"

#ifndef CHATTER_STEPS
#define CHATTER_STEPS 3
#endif
#ifndef CHATTER_LINES
#define CHATTER_LINES 300
#endif

#include "line_text.h"

#ifdef CHATTER_FOREVER

int main(void) {
  const uint32_t tile = ipu_tile_id();
  char line[48];
  char *const head = put_u32(put_text(line, "tile "), tile);
  for (uint32_t n = 0;; ++n) {
    char *p = put_u32(put_text(head, " tick "), n);
    *p++ = '\n';
    ipu_cwrite(line, (size_t)(p - line));
  }
  return 0;
}

#else

static int worker(void *arg) {
  char line[48];
  char *p = put_u32(put_text(line, "worker of tile "), ipu_tile_id());
  p = put_u32(put_text(p, " step "), (uint32_t)(uintptr_t)arg);
  *p++ = '\n';
  ipu_cwrite(line, (size_t)(p - line));
  return 0;
}

int main(void) {
  const uint32_t tile = ipu_tile_id();
  char line[64];
  for (uint32_t s = 0; s < CHATTER_STEPS; ++s) {
    ipu_run(worker, (void *)(uintptr_t)s);
    ipu_join();
    const uint32_t lines = (tile + 1) * CHATTER_LINES;
    for (uint32_t i = 0; i < lines; ++i) {
      char *p = put_u32(put_text(line, "tile "), tile);
      p = put_u32(put_text(p, " step "), s);
      p = put_u32(put_text(p, " line "), i);
      *p++ = '\n';
      ipu_cwrite(line, (size_t)(p - line));
    }
    ipu_sync(IPU_SYNC_IPU);
  }
  return 0;
}

#endif
