/*
 * pipeline: a two-layer model pipelined over two IPUs (model parallelism), the
 * activations crossing an IPU-Link every step. Shapes and host interface: pipeline.h;
 * design and numbers: docs/kernels.md.
 *
 * Layer 1, y1 = relu(W1 x + b1), runs on IPU 0; layer 2, y2 = W2 y1 + b2, on IPU 1; both
 * D x D, tile t of each IPU owning rows tR .. tR+R-1. Step s = 0 .. N (N micro-batches):
 *   IPU 0, s < N:  zone-1 superstep: every tile multicasts its block of x[s] to the
 *                  IPU's other tiles (all-gather); the six workers compute the tile's
 *                  rows of y1[s], one sample each;
 *   IPU 1, s >= 1: the same with the y1[s-1] blocks it received, computing y2[s-1];
 *   s < N:         zone-2 superstep: tile t of IPU 0 sends its block of y1[s] to tile t
 *                  of IPU 1 (R x 6 floats; D x 6 floats over the links per step).
 * So in steady state both IPUs compute in the same superstep, the previous step's
 * activations having crossed the link; s = 0 fills the pipeline, s = N drains it.
 * IPUs beyond the second take part in the zone-2 syncs (a group sync spans every IPU
 * that runs a program) and do nothing else.
 *
 * Every dot product runs in index order from 0: acc = ((0 + w_0 a_0) + w_1 a_1) + ...,
 * then y = acc + b (and relu: y > 0 ? y : 0 on layer 1), which the host reference repeats.
 * Results: every tile of IPUs 0 and 1 keeps its blocks of its layer's output in
 * pipeline_y (y1, y2), for the host to read; tile 0 of each prints the hash of them
 * (FNV-1a over each tile's blocks in [micro-batch][sample][row] order, then over the
 * tile hashes in tile order) and the cycles of every step (pipeline_steps), and sets
 * kc_result.
 */
#include <string.h>

#include "kcommon.h"
#include "pipeline.h"

/* Host interface (pipeline.h): written by a host program before the run, else zero. */
KTILE struct pipeline_params pipeline_params;
KTILE float pipeline_x[PIPE_IO_FLOATS]; /* IPU 0: this tile's blocks of x, every micro-batch */
KTILE float pipeline_y[PIPE_IO_FLOATS]; /* this tile's blocks of its layer's output (y1, y2) */
KTILE struct pipeline_step pipeline_steps[PIPE_MAX_MICRO_BATCHES + 1];

struct layer {
  const float *w;   /* R x D, this tile's rows */
  const float *b;   /* R */
  const float *act; /* the gathered input: T blocks of [sample][row] */
  float *out;       /* this tile's block of the output: [sample][row] */
  uint32_t rows, tiles, relu;
};

struct job {
  const struct layer *l;
  uint32_t sample;
};

/* One sample's R outputs (a worker). */
static int layer_sample(void *arg) {
  const struct job *j = arg;
  const struct layer *l = j->l;
  const uint32_t rows = l->rows, dim = rows * l->tiles;
  for (uint32_t r = 0; r < rows; ++r) {
    const float *w = l->w + (size_t)r * dim;
    const float *a = l->act + (size_t)j->sample * rows;
    float acc = 0.0f;
    if (rows == 1) { /* the full chips: one strided loop, unrolled (order unchanged) */
      uint32_t u = 0;
      for (; u + 4 <= l->tiles; u += 4, w += 4, a += 4 * PIPE_BATCH) {
        acc = acc + w[0] * a[0];
        acc = acc + w[1] * a[PIPE_BATCH];
        acc = acc + w[2] * a[2 * PIPE_BATCH];
        acc = acc + w[3] * a[3 * PIPE_BATCH];
      }
      for (; u < l->tiles; ++u, ++w, a += PIPE_BATCH) acc = acc + w[0] * a[0];
    } else {
      for (uint32_t u = 0; u < l->tiles; ++u, w += rows, a += PIPE_BATCH * rows)
        for (uint32_t q = 0; q < rows; ++q) acc = acc + w[q] * a[q];
    }
    float y = acc + l->b[r];
    if (l->relu && !(y > 0.0f)) y = 0.0f;
    l->out[j->sample * rows + r] = y;
  }
  return 0;
}

