/*
 * stream: McCalpin's STREAM on every tile of the IPU, six workers per tile, in four
 * versions: f32 in naive C (no intrinsics, the compiler's code at the project's default
 * optimisation; this file), f32 and f16 written with the wide / vector intrinsics of
 * ipu/xipu.h (stream_opt.c), and the triad hand-written in assembly (stream_asm.c).
 * Design and numbers: docs/kernels.md.
 *
 * Each tile holds three arrays a, b, c of N floats (N: the three together take half the
 * tile's SRAM, rounded down to a multiple of 48) and runs, one superstep each:
 *   copy   a[i] = b[i]              2 words per element (STREAM's count)
 *   scale  a[i] = s * b[i]          2
 *   add    a[i] = b[i] + c[i]       3
 *   triad  a[i] = b[i] + s * c[i]   3
 * with s = 3, worker w taking elements w N/6 .. (w+1) N/6 - 1 (the f16 kernels: the same
 * bytes, 2N halves per array, 2N/6 per worker). A kernel is timed on each tile from
 * before its first `run` to after `join`; the IPU's time is from the earliest start to
 * the latest end over its tiles (one chip-wide cycle counter), and its bytes are the
 * tiles' bytes added.
 *
 * Inputs: b[i] = kb(i) 2^-12 and c[i] = kc(i) 2^-12 with kb, kc integers in
 * [-2048, 2047] from kin_word, so every result is exact in f32 (whether or not the
 * compiler fuses s * c + b) and equals an integer expression times 2^-12. The f16
 * kernels' inputs are integers in [-256, 255] times 2^-8, so every f16 result (a
 * multiple of 2^-8, at most 1024 x 2^-8 in magnitude) is exact too. Before each kernel a
 * is filled with all-ones words (a NaN), untimed; after it the workers compare every
 * a[i] with the expression, made from the integers (not from the arrays); a tile with a
 * wrong element prints the first one and exits 1 once the results are gathered:
 *   stream: tile T kernel NAME wrong_element I got 0x... want 0x...
 *
 * Tile 0 of IPU 0 prints (bytes per cycle are clock-free; GB/s = bytes_per_cycle x
 * the configured clock, worked out by the test and docs/kernels.md):
 *   stream: tiles T workers W elements_per_tile N array_bytes_per_tile A wrong_tiles K
 *   stream: kernel NAME bytes X cycles C bytes_per_cycle Y bytes_per_cycle_per_tile Z
 * for NAME = copy scale add triad (naive), copy_opt .. triad_opt, triad_asm, copy_f16 ..
 * triad_f16, in that order.
 */
#include "kcommon.h"
#include "stream.h"

#define STREAM_SEED_B 0x53545242u   /* "STRB" */
#define STREAM_SEED_C 0x53545243u   /* "STRC" */
#define STREAM_SEED_B16 0x53544842u /* "STHB" */
#define STREAM_SEED_C16 0x53544843u /* "STHC" */
#define STREAM_SCALAR 3.0f
#define STREAM_SCALAR_F16 0x4200u /* 3 as f16 */
#define STREAM_WORKERS 6

enum { COPY, SCALE, ADD, TRIAD }; /* the operations */
static const uint32_t op_words[4] = {2, 2, 3, 3}; /* words moved per element (STREAM's count) */

/* ---- the four naive kernels: plain C, as STREAM writes them ------------------------ */

static int copy_worker(void *arg) {
  const struct stream_job *j = arg;
  float *a = j->a;
  const float *b = j->b;
  for (uint32_t i = 0; i < j->n; ++i) a[i] = b[i];
  return 0;
}

static int scale_worker(void *arg) {
  const struct stream_job *j = arg;
  float *a = j->a;
  const float *b = j->b;
  const float s = j->s;
  for (uint32_t i = 0; i < j->n; ++i) a[i] = s * b[i];
  return 0;
}

static int add_worker(void *arg) {
  const struct stream_job *j = arg;
  float *a = j->a;
  const float *b = j->b, *c = j->c;
  for (uint32_t i = 0; i < j->n; ++i) a[i] = b[i] + c[i];
  return 0;
}

static int triad_worker(void *arg) {
  const struct stream_job *j = arg;
  float *a = j->a;
  const float *b = j->b, *c = j->c;
  const float s = j->s;
  for (uint32_t i = 0; i < j->n; ++i) a[i] = b[i] + s * c[i];
  return 0;
}

