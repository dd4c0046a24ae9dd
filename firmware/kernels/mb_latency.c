/*
 * mb_latency: tile-to-tile exchange latency against distance. For each distance d in
 * 1, 2, 4, ... and T - 1, one superstep: sync; tile 0 posts one 4-byte send to tile d,
 * tile d the matching receive; every tile reads `cycle`, waits in `xwait`, reads `cycle`
 * again. Cycle counts are chip-wide (one clock), so tile d's second reading minus tile
 * 0's first is the one-way time from tile 0 entering `xwait` to the data being usable on
 * tile d. A tile reaches the exchange 12 cycles after its first reading (the issue slots
 * of the `csrr` and the `xwait`: docs/iss.md), the message leaves when both tiles are
 * there (docs/exchange.md: no message leaves before its receiver is at `xwait`, and the
 * sync releases tiles at distance-dependent times), its 4 bytes take 1 cycle at 4 B/cycle,
 * and tile d's next instruction issues in the cycle the data is in. So latency_cycles =
 * second reading on d - (later first reading + 12) - 1 is the fabric's latency alone.
 * After all distances, tile 0 gathers the receivers' readings.
 *
 * Tile 0 prints one line per distance:
 *   mb_latency: distance D one_way_cycles C latency_cycles L sender_xwait_cycles S
 */
#include "kcommon.h"

#define MAX_DISTANCES 32
#define TO_EXCHANGE_CYCLES 12 /* first reading -> the tile stops at xwait */

int main(void) {
  const uint32_t me = ipu_tile_id(), tiles = ipu_num_tiles(), base = kc_ipu_base();
  uint32_t dist[MAX_DISTANCES], n = 0;
  for (uint32_t d = 1; d < tiles && n < MAX_DISTANCES - 1; d *= 2) dist[n++] = d;
  if (tiles > 1 && dist[n - 1] != tiles - 1) dist[n++] = tiles - 1;

  uint32_t send_t0[MAX_DISTANCES], send_t1[MAX_DISTANCES];
  uint32_t mine[2] = {0, 0}; /* tile d: its readings when it received */
  uint32_t word = 0x12345678u, in = 0;
  for (uint32_t i = 0; i < n; ++i) {
    const uint32_t d = dist[i];
    ipu_sync(IPU_SYNC_IPU);
    if (me == 0) {
      ipu_xdst(base + d, 1);
      ipu_send(&word, 4);
    } else if (me == d) {
      ipu_xsrc(base);
      ipu_recv(&in, 4);
    }
    const uint32_t t0 = kc_cycle32();
    ipu_xwait();
    const uint32_t t1 = kc_cycle32();
    if (me == 0) send_t0[i] = t0, send_t1[i] = t1;
    if (me == d) mine[0] = t0, mine[1] = t1;
  }

  uint32_t *received = me == 0 ? kc_alloc(tiles * 8u, "the readings") : NULL;
  if (me == 0 && !received) return 1;
  kc_gather_to_tile0(mine, 8, received);
  if (me != 0) return 0;
  kprintf("mb_latency: tiles %lu message_bytes 4\n", (unsigned long)tiles);
  for (uint32_t i = 0; i < n; ++i) {
    const uint32_t r0 = received[2 * dist[i]], r1 = received[2 * dist[i] + 1];
    const uint32_t later = (int32_t)(r0 - send_t0[i]) > 0 ? r0 : send_t0[i];
    kprintf("mb_latency: distance %lu one_way_cycles %lu latency_cycles %ld sender_xwait_cycles %lu\n",
            (unsigned long)dist[i], (unsigned long)(r1 - send_t0[i]),
            (long)(int32_t)(r1 - later - TO_EXCHANGE_CYCLES - 1), (unsigned long)(send_t1[i] - send_t0[i]));
  }
  /* Distances measured, and the one-way cycles of the nearest and the farthest. */
  if (n > 0)
    kc_report(0, n, received[2 * dist[0] + 1] - send_t0[0],
              received[2 * dist[n - 1] + 1] - send_t0[n - 1], tiles);
  return 0;
}
