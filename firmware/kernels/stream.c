/*
 * stream: McCalpin's STREAM on every tile of the IPU, f32, naive C (no intrinsics, the
 * compiler's code at the project's default optimisation), six workers per tile.
 * Design and numbers: docs/kernels.md.
 *
 * Each tile holds three arrays a, b, c of N floats (N: the three together take half the
 * tile's SRAM, rounded down to a multiple of 48) and runs, one superstep each:
 *   copy   a[i] = b[i]              2 words per element (STREAM's count)
 *   scale  a[i] = s * b[i]          2
 *   add    a[i] = b[i] + c[i]       3
 *   triad  a[i] = b[i] + s * c[i]   3
 * with s = 3, worker w taking elements w N/6 .. (w+1) N/6 - 1. A kernel is timed on
 * each tile from before its first `run` to after `join`; the IPU's time is from the
 * earliest start to the latest end over its tiles (one chip-wide cycle counter), and
 * its bytes are the tiles' bytes added.
 *
 * Inputs: b[i] = kb(i) 2^-12 and c[i] = kc(i) 2^-12 with kb, kc integers in
 * [-2048, 2047] from kin_word, so every result is exact in f32 (whether or not the
 * compiler fuses s * c + b) and equals an integer expression times 2^-12. After each
 * kernel the workers compare every a[i] with that expression, made from the integers
 * (not from the arrays); a tile with a wrong element prints the first one and exits 1
 * once the results are gathered:
 *   stream: tile T kernel NAME wrong_element I got 0x... want 0x...
 *
 * Tile 0 of IPU 0 prints (bytes per cycle are clock-free; GB/s = bytes_per_cycle x
 * the configured clock, worked out by the test and docs/kernels.md):
 *   stream: tiles T workers W elements_per_tile N array_bytes_per_tile A wrong_tiles K
 *   stream: kernel NAME bytes X cycles C bytes_per_cycle Y bytes_per_cycle_per_tile Z
 */
#include "kcommon.h"

#define STREAM_SEED_B 0x53545242u /* "STRB" */
#define STREAM_SEED_C 0x53545243u /* "STRC" */
#define STREAM_SCALAR 3.0f
#define STREAM_KERNELS 4
#define STREAM_WORKERS 6

enum { COPY, SCALE, ADD, TRIAD };
static const char *const kernel_name[STREAM_KERNELS] = {"copy", "scale", "add", "triad"};
static const uint32_t kernel_words[STREAM_KERNELS] = {2, 2, 3, 3}; /* moved per element */

/* One worker's slice of the three arrays. */
struct job {
  float *a;
  const float *b, *c;
  float s;
  uint32_t n;
  uint32_t first;       /* global index (within the tile) of a[0] */
  uint32_t tile;        /* global tile id: the inputs' row */
  uint32_t kernel;      /* for the check */
  uint32_t bad;         /* check: 1 + index of the first wrong element, or 0 */
  uint32_t got, want;   /* check: its bits and the right ones */
};

/* ---- the four kernels: plain C, as STREAM writes them ------------------------------ */

static int copy_worker(void *arg) {
  const struct job *j = arg;
  float *a = j->a;
  const float *b = j->b;
  for (uint32_t i = 0; i < j->n; ++i) a[i] = b[i];
  return 0;
}

static int scale_worker(void *arg) {
  const struct job *j = arg;
  float *a = j->a;
  const float *b = j->b;
  const float s = j->s;
  for (uint32_t i = 0; i < j->n; ++i) a[i] = s * b[i];
  return 0;
}

static int add_worker(void *arg) {
  const struct job *j = arg;
  float *a = j->a;
  const float *b = j->b, *c = j->c;
  for (uint32_t i = 0; i < j->n; ++i) a[i] = b[i] + c[i];
  return 0;
}

static int triad_worker(void *arg) {
  const struct job *j = arg;
  float *a = j->a;
  const float *b = j->b, *c = j->c;
  const float s = j->s;
  for (uint32_t i = 0; i < j->n; ++i) a[i] = b[i] + s * c[i];
  return 0;
}

static const ipu_worker_fn kernel_fn[STREAM_KERNELS] = {copy_worker, scale_worker, add_worker,
                                                        triad_worker};

/* ---- inputs and the check ---------------------------------------------------------- */

/* The integer behind element i of the input named by seed: [-2048, 2047]. */
static inline int32_t input_int(uint32_t seed, uint32_t tile, uint32_t i) {
  return (int32_t)(kin_word(seed, tile, i) >> 20) - 2048;
}

static inline float scaled(int32_t k) { return (float)k * (1.0f / 4096.0f); }

static int init_worker(void *arg) {
  const struct job *j = arg;
  float *b = (float *)j->b, *c = (float *)j->c;
  for (uint32_t i = 0; i < j->n; ++i) {
    b[i] = scaled(input_int(STREAM_SEED_B, j->tile, j->first + i));
    c[i] = scaled(input_int(STREAM_SEED_C, j->tile, j->first + i));
    j->a[i] = 0.0f;
  }
  return 0;
}

/* Compares a with the kernel's result made from the integers (s = 3 exactly). */
static int check_worker(void *arg) {
  struct job *j = arg;
  for (uint32_t i = 0; i < j->n; ++i) {
    const int32_t kb = input_int(STREAM_SEED_B, j->tile, j->first + i);
    const int32_t kc = input_int(STREAM_SEED_C, j->tile, j->first + i);
    const int32_t k = j->kernel == COPY ? kb : j->kernel == SCALE ? 3 * kb
                      : j->kernel == ADD ? kb + kc : kb + 3 * kc;
    const uint32_t want = kc_bits(scaled(k)), got = kc_bits(j->a[i]);
    if (got != want) {
      j->bad = j->first + i + 1;
      j->got = got;
      j->want = want;
      break;
    }
  }
  return 0;
}

