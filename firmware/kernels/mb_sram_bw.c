/*
 * mb_sram_bw: peak SRAM bandwidth of a tile and of the IPU with the ISA's widest access,
 * the 32-bit `lw` / `sw`: six workers per tile run unrolled loops of
 *   load         lw x, off(p)                  (UNROLL per iteration, value discarded)
 *   store        sw x, off(p)
 *   load_store   lw x, off(p); sw x, off(q)    (a copy)
 * over a buffer of their own (BUF_WORDS words, PASSES times), so apart from one pointer
 * add and one branch per UNROLL accesses every issue slot is a memory access. Then the
 * same with the wide accesses of docs/xipu.md, in zero-overhead `rpt` loops (inline asm:
 * a body of WIDE_BODY accesses run BUF_BYTES / (WIDE_BODY x step) times per pass, so only
 * the rpt and a few instructions of the pass loop are not accesses):
 *   load128          ld128.pi f0, p                (16 bytes into f0..f3, discarded)
 *   store64          st64.pi f4, q                 (8 bytes from the pair f4, f5)
 *   load128_store64  ld128st64.pi f0, p, q, f4     (16 bytes loaded, 8 stored: the source
 *                                                  buffer read once, half the destination
 *                                                  written per pass)
 * Design and numbers: docs/kernels.md.
 *
 * Each pattern is one superstep, timed on each tile from before its first `run` to
 * after `join`; the IPU's time is from the earliest start to the latest end over its
 * tiles (one chip-wide cycle counter). The stores write a known pattern and the copy
 * copies one, and every tile checks every word of every destination buffer (the words a
 * pattern does not store must still hold the previous pattern's); a tile with a wrong
 * word prints the first one and exits 1 once the readings are gathered:
 *   mb_sram_bw: tile T pattern P worker W wrong_word I got 0x... want 0x...
 *
 * Tile 0 of IPU 0 prints (clock-free; TB/s = bytes_per_cycle x the configured clock,
 * worked out by the test and docs/kernels.md):
 *   mb_sram_bw: tiles T workers W unroll U bytes_per_worker B wrong_tiles K
 *   mb_sram_bw: pattern P bytes X cycles C bytes_per_cycle Y bytes_per_cycle_per_tile Z
 * for P = load, store, load_store, load128, store64, load128_store64.
 */
#include "kcommon.h"

#define WORKERS 6
#define UNROLL 128                 /* accesses per loop iteration (per array) */
#define BUF_WORDS 1024u            /* 4 KiB per worker and array */
#define PASSES 16u                 /* so a worker moves 64 KiB per array */
#define BUF_BYTES (BUF_WORDS * 4u)
#define WIDE_BODY 16               /* wide accesses per rpt body (at most IPU_RPT_BODY - 1) */
#define PATTERNS 6

enum { LOAD, STORE, LOAD_STORE, LOAD128, STORE64, LOAD128_STORE64 };
static const char *const pattern_name[PATTERNS] = {"load",    "store",   "load_store",
                                                   "load128", "store64", "load128_store64"};
/* Bytes a worker moves per pass, in units of BUF_BYTES / 2: the copy and the pair read
 * and write, ld128st64.pi stores half what it loads. */
static const uint32_t pattern_halves[PATTERNS] = {2, 2, 4, 2, 2, 3};

struct job {
  volatile uint32_t *src; /* BUF_WORDS, 16-byte aligned */
  volatile uint32_t *dst; /* BUF_WORDS, 16-byte aligned */
  uint32_t value;         /* what the 32-bit stores write */
  uint32_t pair[2][2];    /* the f register pair store64 [0] and load128_store64 [1] write */
};

/* X(k) for k = 0 .. 127: the unrolled body, one access per k at a constant offset. */
#define REP8(X, k) X(k) X(k + 1) X(k + 2) X(k + 3) X(k + 4) X(k + 5) X(k + 6) X(k + 7)
#define REP64(X) REP8(X, 0) REP8(X, 8) REP8(X, 16) REP8(X, 24) REP8(X, 32) REP8(X, 40) \
                 REP8(X, 48) REP8(X, 56)