/* Every kernel in the order they run: the f16 ones last (their inputs overwrite b, c). */
struct kernel {
  const char *name;
  ipu_worker_fn fn;
  uint8_t op;  /* COPY .. TRIAD */
  uint8_t f16; /* f16 data (2N halves per array) */
};
static const struct kernel kernels[] = {
    {"copy", copy_worker, COPY, 0},
    {"scale", scale_worker, SCALE, 0},
    {"add", add_worker, ADD, 0},
    {"triad", triad_worker, TRIAD, 0},
    {"copy_opt", stream_copy_opt, COPY, 0},
    {"scale_opt", stream_scale_opt, SCALE, 0},
    {"add_opt", stream_add_opt, ADD, 0},
    {"triad_opt", stream_triad_opt, TRIAD, 0},
    {"triad_asm", stream_triad_asm, TRIAD, 0},
    {"copy_f16", stream_copy_f16, COPY, 1},
    {"scale_f16", stream_scale_f16, SCALE, 1},
    {"add_f16", stream_add_f16, ADD, 1},
    {"triad_f16", stream_triad_f16, TRIAD, 1},
};
#define STREAM_KERNELS (sizeof kernels / sizeof kernels[0])
/* Indexes of the kernels kc_result reports beside the naive four. */
enum { K_TRIAD = 3, K_TRIAD_OPT = 7, K_TRIAD_ASM = 8, K_TRIAD_F16 = 12 };

/* ---- inputs and the check ---------------------------------------------------------- */

/* The integer behind element i of the f32 input named by seed: [-2048, 2047]. */
static inline int32_t input_int(uint32_t seed, uint32_t tile, uint32_t i) {
  return (int32_t)(kin_word(seed, tile, i) >> 20) - 2048;
}

static inline float scaled(int32_t k) { return (float)k * (1.0f / 4096.0f); }

/* The integer behind element i of the f16 input named by seed: [-256, 255]. */
static inline int32_t input_int16(uint32_t seed, uint32_t tile, uint32_t i) {
  return (int32_t)(kin_word(seed, tile, i) >> 23) - 256;
}

/* The f16 bits of k 2^-8 for |k| < 2048: exact (at most 11 significant bits, all above
 * f16's smallest normal 2^-14). Integer code, independent of the vector unit. */
static uint32_t f16_bits(int32_t k) {
  if (k == 0) return 0;
  const uint32_t sign = k < 0 ? 0x8000u : 0u, m = (uint32_t)(k < 0 ? -k : k);
  const uint32_t e = 31u - (uint32_t)__builtin_clz(m); /* m in [2^e, 2^(e+1)), e <= 10 */
  return sign | (e + 7u) << 10 | ((m << (10u - e)) & 0x3ffu); /* 1.f x 2^(e - 8) */
}

/* The integer the operation makes of element i's inputs (s = 3). */
static int32_t want_int(uint32_t op, int32_t kb, int32_t kc) {
  return op == COPY ? kb : op == SCALE ? 3 * kb : op == ADD ? kb + kc : kb + 3 * kc;
}

static int init_worker(void *arg) {
  const struct stream_job *j = arg;
  float *b = (float *)j->b, *c = (float *)j->c;
  for (uint32_t i = 0; i < j->n; ++i) {
    b[i] = scaled(input_int(STREAM_SEED_B, j->tile, j->first + i));
    c[i] = scaled(input_int(STREAM_SEED_C, j->tile, j->first + i));
  }
  return 0;
}

static int init16_worker(void *arg) {
  const struct stream_job *j = arg;
  uint16_t *b = (uint16_t *)j->b16, *c = (uint16_t *)j->c16;
  for (uint32_t i = 0; i < 2u * j->n; ++i) {
    b[i] = (uint16_t)f16_bits(input_int16(STREAM_SEED_B16, j->tile, 2u * j->first + i));
    c[i] = (uint16_t)f16_bits(input_int16(STREAM_SEED_C16, j->tile, 2u * j->first + i));
  }
  return 0;
}

/* a = all-ones words before each kernel, so an element a kernel skips is caught. */
static int clear_worker(void *arg) {
  const struct stream_job *j = arg;
  uint32_t *a = (uint32_t *)(void *)j->a;
  for (uint32_t i = 0; i < j->n; ++i) a[i] = 0xffffffffu;
  return 0;
}

/* Records the first wrong element: index g (within the tile), its bits and the right ones. */
static void wrong(struct stream_job *j, uint32_t g, uint32_t got, uint32_t want) {
  j->bad = g + 1;
  j->got = got;
  j->want = want;
}

