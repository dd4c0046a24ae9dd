// The README's GEMM demo, shared by gemm_demo (any locator; the model in this process by
// default) and gemm_demo_served (the same through its own `ipusim serve`): on IPU 0 of a
// board, gemm_host.elf (firmware/kernels/gemm_host.c) multiplies weights A held in
// streaming memory by activations B fed through host stream 0; C comes back from
// streaming memory and is checked bit for bit against a host reference. The data layouts
// are the contract at the top of gemm_host.c.
#include "gemm_demo_run.h"

#include <ipudrv/device.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

extern "C" {
#include "kinputs.h"  // the kernels' deterministic inputs (firmware/kernels)
}

namespace {

constexpr uint32_t kWorkers = 6, kKs = 24, kK = 4 * kKs, kNt = 64, kCb = 8;

struct Shape {
  uint32_t tiles, r, gp, gq, m, n;
};

uint32_t grid_rows(uint32_t n) {
  uint32_t best = 1;
  for (uint32_t p = 1; p * p <= n; ++p)
    if (n % p == 0) best = p;
  return best;
}

// IEEE binary16 -> binary32, exactly (every f16 is an f32).
float f16_to_f32(uint16_t h) {
  const uint32_t sign = uint32_t(h >> 15) << 31, exp = (h >> 10) & 0x1F, man = h & 0x3FF;
  uint32_t bits;
  if (exp == 0x1F) {
    bits = sign | 0x7F800000u | (man << 13);
  } else if (exp != 0) {
    bits = sign | ((exp + 112) << 23) | (man << 13);
  } else if (man == 0) {
    bits = sign;
  } else {  // subnormal: normalise
    int e = -1;
    uint32_t m = man;
    do {
      ++e;
      m <<= 1;
    } while (!(m & 0x400));
    bits = sign | uint32_t(112 - e) << 23 | ((m & 0x3FF) << 13);
  }
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

uint16_t a_value(uint32_t row, uint32_t k) { return kin_f16(kin_word(KIN_SEED_GEMM_A, row, k)); }
uint16_t b_value(uint32_t k, uint32_t col) { return kin_f16(kin_word(KIN_SEED_GEMM_B, k, col)); }

// A in streaming memory: grid row p, worker w, weight block s: R x 4 f16, row-major.
std::vector<uint16_t> pack_a(const Shape& s) {
  std::vector<uint16_t> out;
  out.reserve(size_t(s.m) * kK);
  for (uint32_t p = 0; p < s.gp; ++p)
    for (uint32_t w = 0; w < kWorkers; ++w)
      for (uint32_t b = 0; b < kKs; ++b)
        for (uint32_t i = 0; i < s.r; ++i)
          for (uint32_t j = 0; j < 4; ++j) out.push_back(a_value(p * kWorkers * s.r + w * s.r + i, 4 * b + j));
  return out;
}

// Stream 0: for every tile in order, B_q packed [column block][k-step][column][4].
std::vector<uint16_t> pack_b_stream(const Shape& s) {
  std::vector<uint16_t> bq(size_t(kNt) * kK), out;
  out.reserve(size_t(s.tiles) * bq.size());
  for (uint32_t t = 0; t < s.tiles; ++t) {
    const uint32_t q = t % s.gq;
    for (uint32_t n = 0; n < kNt; ++n)
      for (uint32_t k = 0; k < kK; ++k)
        bq[size_t(n / kCb) * (kK * kCb) + size_t(k / 4) * (4 * kCb) + (n % kCb) * 4 + k % 4] =
            b_value(k, q * kNt + n);
    out.insert(out.end(), bq.begin(), bq.end());
  }
  return out;
}

// C = A x B as the AMP computes it: exact f16 products summed in k order, each addition
// rounded to nearest even in f32. Rows split over host threads.
std::vector<float> reference(const Shape& s, unsigned threads) {
  std::vector<float> a(size_t(s.m) * kK), bt(size_t(s.n) * kK), c(size_t(s.m) * s.n);
  for (uint32_t r = 0; r < s.m; ++r)
    for (uint32_t k = 0; k < kK; ++k) a[size_t(r) * kK + k] = f16_to_f32(a_value(r, k));
  for (uint32_t n = 0; n < s.n; ++n)
    for (uint32_t k = 0; k < kK; ++k) bt[size_t(n) * kK + k] = f16_to_f32(b_value(k, n));
  auto rows = [&](uint32_t first, uint32_t step) {
    for (uint32_t r = first; r < s.m; r += step)
      for (uint32_t n = 0; n < s.n; ++n) {
        volatile float acc = 0.0f;  // one rounding per addition, whatever the compiler
        for (uint32_t k = 0; k < kK; ++k) acc = acc + a[size_t(r) * kK + k] * bt[size_t(n) * kK + k];
        c[size_t(r) * s.n + n] = acc;
      }
  };
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < threads; ++t) pool.emplace_back(rows, t, threads);
  rows(0, threads);
  for (auto& t : pool) t.join();
  return c;
}

std::span<const std::byte> bytes_of(const auto& v) { return std::as_bytes(std::span(v)); }

}  // namespace