#define REP128(X) REP64(X) REP8(X, 64) REP8(X, 72) REP8(X, 80) REP8(X, 88) REP8(X, 96) \
                  REP8(X, 104) REP8(X, 112) REP8(X, 120)

static int load_worker(void *arg) {
  const struct job *j = arg;
  for (uint32_t pass = 0; pass < PASSES; ++pass)
    for (volatile uint32_t *p = j->src, *end = j->src + BUF_WORDS; p != end; p += UNROLL) {
#define LOAD1(k) (void)p[k];
      REP128(LOAD1)
#undef LOAD1
    }
  return 0;
}

static int store_worker(void *arg) {
  const struct job *j = arg;
  const uint32_t v = j->value;
  for (uint32_t pass = 0; pass < PASSES; ++pass)
    for (volatile uint32_t *p = j->dst, *end = j->dst + BUF_WORDS; p != end; p += UNROLL) {
#define STORE1(k) p[k] = v;
      REP128(STORE1)
#undef STORE1
    }
  return 0;
}

static int load_store_worker(void *arg) {
  const struct job *j = arg;
  for (uint32_t pass = 0; pass < PASSES; ++pass) {
    volatile uint32_t *q = j->dst;
    for (volatile uint32_t *p = j->src, *end = j->src + BUF_WORDS; p != end;
         p += UNROLL, q += UNROLL) {
#define COPY1(k) q[k] = p[k];
      REP128(COPY1)
#undef COPY1
    }
  }
  return 0;
}

/* ---- the wide patterns: one rpt loop per pass, every body instruction an access ---- */

#define REP16(s) s s s s s s s s s s s s s s s s
#if WIDE_BODY != 16
#error "REP16 writes the rpt bodies: WIDE_BODY must be 16"
#endif
/* The asm's view of a whole buffer, so the compiler neither drops nor moves the accesses. */
#define WHOLE(p) (*(volatile uint32_t(*)[BUF_WORDS])(p))

/* Each worker's passes are one asm statement (the pass loop too), so the compiler adds
 * nothing per pass: a pointer reset (two for the pair), the rpt, an add and a branch.
 * The pass counter is early-clobber: it must not share a register with the rpt count
 * (GCC gives equal inputs one register, and PASSES may equal the count). */
static int load128_worker(void *arg) {
  const struct job *j = arg;
  uint32_t passes = PASSES;
  volatile uint32_t *p;
  __asm__ volatile("1:\n\t"
                   "mv %[p], %[src]\n\t"
                   IPU_RPT("%[n]", WIDE_BODY) "\n\t"
                   REP16(IPU_OP_LD128_PI_INSN ", f0, %[p], x0\n\t")
                   "addi %[passes], %[passes], -1\n\t"
                   "bnez %[passes], 1b"
                   : [p] "=&r"(p), [passes] "+&r"(passes)
                   : [src] "r"(j->src), [n] "r"(BUF_BYTES / 16u / WIDE_BODY), "m"(WHOLE(j->src))
                   : "f0", "f1", "f2", "f3");
  return 0;
}

static int store64_worker(void *arg) {
  const struct job *j = arg;
  uint32_t passes = PASSES;
  volatile uint32_t *q;
  __asm__ volatile("fmv.w.x f4, %[lo]\n\t"
                   "fmv.w.x f5, %[hi]\n\t"
                   "1:\n\t"
                   "mv %[q], %[dst]\n\t"
                   IPU_RPT("%[n]", WIDE_BODY) "\n\t"
                   REP16(IPU_OP_ST64_PI_INSN ", x0, %[q], f4\n\t")
                   "addi %[passes], %[passes], -1\n\t"
                   "bnez %[passes], 1b"
                   : [q] "=&r"(q), [passes] "+&r"(passes), "=m"(WHOLE(j->dst))
                   : [dst] "r"(j->dst), [n] "r"(BUF_BYTES / 8u / WIDE_BODY),
                     [lo] "r"(j->pair[0][0]), [hi] "r"(j->pair[0][1])
                   : "f4", "f5");
  return 0;
}