/* Runs fn on the six workers' slices and waits for them. */
static void on_workers(struct job *jobs, ipu_worker_fn fn) {
  for (uint32_t w = 0; w < STREAM_WORKERS; ++w) ipu_run(fn, &jobs[w]);
  ipu_join();
}

/* ---- the run ----------------------------------------------------------------------- */

struct tile_record {
  uint32_t start[STREAM_KERNELS], end[STREAM_KERNELS]; /* cycle readings */
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
   * than into SRAM of its own beside the arrays. */
  const size_t gather_bytes = (size_t)tiles * sizeof(struct tile_record);
  float *arrays = kc_alloc(3u * n * sizeof(float), "the arrays a, b, c");
  if (!arrays) return 1;
  if (gather_bytes > 2u * n * sizeof(float)) { /* the same on every tile: all stop */
    if (me == 0) kprintf("stream: %lu tile records do not fit in a and b\n", (unsigned long)tiles);
    return 1;
  }
  float *a = arrays, *b = arrays + n, *c = arrays + 2u * n;

  struct job jobs[STREAM_WORKERS];
  const uint32_t per_worker = n / STREAM_WORKERS;
  for (uint32_t w = 0; w < STREAM_WORKERS; ++w) {
    const uint32_t first = w * per_worker;
    jobs[w] = (struct job){a + first, b + first, c + first, STREAM_SCALAR, per_worker, first,
                           ipu_global_tile_id(), 0, 0, 0, 0};
  }
  on_workers(jobs, init_worker);

  struct tile_record mine = {{0}, {0}, 0};
  for (uint32_t k = 0; k < STREAM_KERNELS; ++k) {
    ipu_sync(IPU_SYNC_IPU);
    mine.start[k] = kc_cycle32();
    on_workers(jobs, kernel_fn[k]);
    mine.end[k] = kc_cycle32();
#ifdef STREAM_WRONG_ELEMENT
    /* The test's planted error (stream_wrong.elf): the check must name this element. */
    if (k == TRIAD && me == tiles - 1) a[STREAM_WRONG_ELEMENT] += 1.0f;
#endif

    for (uint32_t w = 0; w < STREAM_WORKERS; ++w) jobs[w].kernel = k;
    on_workers(jobs, check_worker);
    for (uint32_t w = 0; w < STREAM_WORKERS; ++w)
      if (jobs[w].bad) {
        kprintf("stream: tile %lu kernel %s wrong_element %lu got 0x%08lx want 0x%08lx\n",
                (unsigned long)me, kernel_name[k], (unsigned long)(jobs[w].bad - 1),
                (unsigned long)jobs[w].got, (unsigned long)jobs[w].want);
        ++mine.wrong;
        break;
      }
    for (uint32_t w = 0; w < STREAM_WORKERS; ++w) jobs[w].bad = 0;
  }

  struct tile_record *all = me == 0 ? (struct tile_record *)(void *)a : NULL;
  kc_gather_to_tile0(&mine, sizeof mine, all);
  if (me != 0 || ipu_id() != 0) return mine.wrong ? 1 : 0;

  uint32_t wrong_tiles = 0;
  for (uint32_t t = 0; t < tiles; ++t) wrong_tiles += all[t].wrong ? 1u : 0u;
  kprintf("stream: tiles %lu workers %d elements_per_tile %lu array_bytes_per_tile %lu "
          "wrong_tiles %lu\n",
          (unsigned long)tiles, STREAM_WORKERS, (unsigned long)n,
          (unsigned long)(3u * n * sizeof(float)), (unsigned long)wrong_tiles);
  uint32_t milli_of[STREAM_KERNELS];
  for (uint32_t k = 0; k < STREAM_KERNELS; ++k) {
    /* Differences from tile 0's start, so a wrap of the 32-bit counter is harmless. */
    int32_t first = 0, last = 0;
    for (uint32_t t = 0; t < tiles; ++t) {
      const int32_t s = (int32_t)(all[t].start[k] - all[0].start[k]);
      const int32_t e = (int32_t)(all[t].end[k] - all[0].start[k]);
      if (s < first) first = s;
      if (e > last) last = e;
    }
    const uint32_t cycles = (uint32_t)(last - first);
    const uint64_t bytes = (uint64_t)tiles * n * kernel_words[k] * sizeof(float);
    const uint64_t milli = cycles ? bytes * 1000u / cycles : 0;
    const uint64_t tile_milli = milli / tiles;
    milli_of[k] = (uint32_t)milli;
    kprintf("stream: kernel %s bytes %llu cycles %lu bytes_per_cycle %llu.%03llu "
            "bytes_per_cycle_per_tile %llu.%03llu\n",
            kernel_name[k], (unsigned long long)bytes, (unsigned long)cycles,
            (unsigned long long)(milli / 1000), (unsigned long long)(milli % 1000),
            (unsigned long long)(tile_milli / 1000), (unsigned long long)(tile_milli % 1000));
  }
  kc_report(wrong_tiles, milli_of[COPY], milli_of[SCALE], milli_of[ADD], milli_of[TRIAD]);
  return (mine.wrong || wrong_tiles) ? 1 : 0;
}
