/*
 * mb_sync: sync latency. Every tile runs SYNC_COUNT back-to-back syncs over the IPU
 * (nothing between them but the two `cycle` readings around each) and adds up, for
 * itself, the cycles from the issue of its `sync` to the issue of the next instruction
 * (the second reading minus the first, less the 6 cycles from the first reading to the
 * `sync`). Without any stall that is 6 cycles (the next issue slot): the same loop over
 * zone 0 (the tile's workers, none running) shows that floor.
 * Tile 0 gathers every tile's average and prints the mean, minimum and maximum over
 * the tiles, the loop period (cycles per sync on tile 0), and the average of the tiles
 * at distance 0, 1, 2, 4, ... and T - 1 from tile 0.
 *
 *   mb_sync: zone ipu syncs N mean_cycles X min_cycles A max_cycles B period_cycles P
 *   mb_sync: zone workers syncs N mean_cycles X
 *   mb_sync: tile T cycles X
 * Averages are printed with two decimals (hundredths computed in integers).
 */
#include "kcommon.h"

#ifndef SYNC_COUNT
#define SYNC_COUNT 64
#endif
#define ISSUE_CYCLES 6

/* Average cycles per sync, in hundredths, over SYNC_COUNT syncs of `zone`. */
static uint32_t time_syncs(uint32_t zone, uint32_t *period) {
  uint64_t sum = 0;
  const uint32_t start = kc_cycle32();
  for (uint32_t i = 0; i < SYNC_COUNT; ++i) {
    const uint32_t t0 = kc_cycle32();
    ipu_sync(zone);
    const uint32_t t1 = kc_cycle32();
    sum += t1 - t0 - ISSUE_CYCLES;
  }
  *period = (kc_cycle32() - start) * 100u / SYNC_COUNT;
  return (uint32_t)(sum * 100u / SYNC_COUNT);
}

static void print_hundredths(const char *label, uint32_t v) {
  kprintf(" %s %lu.%02lu", label, (unsigned long)(v / 100), (unsigned long)(v % 100));
}

int main(void) {
  const uint32_t me = ipu_tile_id(), tiles = ipu_num_tiles();
  uint32_t period = 0, worker_period = 0;
  ipu_sync(IPU_SYNC_IPU); /* start together */
  const uint32_t mine = time_syncs(IPU_SYNC_IPU, &period);
  const uint32_t workers_only = time_syncs(IPU_SYNC_WORKERS, &worker_period);

  uint32_t *all = me == 0 ? kc_alloc(tiles * 4u, "the averages") : NULL;
  if (me == 0 && !all) return 1;
  kc_gather_to_tile0(&mine, 4, all);
  if (me != 0) return 0;

  uint64_t sum = 0;
  uint32_t lo = all[0], hi = all[0];
  for (uint32_t t = 0; t < tiles; ++t) {
    sum += all[t];
    if (all[t] < lo) lo = all[t];
    if (all[t] > hi) hi = all[t];
  }
  kprintf("mb_sync: zone ipu tiles %lu syncs %lu", (unsigned long)tiles, (unsigned long)SYNC_COUNT);
  print_hundredths("mean_cycles", (uint32_t)(sum / tiles));
  print_hundredths("min_cycles", lo);
  print_hundredths("max_cycles", hi);
  print_hundredths("period_cycles", period);
  kprintf("\n");
  kprintf("mb_sync: zone workers syncs %lu", (unsigned long)SYNC_COUNT);
  print_hundredths("mean_cycles", workers_only);
  kprintf("\n");
  for (uint32_t d = 0; d < tiles; d = d ? d * 2 : 1) {
    kprintf("mb_sync: tile %lu", (unsigned long)d);
    print_hundredths("cycles", all[d]);
    kprintf("\n");
    if (d * 2 >= tiles && d != tiles - 1) {
      kprintf("mb_sync: tile %lu", (unsigned long)(tiles - 1));
      print_hundredths("cycles", all[tiles - 1]);
      kprintf("\n");
    }
  }
  return 0;
}