static int load128_store64_worker(void *arg) {
  const struct job *j = arg;
  uint32_t passes = PASSES;
  volatile uint32_t *p, *q;
  __asm__ volatile("fmv.w.x f4, %[lo]\n\t"
                   "fmv.w.x f5, %[hi]\n\t"
                   "1:\n\t"
                   "mv %[p], %[src]\n\t"
                   "mv %[q], %[dst]\n\t"
                   IPU_RPT("%[n]", WIDE_BODY) "\n\t"
                   REP16(IPU_OP_LD128ST64_PI_INSN ", f0, %[p], %[q], f4\n\t")
                   "addi %[passes], %[passes], -1\n\t"
                   "bnez %[passes], 1b"
                   : [p] "=&r"(p), [q] "=&r"(q), [passes] "+&r"(passes), "+m"(WHOLE(j->dst))
                   : [src] "r"(j->src), [dst] "r"(j->dst), [n] "r"(BUF_BYTES / 16u / WIDE_BODY),
                     [lo] "r"(j->pair[1][0]), [hi] "r"(j->pair[1][1]), "m"(WHOLE(j->src))
                   : "f0", "f1", "f2", "f3", "f4", "f5");
  return 0;
}

static const ipu_worker_fn pattern_fn[PATTERNS] = {load_worker,    store_worker,
                                                   load_store_worker, load128_worker,
                                                   store64_worker, load128_store64_worker};

struct tile_record {
  uint32_t start[PATTERNS], end[PATTERNS]; /* cycle readings */
  uint32_t wrong;                          /* patterns with a wrong stored word */
};

/* The word the source buffers hold at index i of worker w (distinct per tile). */
static uint32_t src_word(uint32_t tile, uint32_t w, uint32_t i) { return kin_word(tile, w, i); }

/* What word i of worker w's destination holds after `pattern`, a storing one
 * (load128_store64 stores the first half only: the second holds store64's words). */
static uint32_t want_word(uint32_t pattern, const struct job *j, uint32_t tile, uint32_t w,
                          uint32_t i) {
  switch (pattern) {
    case STORE: return j->value;
    case LOAD_STORE: return src_word(tile, w, i);
    case STORE64: return j->pair[0][i % 2];
    default: return i < BUF_WORDS / 2 ? j->pair[1][i % 2] : j->pair[0][i % 2];
  }
}

/* 0 if every word of the destinations is right, else prints the first wrong one and
 * returns 1. The loads store nothing: nothing to check. */
static uint32_t check(uint32_t pattern, const struct job *jobs, uint32_t tile) {
  if (pattern == LOAD || pattern == LOAD128) return 0;
  for (uint32_t w = 0; w < WORKERS; ++w)
    for (uint32_t i = 0; i < BUF_WORDS; ++i) {
      const uint32_t want = want_word(pattern, &jobs[w], tile, w, i);
      if (jobs[w].dst[i] != want) {
        kprintf("mb_sram_bw: tile %lu pattern %s worker %lu wrong_word %lu got 0x%08lx "
                "want 0x%08lx\n",
                (unsigned long)ipu_tile_id(), pattern_name[pattern], (unsigned long)w,
                (unsigned long)i, (unsigned long)jobs[w].dst[i], (unsigned long)want);
        return 1;
      }
    }
  return 0;
}

