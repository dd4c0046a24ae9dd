// `multi_ipu_demo pipeline`: the two-layer pipeline (pipeline.elf) with the host's own
// inputs: the micro-batch count into `pipeline_params` on every tile, each IPU-0 tile's
// slices of x into its `pipeline_x`; after the run both layers' outputs from
// `pipeline_y` (y1 on IPU 0's tiles, y2 on IPU 1's), checked bit for bit against the
// host reference (kref::pipeline) on the same x, and the step cycles of tile 0 of both
// IPUs from `pipeline_steps` as a table.
#include <chrono>
#include <cstdio>
#include <cstring>
#include <vector>

#include "commands.h"
#include "kernels_ref.h"

extern "C" {
#include "kinputs.h"
#include "pipeline.h"
}

namespace demo {
namespace {

struct KcResult {  // firmware/kernels/kcommon.h
  uint32_t magic, hash, value[6];
};

// The host's inputs, [micro-batch][sample][feature]: the kernel's value rule on the
// host's seed, so they differ from the kernel's own (KIN_SEED_PIPE_X) unless asked to.
std::vector<float> host_inputs(uint32_t seed, uint32_t micro_batches, uint32_t dim) {
  std::vector<float> x(size_t(micro_batches) * PIPE_BATCH * dim);
  for (uint32_t sm = 0; sm < micro_batches * PIPE_BATCH; ++sm)
    for (uint32_t k = 0; k < dim; ++k) x[size_t(sm) * dim + k] = kin_f32(kin_word(seed, sm, k));
  return x;
}

}  // namespace

int run_pipeline(const Options& o) {
  if (o.micro_batches < 1 || o.micro_batches > PIPE_MAX_MICRO_BATCHES)
    throw BadInput("--micro-batches " + std::to_string(o.micro_batches) + ": must be 1 .. " +
                   std::to_string(PIPE_MAX_MICRO_BATCHES));
  const std::string elf = o.elf.empty() ? IPUSIM_FIRMWARE_DIR "/pipeline.elf" : o.elf;
  auto dev = open_and_load(o, elf, 2, {"pipeline_params", "pipeline_x", "pipeline_y", "pipeline_steps", "kc_result"});
  const ipudrv::DeviceInfo& info = dev->info();
  const uint32_t tiles = info.tiles_per_ipu, rows = pipe_rows(tiles), dim = rows * tiles, n = o.micro_batches;

  // Inputs, by symbol: the parameters on every tile of every IPU (the idle IPUs count the
  // steps too), x on IPU 0's tiles, each its rows.
  const pipeline_params params{n, PIPE_HOST_INPUTS};
  for (uint32_t i = 0; i < info.ipus; ++i)
    dev->write_tiles({i, 0, tiles}, dev->symbol_address(i, 0, "pipeline_params"),
                     std::as_bytes(std::span(&params, 1)));
  const std::vector<float> x = host_inputs(o.seed, n, dim);
  std::vector<float> slice(size_t(n) * PIPE_BATCH * rows);
  for (uint32_t t = 0; t < tiles; ++t) {
    for (uint32_t sm = 0; sm < n * PIPE_BATCH; ++sm)
      for (uint32_t r = 0; r < rows; ++r) slice[size_t(sm) * rows + r] = x[size_t(sm) * dim + t * rows + r];
    dev->write_symbol(0, t, "pipeline_x", std::as_bytes(std::span(slice)));
  }

  const auto t0 = std::chrono::steady_clock::now();
  const ipudrv::RunResult run = run_to_halt(*dev, "pipeline");
  const double host_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  // Outputs, by symbol: each layer's from its IPU's tiles, [micro-batch][sample][feature].
  auto outputs = [&](uint32_t ipu) {
    std::vector<float> y(x.size());
    for (uint32_t t = 0; t < tiles; ++t) {
      dev->read_symbol(ipu, t, "pipeline_y", std::as_writable_bytes(std::span(slice)));
      for (uint32_t sm = 0; sm < n * PIPE_BATCH; ++sm)
        for (uint32_t r = 0; r < rows; ++r) y[size_t(sm) * dim + t * rows + r] = slice[size_t(sm) * rows + r];
    }
    return y;
  };
  const std::vector<float> y1 = outputs(0), y2 = outputs(1);
  const kref::PipelineExpect want = kref::pipeline(tiles, n, x);
  size_t wrong = 0;
  for (size_t i = 0; i < x.size(); ++i)
    wrong += (std::memcmp(&y1[i], &want.y1[i], 4) != 0) + (std::memcmp(&y2[i], &want.y2[i], 4) != 0);
  const KcResult k0 = read_struct<KcResult>(*dev, 0, 0, "kc_result");
  const KcResult k1 = read_struct<KcResult>(*dev, 1, 0, "kc_result");
  const bool hashes_ok = k0.hash == want.hash_y1 && k1.hash == want.hash_y2;

  pipeline_step steps[2][PIPE_MAX_MICRO_BATCHES + 1];
  for (uint32_t i = 0; i < 2; ++i) dev->read_symbol(i, 0, "pipeline_steps", std::as_writable_bytes(std::span(steps[i])));
  std::printf("pipeline: %s: layer 1 on IPU 0, layer 2 on IPU 1 (of %u), %u tiles each; D = %u (rows per tile: %u), "
              "%u micro-batches of %u samples; host inputs (seed %u)\n",
              info.locator.c_str(), info.ipus, tiles, dim, rows, n, PIPE_BATCH, o.seed);
  std::printf("%5s | %10s %10s %10s %10s | %10s %10s %10s %10s | %10s\n", "step", "0 gather", "0 compute", "0 sync",
              "0 link", "1 gather", "1 compute", "1 sync", "1 link", "link bytes");
  for (uint32_t s = 0; s <= n; ++s)
    std::printf("%5u | %10u %10u %10u %10u | %10u %10u %10u %10u | %10u\n", s, steps[0][s].gather,
                steps[0][s].compute, steps[0][s].sync, steps[0][s].link, steps[1][s].gather, steps[1][s].compute,
                steps[1][s].sync, steps[1][s].link, s < n ? dim * PIPE_BATCH * 4 : 0);
  std::printf("pipeline: checked %zu outputs of each layer against the host reference: %s; hashes IPU 0 %s IPU 1 "
              "%s (%s)\n",
              x.size(), wrong == 0 ? "all bit-exact" : "MISMATCH", hex(k0.hash).c_str(), hex(k1.hash).c_str(),
              hashes_ok ? "as the reference" : "MISMATCH");
  std::printf("pipeline: run %llu cycles (pipeline %u on IPU 1), %u supersteps, %.2f s host\n",
              (unsigned long long)run.stats.cycles, k1.value[3], run.stats.supersteps, host_s);
  return wrong == 0 && hashes_ok ? kOk : kMismatch;
}

}  // namespace demo
