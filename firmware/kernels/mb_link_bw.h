/*
 * mb_link_bw.h: what mb_link_bw.c leaves on tile 0 of every IPU for a host program to
 * read by symbol (`mb_link_bw_result`), plain C shared with the host side.
 */
#ifndef KERNELS_MB_LINK_BW_H
#define KERNELS_MB_LINK_BW_H

#include <stdint.h>

#define MB_LINK_SIZES 5 /* link pattern: 64 B, 256 B, 1 KiB, 4 KiB, 16 KiB per tile */
#define MB_IPU_SIZES 3  /* ipu pattern: 256 B, 1 KiB, 4 KiB per tile */

/* One measurement on the IPU that holds it (bytes per tile, bytes received or sent by the
 * IPU's tiles, cycles from its earliest first reading to its latest second one). */
struct mb_link_row {
  uint32_t bytes, total_bytes, cycles;
};

struct mb_link_bw_result {
  uint32_t magic;          /* KC_RESULT_MAGIC (kcommon.h) once the kernel finished */
  uint32_t ipu, ipus, tiles;
  uint32_t latency_cycles; /* IPU j > 0: tile 0's wait for 4 bytes from tile 0 of IPU 0 */
  uint32_t link_from, link_to; /* the link pattern's IPUs (the rows are on link_to) */
  uint32_t link_senders;   /* tiles of link_from that sent (all sharing one link) */
  uint32_t bad_messages;   /* messages received whose first or last word was wrong */
  struct mb_link_row link[MB_LINK_SIZES]; /* on link_to; zero elsewhere */
  struct mb_link_row ipu_rows[MB_IPU_SIZES]; /* every IPU: in + out over all its links */
};

#endif /* KERNELS_MB_LINK_BW_H */
