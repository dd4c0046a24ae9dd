/*
 * kreduce.c: the on-chip reduce-scatter of the all-reduce kernels (kreduce.h).
 */
#include <string.h>

#include "kcommon.h"
#include "kreduce.h"

struct reduce_job {
  const float *copies; /* T chunks of C floats, tile order */
  float *out;          /* C floats */
  uint32_t tiles, chunk, first, count;
};

/* Sums elements first .. first+count-1 of the T chunk copies, in tile order. The chunk is
 * a constant in each instantiation so the four loads of an unrolled step use immediate
 * offsets: 10 instructions per 4 additions instead of 16. */
static inline __attribute__((always_inline)) void reduce_body(const struct reduce_job *j,
                                                              const uint32_t chunk) {
  for (uint32_t i = j->first; i < j->first + j->count; ++i) {
    const float *p = j->copies + chunk + i;
    float acc = j->copies[i];
    uint32_t t = 1;
    for (; t + 4 <= j->tiles; t += 4, p += 4 * chunk) {
      acc += p[0];
      acc += p[chunk];
      acc += p[2 * chunk];
      acc += p[3 * chunk];
    }
    for (; t < j->tiles; ++t, p += chunk) acc += p[0];
    j->out[i] = acc;
  }
}

static int reduce_slice(void *arg) {
  const struct reduce_job *j = arg;
  switch (j->chunk) {
    case 64: reduce_body(j, 64); break;
    case 32: reduce_body(j, 32); break;
    case 16: reduce_body(j, 16); break;
    case 8: reduce_body(j, 8); break;
    default: /* 4 (the kernels' own), or a host's chunk, whose stride stays in a register */
      if (j->chunk == 4)
        reduce_body(j, 4);
      else
        reduce_body(j, j->chunk);
      break;
  }
  return 0;
}

uint32_t kc_reduce_chunk(uint32_t tiles, uint32_t sram_bytes) {
  for (uint32_t c = 64; c >= 4; c /= 2)
    if (8ull * c * tiles + 128u * 1024u <= sram_bytes) return c;
  return 0;
}

int kc_reduce_chunk_fits(uint32_t chunk, uint32_t tiles, uint32_t sram_bytes) {
  return chunk >= 1 && 8ull * chunk * tiles + 128u * 1024u <= sram_bytes;
}

uint32_t kc_reduce_chunk_max(uint32_t tiles, uint32_t sram_bytes) {
  const uint32_t room = 128u * 1024u;
  return tiles == 0 || sram_bytes <= room ? 0 : (sram_bytes - room) / 8u / tiles;
}

void kc_reduce_scatter(float *vec, float *copies, uint32_t chunk, struct kc_reduce_cycles *cycles) {
  const uint32_t me = ipu_tile_id(), tiles = ipu_num_tiles(), base = kc_ipu_base();
  const uint32_t len = chunk * 4u;
  ipu_sync(IPU_SYNC_IPU);
  const uint32_t t0 = kc_cycle32();
  for (uint32_t d = 1; d < tiles; ++d) {
    const uint32_t to = (me + d) % tiles, from = (me + tiles - d) % tiles;
    ipu_xdst(base + to, 1);
    ipu_send(vec + (size_t)to * chunk, len);
    ipu_xsrc(base + from);
    ipu_recv(copies + (size_t)from * chunk, len);
  }
  const uint32_t t0x = kc_cycle32();
  ipu_xwait();
  const uint32_t t1 = kc_cycle32();
  memcpy(copies + (size_t)me * chunk, vec + (size_t)me * chunk, len);

  struct reduce_job jobs[6];
  const uint32_t workers = ipu_num_workers() < 6 ? ipu_num_workers() : 6;
  for (uint32_t w = 0, first = 0; w < workers; ++w) {
    const uint32_t count = chunk / workers + (w < chunk % workers ? 1u : 0u);
    jobs[w] = (struct reduce_job){copies, vec + (size_t)me * chunk, tiles, chunk, first, count};
    first += count;
    if (count) ipu_run(reduce_slice, &jobs[w]);
  }
  ipu_join();
  const uint32_t t2 = kc_cycle32();
  cycles->post = t0x - t0;
  cycles->exchange = t1 - t0x;
  cycles->reduce = t2 - t1;
}
