/*
 * mb_sync: sync latency. Every tile runs SYNC_COUNT back-to-back syncs over the IPU, with
 * nothing between them but a `cycle` reading before and after each. Per sync, a tile's
 * stall is the second reading minus the first minus 12: the `csrr` and the `sync` each
 * take an issue slot (6 cycles), so 12 is a sync that waits for nothing, as the same
 * loop over zone 0 (the tile's own workers, none running) shows. In a steady loop every
 * tile's stall is the same (a tile released early arrives early and waits for the
 * others): the controller's full round trip, docs/sync.md. Where the tiles differ is
 * when they are released: after the last sync each tile's release, relative to the
 * earliest tile's, shows the controller's way out to it.
 *
 * Tile 0 gathers every tile's mean stall and last release and prints
 *   mb_sync: zone ipu tiles T syncs N stall_mean X stall_min A stall_max B period_cycles P
 *   mb_sync: zone workers syncs N stall_mean X
 *   mb_sync: tile T stall X release_offset O   (tiles 0, 1, 2, 4, ..., the middle, T-1)
 * Stalls and the period (cycles per loop turn on tile 0) have two decimals (hundredths,
 * computed in integers).
 */
#include "kcommon.h"

#ifndef SYNC_COUNT
#define SYNC_COUNT 64
#endif
#define NO_STALL_CYCLES 12 /* csrr + sync issue slots */

struct sync_record {
  uint32_t stall; /* hundredths of a cycle, mean over the loop */
  uint32_t last_release;
};

/* Mean stall in hundredths over SYNC_COUNT syncs of `zone`; also the loop period and
 * the cycle of the last release. */
static uint32_t time_syncs(uint32_t zone, uint32_t *period, uint32_t *last_release) {
  uint64_t sum = 0;
  const uint32_t start = kc_cycle32();
  uint32_t t1 = start;
  for (uint32_t i = 0; i < SYNC_COUNT; ++i) {
    const uint32_t t0 = kc_cycle32();
    ipu_sync(zone);
    t1 = kc_cycle32();
    sum += t1 - t0 - NO_STALL_CYCLES;
  }
  *last_release = t1;
  *period = (t1 - start) * 100u / SYNC_COUNT;
  return (uint32_t)(sum * 100u / SYNC_COUNT);
}

static void print_hundredths(const char *label, uint32_t v) {
  kprintf(" %s %lu.%02lu", label, (unsigned long)(v / 100), (unsigned long)(v % 100));
}

static void print_tile(const struct sync_record *all, uint32_t t, uint32_t earliest) {
  kprintf("mb_sync: tile %lu", (unsigned long)t);
  print_hundredths("stall", all[t].stall);
  kprintf(" release_offset %lu\n", (unsigned long)(all[t].last_release - earliest));
}

int main(void) {
  const uint32_t me = ipu_tile_id(), tiles = ipu_num_tiles();
  uint32_t period = 0, worker_period = 0, ignored = 0;
  struct sync_record mine;
  ipu_sync(IPU_SYNC_IPU); /* start together */
  mine.stall = time_syncs(IPU_SYNC_IPU, &period, &mine.last_release);
  const uint32_t workers_only = time_syncs(IPU_SYNC_WORKERS, &worker_period, &ignored);

  struct sync_record *all = me == 0 ? kc_alloc(tiles * sizeof *all, "the records") : NULL;
  if (me == 0 && !all) return 1;
  kc_gather_to_tile0(&mine, sizeof mine, all);
  if (me != 0) return 0;

  uint64_t sum = 0;
  uint32_t lo = all[0].stall, hi = all[0].stall, earliest = all[0].last_release;
  for (uint32_t t = 0; t < tiles; ++t) {
    sum += all[t].stall;
    if (all[t].stall < lo) lo = all[t].stall;
    if (all[t].stall > hi) hi = all[t].stall;
    if ((int32_t)(all[t].last_release - earliest) < 0) earliest = all[t].last_release;
  }
  kprintf("mb_sync: zone ipu tiles %lu syncs %lu", (unsigned long)tiles, (unsigned long)SYNC_COUNT);
  print_hundredths("stall_mean", (uint32_t)(sum / tiles));
  print_hundredths("stall_min", lo);
  print_hundredths("stall_max", hi);
  print_hundredths("period_cycles", period);
  kprintf("\n");
  kprintf("mb_sync: zone workers syncs %lu", (unsigned long)SYNC_COUNT);
  print_hundredths("stall_mean", workers_only);
  kprintf("\n");
  /* Tiles 0, 1, 2, 4, ..., the middle one and the last, in order, each once. */
  const uint32_t middle = (tiles - 1) / 2;
  uint32_t last_printed = 0;
  print_tile(all, 0, earliest);
  for (uint32_t d = 1; d < tiles; d = d * 2) {
    if (middle > last_printed && middle < d) print_tile(all, last_printed = middle, earliest);
    print_tile(all, last_printed = d, earliest);
  }
  if (middle > last_printed) print_tile(all, last_printed = middle, earliest);
  if (tiles - 1 > last_printed) print_tile(all, tiles - 1, earliest);
  /* In hundredths of a cycle, as printed: IPU sync stall mean / min / max, period. */
  kc_report(0, (uint32_t)(sum / tiles), lo, hi, period);
  return 0;
}