static void layer_run(const struct layer *l) {
  struct job jobs[PIPE_BATCH];
  const uint32_t workers = ipu_num_workers();
  for (uint32_t m = 0; m < PIPE_BATCH; ++m) {
    jobs[m] = (struct job){l, m};
    /* With fewer than six workers the supervisor waits for one before starting more. */
    if (workers < PIPE_BATCH && m > 0 && m % workers == 0) ipu_join();
    ipu_run(layer_sample, &jobs[m]);
  }
  ipu_join();
}

/* Zone-1 all-gather: this tile's block `own` to every other tile of the IPU, theirs into
 * act (block u at act + u * block). */
static void gather_blocks(float *act, const float *own, uint32_t block_floats) {
  const uint32_t me = ipu_tile_id(), tiles = ipu_num_tiles(), base = kc_ipu_base();
  const uint32_t len = block_floats * 4u;
  ipu_sync(IPU_SYNC_IPU);
  if (me > 0) ipu_xdst(base, me);
  if (me + 1 < tiles) ipu_xdst(base + me + 1, tiles - me - 1);
  if (tiles > 1) ipu_send(own, len);
  for (uint32_t d = 1; d < tiles; ++d) { /* rotated: each sender's data spread over time */
    const uint32_t from = (me + tiles - d) % tiles;
    ipu_xsrc(base + from);
    ipu_recv(act + (size_t)from * block_floats, len);
  }
  ipu_xwait();
}

/* This tile's rows of a layer's weights and biases. */
static void make_layer(float *w, float *b, uint32_t seed_w, uint32_t seed_b, uint32_t rows, uint32_t dim) {
  const uint32_t first = ipu_tile_id() * rows;
  for (uint32_t r = 0; r < rows; ++r) {
    for (uint32_t k = 0; k < dim; ++k) w[(size_t)r * dim + k] = kin_f32(kin_word(seed_w, first + r, k));
    b[r] = kin_f32(kin_word(seed_b, 0, first + r));
  }
}

