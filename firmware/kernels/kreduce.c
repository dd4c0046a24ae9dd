/*
 * kreduce.c: the on-chip reduce-scatter of the all-reduce kernels (kreduce.h).
 */
#include <string.h>

#include "kcommon.h"
#include "kreduce.h"

struct reduce_job {
  const float *copies; /* T chunks of C floats, tile order */
  float *out;          /* C floats */
  uint32_t tiles, chunk, first, count; /* elements; quads on the wide path */
  uint32_t me;                          /* this tile */
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

#ifndef KERNELS_HOST
/* The wide path: a worker sums g quads (4 g elements, g = 1 .. 3) in f32v2.add lanes,
 * tile by tile. Walking the copies in tile order makes each tile's g quads contiguous,
 * so one ld128.pi brings four terms and only the step to the next tile's chunk costs an
 * add; per tile 2 g f32v2.add co-issued with g ld128.pi and that add, under a rpt over
 * the tiles: 2 g slots for 4 g terms, where reduce_body's loop takes 9 slots per 4 (12
 * instructions: 4 flw, 4 fadd.s, the address and counter adds and the branch). Each lane
 * adds the tiles in order, as the scalar sum does, rounding to nearest even like fadd.s
 * under the default frm: the same bits.
 *
 * Accumulators A_k = f(4k) (quad), terms Q_k = f(12 + 4k). A step reads Q_k's lanes
 * before (or in the slot in which) ld128.pi overwrites them with the next tile's. */
#define RQ_LD(q) IPU_OP_LD128_PI_INSN ", " #q ", %[p], x0\n\t"
#define RQ_ST(q) IPU_OP_ST64_PI_INSN ", x0, %[o], " #q "\n\t"
#define RQ_ADD(a, q) IPU_OP_F32V2_ADD_INSN ", " #a ", " #a ", " #q "\n\t"
#define RQ_NEXT "add %[p], %[p], %[s]\n\t"
#define RQ_SUM(code)                                                                    \
  __asm__ volatile(code : [p] "+r"(p), [o] "+r"(o) : [n] "r"(n), [s] "r"(s)             \
                   : "f0", "f1", "f2", "f3", "f4", "f5", "f6", "f7", "f8", "f9", "f10", \
                     "f11", "f12", "f13", "f14", "f15", "f16", "f17", "f18", "f19",     \
                     "f20", "f21", "f22", "f23", "memory")

/* Elements first .. first + 4 g - 1 (first a multiple of 4) over tiles >= 2. The own
 * chunk's copy is this tile's part of `out`, brought into `copies` first (this worker's
 * elements only: the supervisor's memcpy was a byte loop, 6 instructions a byte). */
static void reduce_quads(const float *copies, float *out, uint32_t tiles, uint32_t chunk,
                         uint32_t me, uint32_t first, uint32_t g) {
  const float *p = copies + first;
  float *o = out + first;
  const float *own = o;
  float *slot = (float *)copies + (size_t)me * chunk + first;
  for (uint32_t k = 0; k < 2u * g; ++k) ipu_st64_pi(&slot, ipu_ld64_pi(&own));
  const uint32_t n = tiles - 2, s = chunk * 4u - g * 16u;
  switch (g) {
    case 1:
      RQ_SUM(RQ_LD(f0) RQ_NEXT RQ_LD(f12)
             IPU_RPT("%[n]", 4) "\n\t"
             RQ_ADD(f0, f12) RQ_NEXT RQ_ADD(f2, f14) RQ_LD(f12)
             RQ_ADD(f0, f12) RQ_ADD(f2, f14)
             RQ_ST(f0) RQ_ST(f2));
      break;
    case 2:
      RQ_SUM(RQ_LD(f0) RQ_LD(f4) RQ_NEXT RQ_LD(f12) RQ_LD(f16)
             IPU_RPT("%[n]", 7) "\n\t"
             RQ_ADD(f0, f12) RQ_NEXT RQ_ADD(f2, f14) RQ_LD(f12)
             RQ_ADD(f4, f16) RQ_ADD(f6, f18) RQ_LD(f16)
             RQ_ADD(f0, f12) RQ_ADD(f2, f14) RQ_ADD(f4, f16) RQ_ADD(f6, f18)
             RQ_ST(f0) RQ_ST(f2) RQ_ST(f4) RQ_ST(f6));
      break;
    default:
      RQ_SUM(RQ_LD(f0) RQ_LD(f4) RQ_LD(f8) RQ_NEXT RQ_LD(f12) RQ_LD(f16) RQ_LD(f20)
             IPU_RPT("%[n]", 10) "\n\t"
             RQ_ADD(f0, f12) RQ_NEXT RQ_ADD(f2, f14) RQ_LD(f12)
             RQ_ADD(f4, f16) RQ_ADD(f6, f18) RQ_LD(f16)
             RQ_ADD(f8, f20) RQ_ADD(f10, f22) RQ_LD(f20)
             RQ_ADD(f0, f12) RQ_ADD(f2, f14) RQ_ADD(f4, f16) RQ_ADD(f6, f18)
             RQ_ADD(f8, f20) RQ_ADD(f10, f22)
             RQ_ST(f0) RQ_ST(f2) RQ_ST(f4) RQ_ST(f6) RQ_ST(f8) RQ_ST(f10));
      break;
  }
}

/* Quads first .. first + count - 1, three at a time (24 f registers). */
static int reduce_slice_wide(void *arg) {
  const struct reduce_job *j = arg;
  for (uint32_t q = j->first, end = j->first + j->count; q < end; q += 3)
    reduce_quads(j->copies, j->out, j->tiles, j->chunk, j->me, 4u * q, end - q < 3 ? end - q : 3);
  return 0;
}
#endif

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

  struct reduce_job jobs[6];
  const uint32_t workers = ipu_num_workers() < 6 ? ipu_num_workers() : 6;
  ipu_worker_fn slice = reduce_slice;
  uint32_t units = chunk; /* elements, or quads on the wide path */
#ifndef KERNELS_HOST
  /* ld128 needs every tile's copy of a quad 16-byte aligned; st64 the output 8. */
  if (tiles >= 2 && chunk % 4u == 0 && (uintptr_t)copies % 16u == 0 && (uintptr_t)vec % 8u == 0) {
    slice = reduce_slice_wide;
    units = chunk / 4u;
  }
#endif
  if (slice == reduce_slice) memcpy(copies + (size_t)me * chunk, vec + (size_t)me * chunk, len);
  for (uint32_t w = 0, first = 0; w < workers; ++w) {
    const uint32_t count = units / workers + (w < units % workers ? 1u : 0u);
    jobs[w] = (struct reduce_job){copies, vec + (size_t)me * chunk, tiles, chunk, first, count, me};
    first += count;
    if (count) ipu_run(slice, &jobs[w]);
  }
  ipu_join();
  const uint32_t t2 = kc_cycle32();
  cycles->post = t0x - t0;
  cycles->exchange = t1 - t0x;
  cycles->reduce = t2 - t1;
}
