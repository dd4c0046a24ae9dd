/*
 * mb_link_bw: IPU-Link bandwidth against message size, per link and per IPU, and latency
 * against hop count (docs/kernels.md, docs/links.md). Runs on boards and pods of 4-IPU
 * boards wired as the IPU-M2000 (ring of 4 in a board: 3 links to each ring neighbour,
 * 2 across; one link to the same place in the board before and after); on other systems
 * the per-IPU pattern uses what exists of it.
 *
 * Measurements, each one zone-2 superstep timed as in mb_exchange_bw (first reading
 * after posting, second after `xwait`; the time is from the IPU's earliest first reading
 * to its latest second one, gathered on tile 0 of the IPU in a zone-1 superstep):
 *   latency   for each IPU j > 0: tile 0 of IPU 0 sends 4 bytes to tile 0 of IPU j; IPU j
 *             prints the cycles its tile 0 waited (the hop count is the topology's);
 *   link      one link, B = 64 .. 16 KiB per tile: with 8 IPUs or more every tile t of
 *             IPU 0 sends B bytes to tile t of IPU 4 (the next board: one link); on one
 *             board the even tiles of IPU 0 send to IPU 2 (across the board: a bundle of
 *             two links, and a route picks a bundle's link by the sending tile's global
 *             id mod the bundle's size, docs/links.md, so they all take the first);
 *             the receiving IPU prints bytes per cycle;
 *   ipu       every IPU sends B bytes (256 B, 1 KiB, 4 KiB) from every tile over all its
 *             links at once, both directions: tile t takes class t mod 10 (3 classes to
 *             each ring neighbour, 2 across, 1 to each next board) and receives from the
 *             IPU that sends to it in that class; every IPU prints the bytes in + out per
 *             cycle.
 * Every receiver checks the first and last word of each message (the sender's pattern).
 * Lines (tile 0 of the IPU named), and the same in mb_link_bw_result (mb_link_bw.h):
 *   mb_link_bw: latency ipu J cycles C
 *   mb_link_bw: link from I to J bytes B total_bytes X cycles C bytes_per_cycle Y
 *   mb_link_bw: ipu I bytes B total_bytes X cycles C bytes_per_cycle Y
 *   mb_link_bw: ipu I bad_messages N
 */
#include <string.h>

#include "kcommon.h"
#include "mb_link_bw.h"

#define LINK_MAX_BYTES (16u * 1024u)

/* Tile 0 of each IPU: the figures for a host program (mb_link_bw.h). */
KTILE struct mb_link_bw_result mb_link_bw_result;

struct reading {
  uint32_t t0, t1, bytes, takes_part;
};

static KTILE uint8_t *out_buf, *in_buf;
static KTILE struct reading *all;
static KTILE uint32_t bad; /* messages whose first or last word was not the sender's */

/* The bytes tile `tile` (of any IPU) sends: byte i is i ^ tile. */
static void fill_pattern(uint8_t *buf, uint32_t tile) {
  for (uint32_t i = 0; i < LINK_MAX_BYTES; ++i) buf[i] = (uint8_t)(i ^ tile);
}

/* A message of `len` bytes from tile `tile`: its first and last word as sent. */
static void check_message(const uint8_t *buf, uint32_t len, uint32_t tile) {
  for (uint32_t i = 0; i < 4; ++i)
    if (buf[i] != (uint8_t)(i ^ tile) || buf[len - 4 + i] != (uint8_t)((len - 4 + i) ^ tile)) {
      ++bad;
      return;
    }
}

/* Bytes per cycle with three decimals, as printed. */
static void print_rate(uint32_t bytes, uint32_t cycles) {
  kprintf("bytes_per_cycle %lu.%03lu\n", (unsigned long)(bytes / cycles),
          (unsigned long)((uint64_t)(bytes % cycles) * 1000 / cycles));
}

/* Gathers this tile's reading on tile 0: the IPU's time and bytes (tile 0 only). */
static void gather(const struct reading *r, uint32_t *cycles, uint32_t *bytes) {
  kc_gather_to_tile0(r, sizeof *r, all);
  if (ipu_tile_id() != 0) return;
  uint32_t first = 0, last = 0, any = 0, total = 0;
  for (uint32_t t = 0; t < ipu_num_tiles(); ++t) {
    if (!all[t].takes_part) continue;
    if (!any || (int32_t)(all[t].t0 - first) < 0) first = all[t].t0;
    if (!any || (int32_t)(all[t].t1 - last) > 0) last = all[t].t1;
    any = 1;
    total += all[t].bytes;
  }
  *cycles = any ? last - first : 0;
  *bytes = total;
}

/* The IPU that class c of IPU `ipu` sends to (dir = +1), or receives from (dir = -1);
 * -1 if none. */
static int32_t peer_of(uint32_t ipu, uint32_t ipus, uint32_t c, int dir) {
  const uint32_t board = ipu / 4, place = ipu % 4, boards = ipus / 4;
  if (ipus < 4 || ipus % 4 != 0) return -1;
  if (c < 3) return (int32_t)(board * 4 + (place + (dir > 0 ? 1 : 3)) % 4);  /* ring +1 */
  if (c < 6) return (int32_t)(board * 4 + (place + (dir > 0 ? 3 : 1)) % 4);  /* ring -1 */
  if (c < 8) return (int32_t)(board * 4 + (place + 2) % 4);                  /* across */
  const int down = (c == 8) == (dir > 0);
  if (down) return board + 1 < boards ? (int32_t)((board + 1) * 4 + place) : -1;
  return board > 0 ? (int32_t)((board - 1) * 4 + place) : -1;
}