int run_gemm_demo(const std::string& locator, const std::string& elf_path, unsigned threads) {
  std::setvbuf(stdout, nullptr, _IOLBF, 0);  // lines in order with the firmware's console
  try {
    const auto setup0 = std::chrono::steady_clock::now();
    auto dev = ipudrv::open(locator);
    const ipudrv::DeviceInfo& info = dev->info();
    Shape s{};
    s.tiles = info.tiles_per_ipu;
    s.r = info.amp_f16_macs / 4;
    s.gp = grid_rows(s.tiles);
    s.gq = s.tiles / s.gp;
    s.m = s.gp * kWorkers * s.r;
    s.n = s.gq * kNt;
    if (s.r == 0 || info.smem_bytes == 0) {
      std::fprintf(stderr, "%s: the board needs an f16 AMP and streaming memory\n", locator.c_str());
      return 1;
    }
    std::printf("gemm_demo: %s, IPU 0: %u tiles, C[%u x %u] = A[%u x %u] x B[%u x %u] (f16 in, f32 out)\n",
                info.locator.c_str(), s.tiles, s.m, s.n, s.m, kK, kK, s.n);

    const auto elf = ipudrv::Elf::from_file(elf_path);
    dev->load({{ipudrv::TileRange{0, 0, s.tiles}, elf}});

    const std::vector<uint16_t> a = pack_a(s), b = pack_b_stream(s);
    const uint64_t c_tile_bytes = uint64_t(kWorkers) * kNt * s.r * 4;
    const auto a_buf = dev->alloc_smem(a.size() * 2), c_buf = dev->alloc_smem(c_tile_bytes * s.tiles);
    dev->write_smem(a_buf.offset, bytes_of(a));
    // Every tile's parameters in one call: a replicated tensor (one broadcast descriptor).
    const uint64_t params[2] = {a_buf.offset, c_buf.offset};
    dev->write_tensor({{2}, ipudrv::DType::kU64, ipudrv::Mapping::replicated(ipudrv::tile_range(0, 0, s.tiles)),
                       ipudrv::Location::symbol("gemm_host_params")},
                      std::span<const uint64_t>(params));
    dev->connect_h2d_stream(0, bytes_of(b));

    const auto t0 = std::chrono::steady_clock::now();
    const double setup_s = std::chrono::duration<double>(t0 - setup0).count();
    const ipudrv::RunResult run = dev->run();
    const double host_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (run.exit_code != 0) {
      std::fprintf(stderr, "gemm_demo: the firmware exited with %d\n", run.exit_code);
      return 1;
    }

    // C as the tiles left it in streaming memory, tile after tile, in one read.
    std::vector<float> c(size_t(s.m) * s.n), all_c(c_tile_bytes / 4 * s.tiles);
    dev->read_smem(c_buf.offset, std::as_writable_bytes(std::span(all_c)));
    for (uint32_t t = 0; t < s.tiles; ++t) {
      const std::span<const float> tile_c = std::span(all_c).subspan(size_t(t) * (c_tile_bytes / 4), c_tile_bytes / 4);
      const uint32_t p = t / s.gq, q = t % s.gq;
      for (uint32_t w = 0; w < kWorkers; ++w)
        for (uint32_t n = 0; n < kNt; ++n)
          for (uint32_t i = 0; i < s.r; ++i)
            c[size_t(p * kWorkers * s.r + w * s.r + i) * s.n + q * kNt + n] = tile_c[(size_t(w) * kNt + n) * s.r + i];
    }
    const double read_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() - host_s;
    uint32_t result[8];
    dev->read_symbol(0, 0, "kc_result", std::as_writable_bytes(std::span(result)));

    const std::vector<float> want = reference(s, threads);
    size_t wrong = 0, first_wrong = 0;
    for (size_t i = 0; i < want.size(); ++i)
      if (std::memcmp(&want[i], &c[i], 4) != 0 && wrong++ == 0) first_wrong = i;
    const double clock_hz = info.tile_clock_khz * 1e3;
    const double product_s = result[4] / clock_hz, flops = 2.0 * s.m * s.n * kK;
    std::printf("gemm_demo: checked %zu results against the host reference: %s\n", want.size(),
                wrong == 0 ? "all bit-exact" : "MISMATCH");
    std::printf("gemm_demo: product %u cycles = %.2f us modelled, %.1f TFLOPS (%.1f%% of the AMP peak)\n",
                result[4], product_s * 1e6, flops / product_s / 1e12, result[5] / 100.0);
    std::printf("gemm_demo: whole run %.3f ms modelled (%u supersteps, inputs through the gateway), "
                "%.2f s host, %.0f MIPS\n",
                run.stats.sim_time_ns / 1e6, run.stats.supersteps, host_s,
                run.stats.instructions / host_s / 1e6);
    std::printf("gemm_demo: host seconds: open + load + inputs %.2f, run %.2f, read C %.2f\n", setup_s, host_s,
                read_s);
    if (wrong) {
      std::fprintf(stderr, "gemm_demo: %zu of %zu results differ; first at C[%zu][%zu]\n", wrong, want.size(),
                   first_wrong / s.n, first_wrong % s.n);
      return 1;
    }
  } catch (const ipudrv::Error& e) {
    std::fprintf(stderr, "gemm_demo: %s\n", e.what());
    return 1;
  }
  return 0;
}