int main(void) {
  const uint32_t me = ipu_tile_id(), tiles = ipu_num_tiles(), ipus = ipu_num_ipus(), ipu = ipu_id();
  const uint32_t rows = pipe_rows(tiles), dim = rows * tiles, block = PIPE_BATCH * rows;
  const uint32_t n = pipeline_params.micro_batches ? pipeline_params.micro_batches : PIPE_DEFAULT_MICRO_BATCHES;
  if (ipus < 2 || n > PIPE_MAX_MICRO_BATCHES) {
    if (me == 0 && ipu == 0)
      kprintf("pipeline: needs 2 IPUs (has %lu), at most %lu micro-batches (asked %lu)\n", (unsigned long)ipus,
              (unsigned long)PIPE_MAX_MICRO_BATCHES, (unsigned long)n);
    return 1;
  }
  if (ipu >= 2) { /* idle: every zone-2 sync of the pipeline, nothing to send */
    for (uint32_t s = 0; s < n; ++s) {
      ipu_sync(IPU_SYNC_GROUP);
      ipu_xwait();
    }
    return 0;
  }

  float *w = kc_alloc((size_t)rows * dim * 4, "the weights");
  float *b = kc_alloc(rows * 4u, "the biases");
  float *act = kc_alloc((size_t)dim * PIPE_BATCH * 4, "the gathered activations");
  uint32_t *hashes = me == 0 ? kc_alloc(tiles * 4u, "the hashes") : NULL;
  if (!w || !b || !act || (me == 0 && !hashes)) return 1;
  if (ipu == 0) {
    make_layer(w, b, KIN_SEED_PIPE_W1, KIN_SEED_PIPE_B1, rows, dim);
    if (pipeline_params.host_inputs != PIPE_HOST_INPUTS)
      for (uint32_t s = 0; s < n; ++s)
        for (uint32_t m = 0; m < PIPE_BATCH; ++m)
          for (uint32_t r = 0; r < rows; ++r)
            pipeline_x[pipe_io_index(rows, s, m, r)] = kin_f32(kin_word(KIN_SEED_PIPE_X, s * PIPE_BATCH + m, me * rows + r));
  } else {
    make_layer(w, b, KIN_SEED_PIPE_W2, KIN_SEED_PIPE_B2, rows, dim);
  }
  /* This tile's block of the layer's input, where the layer reads it: IPU 1's link
   * exchange delivers it here, IPU 0 copies it from pipeline_x. */
  float *mine = act + (size_t)me * block;

  const uint32_t start = kc_cycle32();
  for (uint32_t s = 0; s <= n; ++s) {
    struct pipeline_step *c = &pipeline_steps[s];
    memset(c, 0, sizeof *c);
    uint32_t t2 = kc_cycle32();
    /* IPU 0 computes micro-batch s, IPU 1 micro-batch s - 1. */
    if (ipu == 0 ? s < n : s >= 1) {
      const uint32_t mb = ipu == 0 ? s : s - 1;
      const float *own = ipu == 0 ? pipeline_x + pipe_io_index(rows, mb, 0, 0) : mine;
      const struct layer l = {w, b, act, pipeline_y + pipe_io_index(rows, mb, 0, 0), rows, tiles, ipu == 0};
      const uint32_t t0 = kc_cycle32();
      if (own != mine) { /* word stores: GCC would make a plain loop a memcpy, which copies bytes */
        volatile float *to = mine;
        for (uint32_t i = 0; i < block; ++i) to[i] = own[i];
      }
      gather_blocks(act, own, block);
      const uint32_t t1 = kc_cycle32();
      layer_run(&l);
      t2 = kc_cycle32();
      c->gather = t1 - t0;
      c->compute = t2 - t1;
    }
    if (s == n) break;
    ipu_sync(IPU_SYNC_GROUP);
    const uint32_t t3 = kc_cycle32();
    if (ipu == 0) {
      ipu_xdst(tiles + me, 1); /* tile me of IPU 1 */
      ipu_send(pipeline_y + pipe_io_index(rows, s, 0, 0), block * 4u);
    } else {
      ipu_xsrc(me); /* tile me of IPU 0 */
      ipu_recv(mine, block * 4u);
    }
    ipu_xwait();
    c->sync = t3 - t2;
    c->link = kc_cycle32() - t3;
  }
  const uint32_t total = kc_cycle32() - start;

  uint32_t h = KIN_HASH_INIT;
  for (uint32_t i = 0; i < n * block; ++i) h = kin_hash_word(h, kc_bits(pipeline_y[i]));
  kc_gather_to_tile0(&h, 4, hashes);
  if (me != 0) return 0;
  uint32_t all = KIN_HASH_INIT;
  for (uint32_t t = 0; t < tiles; ++t) all = kin_hash_word(all, hashes[t]);
  kprintf("pipeline: ipu %lu layer %lu ipus %lu tiles %lu dim %lu batch %lu micro_batches %lu hash 0x%08lx\n",
          (unsigned long)ipu, (unsigned long)(ipu + 1), (unsigned long)ipus, (unsigned long)tiles,
          (unsigned long)dim, (unsigned long)PIPE_BATCH, (unsigned long)n, (unsigned long)all);
  for (uint32_t s = 0; s <= n; ++s)
    kprintf("pipeline: step %lu ipu %lu gather %lu compute %lu sync %lu link %lu\n", (unsigned long)s,
            (unsigned long)ipu, (unsigned long)pipeline_steps[s].gather, (unsigned long)pipeline_steps[s].compute,
            (unsigned long)pipeline_steps[s].sync, (unsigned long)pipeline_steps[s].link);
  kprintf("pipeline: ipu %lu cycles %lu link_bytes_per_step %lu\n", (unsigned long)ipu, (unsigned long)total,
          (unsigned long)dim * PIPE_BATCH * 4u);
  kc_report(all, dim, PIPE_BATCH, n, total);
  return 0;
}