int main(void) {
  const uint32_t me = ipu_tile_id(), tiles = ipu_num_tiles(), ipus = ipu_num_ipus(), ipu = ipu_id();
  out_buf = kc_alloc(LINK_MAX_BYTES, "the send buffer");
  in_buf = kc_alloc(LINK_MAX_BYTES, "the receive buffer");
  all = me == 0 ? kc_alloc(tiles * sizeof(struct reading), "the readings") : NULL;
  if (!out_buf || !in_buf || (me == 0 && !all)) return 1;
  fill_pattern(out_buf, me);
  struct mb_link_bw_result *res = &mb_link_bw_result;
  res->ipu = ipu;
  res->ipus = ipus;
  res->tiles = tiles;
  struct reading r;
  uint32_t cycles, bytes;

  /* Latency against hop count. */
  for (uint32_t j = 1; j < ipus; ++j) {
    memset(&r, 0, sizeof r);
    ipu_sync(IPU_SYNC_GROUP);
    r.t0 = kc_cycle32();
    if (me == 0 && ipu == 0) {
      ipu_xdst(j * tiles, 1);
      ipu_send(out_buf, 4);
    }
    if (me == 0 && ipu == j) {
      ipu_xsrc(0);
      ipu_recv(in_buf, 4);
    }
    ipu_xwait();
    r.t1 = kc_cycle32();
    if (me == 0 && ipu == j) {
      check_message(in_buf, 4, 0);
      res->latency_cycles = r.t1 - r.t0;
      kprintf("mb_link_bw: latency ipu %lu cycles %lu\n", (unsigned long)j, (unsigned long)(r.t1 - r.t0));
    }
  }

  /* One link: IPU 0 to IPU 4 (the same place in the next board), or on one board the
   * even tiles of IPU 0 to IPU 2 (one link of the diagonal bundle). */
  const uint32_t link_to = ipus >= 8 ? 4 : 2, sender_step = ipus >= 8 ? 1 : 2;
  const int link_sender = ipu == 0 && me % sender_step == 0;
  res->link_from = 0;
  res->link_to = ipus > 2 ? link_to : 0;
  res->link_senders = (tiles + sender_step - 1) / sender_step;
  for (uint32_t b = 64, row = 0; ipus > 2 && b <= LINK_MAX_BYTES; b *= 4, ++row) {
    memset(&r, 0, sizeof r);
    const int receiver = ipu == link_to && me % sender_step == 0;
    ipu_sync(IPU_SYNC_GROUP);
    r.t0 = kc_cycle32();
    if (link_sender) {
      ipu_xdst(link_to * tiles + me, 1);
      ipu_send(out_buf, b);
    }
    if (receiver) {
      ipu_xsrc(me);
      ipu_recv(in_buf, b);
      r.bytes = b;
      r.takes_part = 1;
    }
    ipu_xwait();
    r.t1 = kc_cycle32();
    if (receiver) check_message(in_buf, b, me);
    gather(&r, &cycles, &bytes);
    if (me == 0 && ipu == link_to && cycles) {
      res->link[row] = (struct mb_link_row){b, bytes, cycles};
      kprintf("mb_link_bw: link from 0 to %lu bytes %lu total_bytes %lu cycles %lu ", (unsigned long)link_to,
              (unsigned long)b, (unsigned long)bytes, (unsigned long)cycles);
      print_rate(bytes, cycles);
    }
  }

  /* Every link of every IPU, both ways. */
  const uint32_t c = me % 10;
  const int32_t to = peer_of(ipu, ipus, c, +1), from = peer_of(ipu, ipus, c, -1);
  for (uint32_t b = 256, row = 0; row < MB_IPU_SIZES; b *= 4, ++row) {
    memset(&r, 0, sizeof r);
    ipu_sync(IPU_SYNC_GROUP);
    r.t0 = kc_cycle32();
    if (to >= 0) {
      ipu_xdst((uint32_t)to * tiles + me, 1);
      ipu_send(out_buf, b);
      r.bytes += b;
    }
    if (from >= 0) {
      ipu_xsrc((uint32_t)from * tiles + me);
      ipu_recv(in_buf, b);
      r.bytes += b;
    }
    r.takes_part = to >= 0 || from >= 0;
    ipu_xwait();
    r.t1 = kc_cycle32();
    if (from >= 0) check_message(in_buf, b, me);
    gather(&r, &cycles, &bytes);
    if (me == 0 && cycles) {
      res->ipu_rows[row] = (struct mb_link_row){b, bytes, cycles};
      kprintf("mb_link_bw: ipu %lu bytes %lu total_bytes %lu cycles %lu ", (unsigned long)ipu, (unsigned long)b,
              (unsigned long)bytes, (unsigned long)cycles);
      print_rate(bytes, cycles);
    }
  }

  /* Every tile's count of bad messages, summed on tile 0 of its IPU. */
  memset(&r, 0, sizeof r);
  r.bytes = bad;
  gather(&r, &cycles, &bytes);
  if (me != 0) return 0;
  uint32_t bad_all = 0;
  for (uint32_t t = 0; t < tiles; ++t) bad_all += all[t].bytes;
  res->bad_messages = bad_all;
  kprintf("mb_link_bw: ipu %lu bad_messages %lu\n", (unsigned long)ipu, (unsigned long)bad_all);
  res->magic = KC_RESULT_MAGIC;
  return bad_all ? 1 : 0;
}