/* Compares a with the kernel's result made from the integers. */
static int check_worker(void *arg) {
  struct stream_job *j = arg;
  const struct kernel *k = &kernels[j->kernel];
  if (k->f16) {
    for (uint32_t i = 0; i < 2u * j->n; ++i) {
      const uint32_t g = 2u * j->first + i;
      const int32_t kb = input_int16(STREAM_SEED_B16, j->tile, g);
      const int32_t kc = input_int16(STREAM_SEED_C16, j->tile, g);
      const uint32_t want = f16_bits(want_int(k->op, kb, kc));
      if (j->a16[i] != want) {
        wrong(j, g, j->a16[i], want);
        break;
      }
    }
    return 0;
  }
  for (uint32_t i = 0; i < j->n; ++i) {
    const int32_t kb = input_int(STREAM_SEED_B, j->tile, j->first + i);
    const int32_t kc = input_int(STREAM_SEED_C, j->tile, j->first + i);
    const uint32_t want = kc_bits(scaled(want_int(k->op, kb, kc))), got = kc_bits(j->a[i]);
    if (got != want) {
      wrong(j, j->first + i, got, want);
      break;
    }
  }
  return 0;
}

/* Runs fn on the six workers' slices and waits for them. */
static void on_workers(struct stream_job *jobs, ipu_worker_fn fn) {
  for (uint32_t w = 0; w < STREAM_WORKERS; ++w) ipu_run(fn, &jobs[w]);
  ipu_join();
}

/* ---- the run ----------------------------------------------------------------------- */

/* What each tile sends tile 0, a group of GATHER_KERNELS kernels at a time (all 13 at
 * once would not fit in a and b on GC2's 1216 tiles). */
#define GATHER_KERNELS 7u
struct tile_record {
  uint32_t start[GATHER_KERNELS], end[GATHER_KERNELS]; /* cycle readings */
  uint32_t wrong;                                       /* kernels with a wrong element */
};

