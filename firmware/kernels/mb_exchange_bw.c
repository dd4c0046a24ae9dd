/*
 * mb_exchange_bw: exchange bandwidth against message size, for three patterns:
 *   pair       tile 0 sends one message to tile 1 (one tile's send and receive port);
 *   partner    every tile t sends one message to tile (t + T/2) mod T (all ports busy);
 *   alltoall   every tile sends one message of the given size to every other tile, in
 *              the rotated order t+1, t+2, ... (all ports busy, T - 1 messages each).
 * Each measurement is one superstep: sync; every tile posts its part, reads `cycle`,
 * waits in `xwait` and reads `cycle` again (so only the transfer is timed, not the
 * posting); then tile 0 gathers every tile's readings (another superstep, not
 * measured). The time of a measurement is from the earliest first reading to the latest
 * second reading among the tiles that take part; its bandwidth is the bytes received by
 * all tiles over that time. A reading includes the 6-cycle issue slot of `xwait`.
 *
 * Tile 0 prints one line per measurement:
 *   mb_exchange_bw: pattern P bytes B messages M total_bytes X cycles C bytes_per_cycle Y
 * GB/s need the clock; the test and docs/kernels.md work them out.
 */
#include <string.h>

#include "kcommon.h"

#define MAX_PAIR_BYTES (64u * 1024u)
#define ALLTOALL_MAX_BYTES 256u
#define RESERVE_BYTES (96u * 1024u) /* code, data, stacks */

struct reading {
  uint32_t t0, t1;    /* cycle before xwait, cycle after it */
  uint32_t bytes_in;  /* received by this tile */
  uint32_t takes_part;
};

static KTILE uint8_t *buf;
static KTILE struct reading *all; /* tile 0: one per tile */

/* Posts this tile's part of one measurement; returns the bytes it will receive. */
static uint32_t post(int pattern, uint32_t bytes, uint32_t *takes_part) {
  const uint32_t me = ipu_tile_id(), tiles = ipu_num_tiles(), base = kc_ipu_base();
  *takes_part = 0;
  switch (pattern) {
    case 0: /* pair */
      if (me == 0) {
        ipu_xdst(base + 1, 1);
        ipu_send(buf, bytes);
        *takes_part = 1;
      } else if (me == 1) {
        ipu_xsrc(base + 0);
        ipu_recv(buf + MAX_PAIR_BYTES, bytes);
        *takes_part = 1;
        return bytes;
      }
      return 0;
    case 1: { /* partner */
      const uint32_t to = (me + tiles / 2) % tiles, from = (me + tiles - tiles / 2) % tiles;
      ipu_xdst(base + to, 1);
      ipu_send(buf, bytes);
      ipu_xsrc(base + from);
      ipu_recv(buf + MAX_PAIR_BYTES, bytes);
      *takes_part = 1;
      return bytes;
    }
    default: /* alltoall: send buffer at 0, receive slot from + (from < me) after it */
      /* Branch-free, so every tile posts in the same number of cycles and all reach
       * xwait together (a send waits for its receiver to get there). */
      for (uint32_t d = 1; d < tiles; ++d) {
        const uint32_t to = (me + d) % tiles, from = (me + tiles - d) % tiles;
        ipu_xdst(base + to, 1);
        ipu_send(buf, bytes);
        ipu_xsrc(base + from);
        ipu_recv(buf + (size_t)(from + (uint32_t)(from < me)) * bytes, bytes);
      }
      *takes_part = 1;
      return bytes * (tiles - 1);
  }
}

static void measure(int pattern, const char *name, uint32_t bytes) {
  const uint32_t tiles = ipu_num_tiles();
  struct reading r;
  ipu_sync(IPU_SYNC_IPU);
  r.bytes_in = post(pattern, bytes, &r.takes_part);
  r.t0 = kc_cycle32();
  ipu_xwait();
  r.t1 = kc_cycle32();
  kc_gather_to_tile0(&r, sizeof r, all);
  if (ipu_tile_id() != 0) return;
  uint32_t first = 0, last = 0, messages = 0, found = 0;
  uint64_t total = 0;
  for (uint32_t t = 0; t < tiles; ++t) {
    if (!all[t].takes_part) continue;
    /* Differences from tile 0's reading, so a wrap of the 32-bit counter is harmless. */
    const int32_t a = (int32_t)(all[t].t0 - all[0].t0), b = (int32_t)(all[t].t1 - all[0].t0);
    if (!found || a < (int32_t)first) first = (uint32_t)a;
    if (!found || b > (int32_t)last) last = (uint32_t)b;
    found = 1;
    total += all[t].bytes_in;
  }
  messages = pattern == 0 ? 1 : pattern == 1 ? tiles : tiles * (tiles - 1);
  const uint32_t cycles = (uint32_t)((int32_t)last - (int32_t)first);
  const uint64_t milli = cycles ? total * 1000u / cycles : 0;
  kprintf("mb_exchange_bw: pattern %s bytes %lu messages %lu total_bytes %llu cycles %lu "
          "bytes_per_cycle %llu.%03llu\n",
          name, (unsigned long)bytes, (unsigned long)messages, (unsigned long long)total,
          (unsigned long)cycles, (unsigned long long)(milli / 1000),
          (unsigned long long)(milli % 1000));
  /* The last measurement is the largest all-to-all: the host reads it by symbol. */
  kc_report(0, (uint32_t)pattern, bytes, cycles, (uint32_t)milli);
}

int main(void) {
  const uint32_t me = ipu_tile_id(), tiles = ipu_num_tiles();
  /* The largest all-to-all message whose T slots fit next to the program. */
  uint32_t a2a_max = ALLTOALL_MAX_BYTES;
  while (a2a_max > 4 && (uint64_t)a2a_max * tiles + RESERVE_BYTES > ipu_sram_size()) a2a_max /= 2;
  size_t bytes = 2 * MAX_PAIR_BYTES;
  if ((size_t)a2a_max * tiles > bytes) bytes = (size_t)a2a_max * tiles;
  buf = kc_alloc(bytes, "the message buffers");
  if (me == 0) all = kc_alloc(tiles * sizeof(struct reading), "the readings");
  if (!buf || (me == 0 && !all)) return 1;
  for (size_t i = 0; i < bytes; ++i) buf[i] = (uint8_t)(i * 7u + me);
  if (me == 0)
    kprintf("mb_exchange_bw: tiles %lu alltoall_max_bytes %lu\n", (unsigned long)tiles,
            (unsigned long)a2a_max);
  if (tiles < 2) return 0;

  for (uint32_t b = 4; b <= MAX_PAIR_BYTES; b *= 4) measure(0, "pair", b);
  for (uint32_t b = 4; b <= MAX_PAIR_BYTES; b *= 4) measure(1, "partner", b);
  for (uint32_t b = 4; b <= a2a_max; b *= 2)
    if (b == 4 || b == 16 || b >= 64) measure(2, "alltoall", b);
  return 0;
}