int main(void) {
  const uint32_t me = ipu_tile_id(), tiles = ipu_num_tiles(), tile = ipu_global_tile_id();
  if (ipu_num_workers() < WORKERS) {
    if (me == 0) kprintf("mb_sram_bw: needs %d workers per tile\n", WORKERS);
    return 1;
  }
  const size_t buf_bytes = 2u * WORKERS * BUF_WORDS * sizeof(uint32_t);
  const size_t gather_bytes = (size_t)tiles * sizeof(struct tile_record);
  /* Tile 0 gathers the tile records into the buffers (dead by then) rather than into
   * SRAM of its own beside them. */
  /* 8 bytes over, for 16-byte alignment (ld128 needs it; kc_alloc gives 8). */
  uint32_t *const block =
      kc_alloc((buf_bytes > gather_bytes ? buf_bytes : gather_bytes) + 8u, "the buffers");
  if (!block) return 1;
  uint32_t *const buf = (uint32_t *)(((uintptr_t)block + 15u) & ~(uintptr_t)15u);

  struct job jobs[WORKERS];
  for (uint32_t w = 0; w < WORKERS; ++w) {
    jobs[w].src = buf + 2u * w * BUF_WORDS;
    jobs[w].dst = buf + (2u * w + 1u) * BUF_WORDS;
    jobs[w].value = kin_mix(tile * WORKERS + w);
    for (uint32_t k = 0; k < 4; ++k)
      jobs[w].pair[k / 2][k % 2] = kin_mix(((tile * WORKERS + w) << 2 | k) ^ 0x57494445u);
    for (uint32_t i = 0; i < BUF_WORDS; ++i) {
      jobs[w].src[i] = src_word(tile, w, i);
      jobs[w].dst[i] = 0;
    }
  }

  struct tile_record mine = {{0}, {0}, 0};
  for (uint32_t p = 0; p < PATTERNS; ++p) {
    ipu_sync(IPU_SYNC_IPU);
    mine.start[p] = kc_cycle32();
    for (uint32_t w = 0; w < WORKERS; ++w) ipu_run(pattern_fn[p], &jobs[w]);
    ipu_join();
    mine.end[p] = kc_cycle32();
#ifdef MB_SRAM_BW_WRONG_WORD
    /* The test's planted error (mb_sram_bw_wrong.elf): the check must name this word. */
    if (p == LOAD_STORE && me == tiles - 1) jobs[2].dst[MB_SRAM_BW_WRONG_WORD] ^= 1u;
#endif
    mine.wrong += check(p, jobs, tile);
  }

  struct tile_record *all = me == 0 ? (struct tile_record *)(void *)buf : NULL;
  kc_gather_to_tile0(&mine, sizeof mine, all);
  if (me != 0 || ipu_id() != 0) return mine.wrong ? 1 : 0;

  uint32_t wrong_tiles = 0;
  for (uint32_t t = 0; t < tiles; ++t) wrong_tiles += all[t].wrong ? 1u : 0u;
  kprintf("mb_sram_bw: tiles %lu workers %d unroll %d bytes_per_worker %lu wrong_tiles %lu\n",
          (unsigned long)tiles, WORKERS, UNROLL,
          (unsigned long)(PASSES * BUF_WORDS * sizeof(uint32_t)), (unsigned long)wrong_tiles);
  uint32_t milli_of[PATTERNS];
  for (uint32_t p = 0; p < PATTERNS; ++p) {
    /* Differences from tile 0's start, so a wrap of the 32-bit counter is harmless. */
    int32_t first = 0, last = 0;
    for (uint32_t t = 0; t < tiles; ++t) {
      const int32_t s = (int32_t)(all[t].start[p] - all[0].start[p]);
      const int32_t e = (int32_t)(all[t].end[p] - all[0].start[p]);
      if (s < first) first = s;
      if (e > last) last = e;
    }
    const uint32_t cycles = (uint32_t)(last - first);
    const uint64_t per_tile = (uint64_t)WORKERS * PASSES * (BUF_BYTES / 2u) * pattern_halves[p];
    const uint64_t bytes = per_tile * tiles;
    const uint64_t milli = cycles ? bytes * 1000u / cycles : 0;
    const uint64_t tile_milli = milli / tiles;
    milli_of[p] = (uint32_t)milli;
    kprintf("mb_sram_bw: pattern %s bytes %llu cycles %lu bytes_per_cycle %llu.%03llu "
            "bytes_per_cycle_per_tile %llu.%03llu\n",
            pattern_name[p], (unsigned long long)bytes, (unsigned long)cycles,
            (unsigned long long)(milli / 1000), (unsigned long long)(milli % 1000),
            (unsigned long long)(tile_milli / 1000), (unsigned long long)(tile_milli % 1000));
  }
  kc_report_more(4, milli_of[LOAD128]);
  kc_report_more(5, milli_of[STORE64]);
  kc_report_more(6, milli_of[LOAD128_STORE64]);
  kc_report(wrong_tiles, milli_of[LOAD], milli_of[STORE], milli_of[LOAD_STORE], tiles);
  return (mine.wrong || wrong_tiles) ? 1 : 0;
}