int main(void) {
  const uint32_t me = ipu_tile_id(), tiles = ipu_num_tiles();
  if (ipu_num_workers() < STREAM_WORKERS) {
    if (me == 0) kprintf("stream: needs %d workers per tile\n", STREAM_WORKERS);
    return 1;
  }
  const uint32_t n = ipu_sram_size() / 2u / 12u / 48u * 48u; /* elements per array */
  /* One block, so tile 0 gathers the tile records into a and b (dead by then) rather
   * than into SRAM of its own beside the arrays; 8 bytes over for 16-byte alignment
   * (the wide loads need it; kc_alloc gives 8). */
  const size_t gather_bytes = (size_t)tiles * sizeof(struct tile_record);
  float *const block = kc_alloc(3u * n * sizeof(float) + 8u, "the arrays a, b, c");
  if (!block) return 1;
  if (gather_bytes > 2u * n * sizeof(float)) { /* the same on every tile: all stop */
    if (me == 0) kprintf("stream: %lu tile records do not fit in a and b\n", (unsigned long)tiles);
    return 1;
  }
  float *const a = (float *)(((uintptr_t)block + 15u) & ~(uintptr_t)15u);
  float *const b = a + n, *const c = a + 2u * n;

  struct stream_job jobs[STREAM_WORKERS];
  const uint32_t per_worker = n / STREAM_WORKERS; /* a multiple of 8: N is one of 48 */
  for (uint32_t w = 0; w < STREAM_WORKERS; ++w) {
    const uint32_t first = w * per_worker;
    jobs[w] = (struct stream_job){a + first,
                                  b + first,
                                  c + first,
                                  (uint16_t *)(void *)(a + first),
                                  (const uint16_t *)(const void *)(b + first),
                                  (const uint16_t *)(const void *)(c + first),
                                  STREAM_SCALAR,
                                  STREAM_SCALAR_F16 << 16 | STREAM_SCALAR_F16,
                                  per_worker,
                                  first,
                                  ipu_global_tile_id(),
                                  0, 0, 0, 0};
  }

  uint32_t cycles_of[STREAM_KERNELS] = {0}, wrong_tiles = 0;
  int32_t inputs = -1; /* what b and c hold: the f32 inputs (0), the f16 ones (1), neither */
  struct tile_record mine = {{0}, {0}, 0};
  for (uint32_t k = 0; k < STREAM_KERNELS; ++k) {
    if (inputs != kernels[k].f16) {
      on_workers(jobs, kernels[k].f16 ? init16_worker : init_worker);
      inputs = kernels[k].f16;
    }
    on_workers(jobs, clear_worker);
    ipu_sync(IPU_SYNC_IPU);
    mine.start[k % GATHER_KERNELS] = kc_cycle32();
    on_workers(jobs, kernels[k].fn);
    mine.end[k % GATHER_KERNELS] = kc_cycle32();
#ifdef STREAM_WRONG_ELEMENT
    /* The test's planted error (stream_wrong.elf): the check must name this element. */
    if (k == K_TRIAD && me == tiles - 1) a[STREAM_WRONG_ELEMENT] += 1.0f;
#endif

    for (uint32_t w = 0; w < STREAM_WORKERS; ++w) jobs[w].kernel = k;
    on_workers(jobs, check_worker);
    for (uint32_t w = 0; w < STREAM_WORKERS; ++w)
      if (jobs[w].bad) {
        kprintf("stream: tile %lu kernel %s wrong_element %lu got 0x%08lx want 0x%08lx\n",
                (unsigned long)me, kernels[k].name, (unsigned long)(jobs[w].bad - 1),
                (unsigned long)jobs[w].got, (unsigned long)jobs[w].want);
        ++mine.wrong;
        break;
      }
    for (uint32_t w = 0; w < STREAM_WORKERS; ++w) jobs[w].bad = 0;

    /* The group's readings to tile 0, into a and b (so the inputs are made again). */
    const uint32_t group_end = k + 1 == STREAM_KERNELS || (k + 1) % GATHER_KERNELS == 0;
    if (!group_end) continue;
    struct tile_record *all = me == 0 ? (struct tile_record *)(void *)a : NULL;
    kc_gather_to_tile0(&mine, sizeof mine, all);
    if (me == 0) {
      const uint32_t first_k = k - k % GATHER_KERNELS;
      for (uint32_t g = first_k; g <= k; ++g) {
        /* Differences from tile 0's start, so a wrap of the 32-bit counter is harmless. */
        const uint32_t i = g % GATHER_KERNELS;
        int32_t first = 0, last = 0;
        for (uint32_t t = 0; t < tiles; ++t) {
          const int32_t s = (int32_t)(all[t].start[i] - all[0].start[i]);
          const int32_t e = (int32_t)(all[t].end[i] - all[0].start[i]);
          if (s < first) first = s;
          if (e > last) last = e;
        }
        cycles_of[g] = (uint32_t)(last - first);
      }
      if (k + 1 == STREAM_KERNELS)
        for (uint32_t t = 0; t < tiles; ++t) wrong_tiles += all[t].wrong ? 1u : 0u;
    }
    inputs = -1; /* tile 0's b is overwritten */
  }
  if (me != 0 || ipu_id() != 0) return mine.wrong ? 1 : 0;

  kprintf("stream: tiles %lu workers %d elements_per_tile %lu array_bytes_per_tile %lu "
          "wrong_tiles %lu\n",
          (unsigned long)tiles, STREAM_WORKERS, (unsigned long)n,
          (unsigned long)(3u * n * sizeof(float)), (unsigned long)wrong_tiles);
  uint32_t milli_of[STREAM_KERNELS];
  for (uint32_t k = 0; k < STREAM_KERNELS; ++k) {
    const uint32_t cycles = cycles_of[k];
    /* The f16 kernels move 2N halves per array: the same bytes as N floats. */
    const uint64_t bytes = (uint64_t)tiles * n * op_words[kernels[k].op] * sizeof(float);
    const uint64_t milli = cycles ? bytes * 1000u / cycles : 0;
    const uint64_t tile_milli = milli / tiles;
    milli_of[k] = (uint32_t)milli;
    kprintf("stream: kernel %s bytes %llu cycles %lu bytes_per_cycle %llu.%03llu "
            "bytes_per_cycle_per_tile %llu.%03llu\n",
            kernels[k].name, (unsigned long long)bytes, (unsigned long)cycles,
            (unsigned long long)(milli / 1000), (unsigned long long)(milli % 1000),
            (unsigned long long)(tile_milli / 1000), (unsigned long long)(tile_milli % 1000));
  }
  kc_report_more(4, milli_of[K_TRIAD_OPT]);
  kc_report_more(5, milli_of[K_TRIAD_F16]);
  kc_report_more(6, milli_of[K_TRIAD_ASM]);
  kc_report(wrong_tiles, milli_of[0], milli_of[1], milli_of[2], milli_of[K_TRIAD]);
  return (mine.wrong || wrong_tiles) ? 1 : 0;
}
