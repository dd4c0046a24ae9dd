// Host references for the chip-level kernels (kernels_ref.h). Every f32 operation is
// written out in the order the kernel does it; the host computes float expressions in
// single precision (x86-64 SSE) and C++20 without GNU extensions does not contract
// a * b + c into a fused multiply-add, so each step rounds exactly as on the tile.
#include "kernels_ref.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <sstream>
#include <stdexcept>

#include "kinputs.h"
#include "pipeline.h"

namespace kref {
namespace {

uint32_t bits_of(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

// IEEE binary16 -> binary32, exact (every binary16 value is a binary32 value).
float half_to_float(uint16_t h) {
  const int exp = (h >> 10) & 0x1f;
  const int mant = h & 0x3ff;
  float v = exp == 0 ? std::ldexp(float(mant), -24) : std::ldexp(float(mant | 0x400), exp - 25);
  if (exp == 31) v = mant ? std::nanf("") : INFINITY;
  return (h & 0x8000) ? -v : v;
}

uint32_t grid_rows(uint32_t n) {  // the largest divisor p of n with p * p <= n
  uint32_t best = 1;
  for (uint32_t p = 1; p * p <= n; ++p)
    if (n % p == 0) best = p;
  return best;
}

}  // namespace

namespace {
// kc_reduce_chunk (firmware/kernels/kreduce.c): the largest of 64, 32, ..., 4 floats with
// 8 * C * T + 128 KiB <= SRAM, 0 if none.
uint32_t reduce_chunk(uint32_t tiles, uint32_t sram_bytes) {
  for (uint32_t c = 64; c >= 4; c /= 2)
    if (8ull * c * tiles + 128 * 1024 <= sram_bytes) return c;
  return 0;
}
}  // namespace

AllreduceExpect allreduce(uint32_t tiles, uint32_t sram_bytes) {
  AllreduceExpect e;
  e.chunk = reduce_chunk(tiles, sram_bytes);
  if (e.chunk == 0) return e;
  e.elements = uint64_t(e.chunk) * tiles;
  uint32_t h = KIN_HASH_INIT;
  for (uint32_t g = 0; g < e.elements; ++g) {
    // The owner sums the T copies of its chunk in tile order, starting from tile 0's.
    float acc = kin_f32(kin_word(KIN_SEED_ALLREDUCE, 0, g));
    for (uint32_t t = 1; t < tiles; ++t) acc = acc + kin_f32(kin_word(KIN_SEED_ALLREDUCE, t, g));
    h = kin_hash_word(h, bits_of(acc));
    if (g < 4) e.first[g] = bits_of(acc);
  }
  e.hash = h;
  return e;
}

namespace {
// ipu_allreduce.c's ring: snaking through boards of four, else IPU order.
uint32_t ring_order(uint32_t p, uint32_t ipus) {
  if (ipus <= 4 || ipus % 4 != 0) return p;
  const uint32_t boards = ipus / 4, column = p / boards, step = p % boards;
  return (column % 2 == 0 ? step : boards - 1 - step) * 4 + column;
}
}  // namespace

IpuAllreduceExpect ipu_allreduce(uint32_t tiles, uint32_t sram_bytes, uint32_t ipus, uint32_t asked) {
  IpuAllreduceExpect e;
  const bool fits = asked >= 1 && 8ull * asked * tiles + 128 * 1024 <= sram_bytes;  // kc_reduce_chunk_fits
  e.chunk = asked == 0 ? reduce_chunk(tiles, sram_bytes) : fits ? asked : 0;
  if (e.chunk == 0) return e;
  const uint32_t chunk = e.chunk;
  e.elements = uint64_t(chunk) * tiles;
  // s[i][g]: IPU i's on-chip sum, tile order.
  std::vector<std::vector<float>> s(ipus, std::vector<float>(e.elements));
  for (uint32_t i = 0; i < ipus; ++i)
    for (uint32_t g = 0; g < e.elements; ++g) {
      float acc = kin_f32(kin_word(KIN_SEED_IPU_ALLREDUCE, i * tiles, g));
      for (uint32_t t = 1; t < tiles; ++t) acc = acc + kin_f32(kin_word(KIN_SEED_IPU_ALLREDUCE, i * tiles + t, g));
      s[i][g] = acc;
    }
  // Part j of every chunk is summed along the ring from place j: acc = received + own.
  e.result.assign(e.elements, 0.0f);
  for (uint32_t c = 0; c < tiles; ++c)
    for (uint32_t j = 0; j < ipus; ++j)
      for (uint64_t k = uint64_t(j) * chunk / ipus; k < uint64_t(j + 1) * chunk / ipus; ++k) {
        const size_t g = size_t(c) * chunk + k;
        float acc = s[ring_order(j, ipus)][g];
        for (uint32_t step = 1; step < ipus; ++step) acc = acc + s[ring_order((j + step) % ipus, ipus)][g];
        e.result[g] = acc;
      }
  uint32_t all = KIN_HASH_INIT;
  for (uint32_t c = 0; c < tiles; ++c) {
    uint32_t h = KIN_HASH_INIT;
    for (uint32_t k = 0; k < chunk; ++k) h = kin_hash_word(h, bits_of(e.result[size_t(c) * chunk + k]));
    all = kin_hash_word(all, h);
  }
  e.hash = all;
  return e;
}

std::vector<float> pipeline_inputs(uint32_t tiles, uint32_t micro_batches) {
  const uint32_t dim = pipe_rows(tiles) * tiles;
  std::vector<float> x(size_t(micro_batches) * PIPE_BATCH * dim);
  for (uint32_t sm = 0; sm < micro_batches * PIPE_BATCH; ++sm)
    for (uint32_t k = 0; k < dim; ++k) x[size_t(sm) * dim + k] = kin_f32(kin_word(KIN_SEED_PIPE_X, sm, k));
  return x;
}

namespace {
// One layer over every sample: y[i] = ((0 + w_i0 a_0) + w_i1 a_1) + ... + b_i, relu on layer 1.
std::vector<float> pipeline_layer(const std::vector<float>& in, uint32_t dim, uint32_t seed_w, uint32_t seed_b,
                                  bool relu) {
  std::vector<float> w(size_t(dim) * dim), b(dim), out(in.size());
  for (uint32_t i = 0; i < dim; ++i) {
    for (uint32_t k = 0; k < dim; ++k) w[size_t(i) * dim + k] = kin_f32(kin_word(seed_w, i, k));
    b[i] = kin_f32(kin_word(seed_b, 0, i));
  }
  for (size_t sm = 0; sm < in.size() / dim; ++sm)
    for (uint32_t i = 0; i < dim; ++i) {
      float acc = 0.0f;
      for (uint32_t k = 0; k < dim; ++k) acc = acc + w[size_t(i) * dim + k] * in[sm * dim + k];
      float y = acc + b[i];
      if (relu && !(y > 0.0f)) y = 0.0f;
      out[sm * dim + i] = y;
    }
  return out;
}

// pipeline.c's hash: each tile's rows in [micro-batch][sample][row] order, then the tiles'.
uint32_t pipeline_hash(const std::vector<float>& y, uint32_t tiles, uint32_t rows) {
  const uint32_t dim = rows * tiles;
  uint32_t all = KIN_HASH_INIT;
  for (uint32_t t = 0; t < tiles; ++t) {
    uint32_t h = KIN_HASH_INIT;
    for (size_t sm = 0; sm < y.size() / dim; ++sm)
      for (uint32_t r = 0; r < rows; ++r) h = kin_hash_word(h, bits_of(y[sm * dim + t * rows + r]));
    all = kin_hash_word(all, h);
  }
  return all;
}
}  // namespace

PipelineExpect pipeline(uint32_t tiles, uint32_t micro_batches, std::vector<float> x) {
  PipelineExpect e;
  e.rows = pipe_rows(tiles);
  e.dim = e.rows * tiles;
  e.micro_batches = micro_batches;
  if (x.empty()) x = pipeline_inputs(tiles, micro_batches);
  if (x.size() != size_t(micro_batches) * PIPE_BATCH * e.dim)
    throw std::invalid_argument("kref::pipeline: x holds " + std::to_string(x.size()) + " floats, not micro-batches x " +
                                std::to_string(PIPE_BATCH) + " x " + std::to_string(e.dim));
  e.y1 = pipeline_layer(x, e.dim, KIN_SEED_PIPE_W1, KIN_SEED_PIPE_B1, true);
  e.y2 = pipeline_layer(e.y1, e.dim, KIN_SEED_PIPE_W2, KIN_SEED_PIPE_B2, false);
  e.hash_y1 = pipeline_hash(e.y1, tiles, e.rows);
  e.hash_y2 = pipeline_hash(e.y2, tiles, e.rows);
  return e;
}

JacobiExpect jacobi(uint32_t tiles, uint32_t nx, uint32_t rows_per_tile, uint32_t iterations) {
  const uint32_t g = rows_per_tile * tiles, all_rows = g + 2;
  std::vector<float> u(size_t(all_rows) * nx), v;
  for (uint32_t r = 0; r < all_rows; ++r)
    for (uint32_t c = 0; c < nx; ++c) u[size_t(r) * nx + c] = kin_f32(kin_word(KIN_SEED_JACOBI, r, c));
  v = u;  // the boundary is the same in both buffers
  for (uint32_t it = 0; it < iterations; ++it) {
    for (uint32_t r = 1; r <= g; ++r)
      for (uint32_t c = 1; c + 1 < nx; ++c) {
        const float* s = &u[size_t(r) * nx + c];
        const float vertical = s[-ptrdiff_t(nx)] + s[nx];
        const float horizontal = s[-1] + s[1];
        v[size_t(r) * nx + c] = 0.25f * (vertical + horizontal);
      }
    std::swap(u, v);
  }
  JacobiExpect e;
  e.grid_rows = all_rows;
  uint32_t hash = KIN_HASH_INIT;
  float sum = 0.0f;
  for (uint32_t t = 0; t < tiles; ++t) {
    uint32_t th = KIN_HASH_INIT;
    float ts = 0.0f;
    for (uint32_t r = t * rows_per_tile + 1; r <= t * rows_per_tile + rows_per_tile; ++r)
      for (uint32_t c = 0; c < nx; ++c) {
        const float x = u[size_t(r) * nx + c];
        th = kin_hash_word(th, bits_of(x));
        ts = ts + x;
      }
    hash = kin_hash_word(hash, th);
    sum = sum + ts;
  }
  e.hash = hash;
  e.sum_bits = bits_of(sum);
  return e;
}

GemmExpect gemm(uint32_t tiles, uint32_t amp_rows, uint32_t nt, uint32_t ks) {
  GemmExpect e;
  e.grid_p = grid_rows(tiles);
  e.grid_q = tiles / e.grid_p;
  const uint32_t mt = 6 * amp_rows;
  e.m = uint64_t(e.grid_p) * mt;
  e.n = uint64_t(e.grid_q) * nt;
  e.k = 4ull * ks;
  const size_t m = e.m, n = e.n, k = e.k;
  std::vector<float> b(k * n), c(m * n, 0.0f);
  for (size_t kk = 0; kk < k; ++kk)
    for (size_t j = 0; j < n; ++j)
      b[kk * n + j] = half_to_float(kin_f16(kin_word(KIN_SEED_GEMM_B, uint32_t(kk), uint32_t(j))));
  // C[i][j] = sum over kk in order of A[i][kk] * B[kk][j]: the AMP's order (each product
  // exact in f32, one rounding per addition, accumulators carried across amp.mac).
  for (size_t i = 0; i < m; ++i) {
    float* row = &c[i * n];
    for (size_t kk = 0; kk < k; ++kk) {
      const float a = half_to_float(kin_f16(kin_word(KIN_SEED_GEMM_A, uint32_t(i), uint32_t(kk))));
      const float* brow = &b[kk * n];
      for (size_t j = 0; j < n; ++j) row[j] = row[j] + a * brow[j];
    }
  }
  uint32_t hash = KIN_HASH_INIT;
  for (uint32_t p = 0; p < e.grid_p; ++p)
    for (uint32_t q = 0; q < e.grid_q; ++q) {
      uint32_t th = KIN_HASH_INIT;
      for (uint32_t w = 0; w < 6; ++w) {  // a hash per worker, then of the six
        uint32_t wh = KIN_HASH_INIT;
        for (uint32_t j = 0; j < nt; ++j)
          for (uint32_t i = 0; i < amp_rows; ++i)
            wh = kin_hash_word(wh, bits_of(c[(size_t(p) * mt + w * amp_rows + i) * n + size_t(q) * nt + j]));
        th = kin_hash_word(th, wh);
      }
      hash = kin_hash_word(hash, th);
    }
  e.hash = hash;
  return e;
}

std::vector<std::string> lines_of(const std::string& console, const std::string& name) {
  std::vector<std::string> out;
  std::istringstream in(console);
  const std::string tag = name + ": ";
  for (std::string line; std::getline(in, line);) {
    const size_t at = line.find(tag);
    if (at != std::string::npos) out.push_back(line.substr(at + tag.size()));
  }
  return out;
}

std::map<std::string, std::string> pairs(const std::string& line) {
  std::istringstream in(line);
  std::vector<std::string> words;
  for (std::string w; in >> w;) words.push_back(w);
  std::map<std::string, std::string> out;
  for (size_t i = words.size() % 2; i + 1 < words.size(); i += 2) out.emplace(words[i], words[i + 1]);
  return out;
}

std::optional<std::map<std::string, std::string>> find_line(const std::string& console,
                                                            const std::string& name,
                                                            const std::string& first_key,
                                                            const std::string& first_value) {
  for (const std::string& line : lines_of(console, name)) {
    std::istringstream in(line);
    std::string key, value;
    in >> key >> value;
    if (key == first_key && (first_value.empty() || value == first_value)) return pairs(line);
  }
  return std::nullopt;
}

uint64_t to_u64(const std::string& text) {
  size_t used = 0;
  const bool hex = text.rfind("0x", 0) == 0;
  const uint64_t v = std::stoull(hex ? text.substr(2) : text, &used, hex ? 16 : 10);
  if (used != text.size() - (hex ? 2 : 0)) throw std::invalid_argument("not a number: " + text);
  return v;
}

double wide_bytes_per_slot(uint32_t load_path, uint32_t store_path, uint32_t load, uint32_t store) {
  const uint32_t slots = std::max({1u, (load + load_path - 1) / load_path, (store + store_path - 1) / store_path});
  return double(load + store) / slots;
}

double to_double(const std::string& text) {
  size_t used = 0;
  const double v = std::stod(text, &used);
  if (used != text.size()) throw std::invalid_argument("not a number: " + text);
  return v;
}

}  // namespace kref
