// `multi_ipu_demo allreduce`: ipu_allreduce.elf on every tile of every IPU of the device
// (the kernel's inputs are its own seeded ones) with the host's chunk (--chunk, 0: the
// kernel's default) written into `ipu_allreduce_params` on every tile, then every tile's
// chunk of the sum read back through the pointer the kernel leaves in
// `ipu_allreduce_result`, and checked bit for bit against the host reference
// (kref::ipu_allreduce of that chunk), as is each IPU's hash. A chunk that does not fit
// the SRAM is still run, because the kernel is the one to refuse it: bad input (exit 2)
// if it did, a mismatch if it did not.
#include <chrono>
#include <cstdio>
#include <cstring>
#include <vector>

#include "commands.h"
#include "kernels_ref.h"

extern "C" {
#include "ipu_allreduce.h"
}

namespace demo {
namespace {

struct KcResult {  // firmware/kernels/kcommon.h
  uint32_t magic, hash, value[6];
};
constexpr uint32_t kKcResultMagic = 0x4B524553u;

// The kernel must refuse a chunk that does not fit (its tile 0 says why on the console).
int refuse_chunk(ipudrv::Device& dev, uint32_t chunk, uint32_t tiles, uint64_t sram_bytes) {
  const ipudrv::RunResult r = dev.run();
  const std::string why = "--chunk " + std::to_string(chunk) + " is too large for " + std::to_string(tiles) +
                          " tiles of " + std::to_string(sram_bytes) + " bytes (8 x chunk x tiles + 128 KiB)";
  if (r.state == ipudrv::RunState::kHalted && r.exit_code != 0)
    throw BadInput(why + ": the kernel refused it (exit " + std::to_string(r.exit_code) + ")");
  std::printf("ipu_allreduce: MISMATCH: %s, yet the kernel did not refuse it\n", why.c_str());
  return kMismatch;
}

}  // namespace

int run_allreduce(const Options& o) {
  const std::string elf = o.elf.empty() ? IPUSIM_FIRMWARE_DIR "/ipu_allreduce.elf" : o.elf;
  auto dev = open_and_load(o, elf, 1, {"kc_result", "ipu_allreduce_result", "ipu_allreduce_params"});
  const ipudrv::DeviceInfo& info = dev->info();
  const uint32_t ipus = info.ipus, tiles = info.tiles_per_ipu;
  const kref::IpuAllreduceExpect want = kref::ipu_allreduce(tiles, info.sram_bytes, ipus, o.chunk);
  if (want.chunk == 0 && o.chunk == 0)
    throw BadInput(info.locator + ": " + std::to_string(tiles) + " tiles do not fit the SRAM");

  // Always written, so the run uses the chunk the reference is of, whatever the ELF's value.
  const ipu_allreduce_params params{o.chunk};
  for (uint32_t i = 0; i < ipus; ++i)
    dev->write_tiles({i, 0, tiles}, dev->symbol_address(i, 0, "ipu_allreduce_params"),
                     std::as_bytes(std::span(&params, 1)));
  if (want.chunk == 0) return refuse_chunk(*dev, o.chunk, tiles, info.sram_bytes);

  const auto t0 = std::chrono::steady_clock::now();
  const ipudrv::RunResult run = run_to_halt(*dev, "ipu_allreduce");
  const double host_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  std::printf("ipu_allreduce: %s: %u IPUs x %u tiles, %llu floats per IPU (chunk %u), summed over %u tiles\n",
              info.locator.c_str(), ipus, tiles, (unsigned long long)want.elements, want.chunk, ipus * tiles);
  std::printf("%5s %12s %12s %12s %10s %10s\n", "IPU", "hash", "reference", "ring cycles", "elements", "bad chunks");
  size_t wrong_total = 0;
  std::vector<float> chunk(want.chunk);
  for (uint32_t i = 0; i < ipus; ++i) {
    const KcResult k = read_struct<KcResult>(*dev, i, 0, "kc_result");
    size_t wrong = k.magic == kKcResultMagic && k.hash == want.hash && k.value[2] == ipus ? 0 : 1;
    for (uint32_t t = 0; t < tiles; ++t) {
      const uint32_t at = read_struct<uint32_t>(*dev, i, t, "ipu_allreduce_result");
      dev->read_tile(i, t, at, std::as_writable_bytes(std::span(chunk)));
      wrong += std::memcmp(chunk.data(), &want.result[size_t(t) * want.chunk], chunk.size() * 4) != 0;
    }
    std::printf("%5u %12s %12s %12u %10llu %10zu\n", i, hex(k.hash).c_str(), hex(want.hash).c_str(), k.value[3],
                (unsigned long long)want.elements, wrong);
    wrong_total += wrong;
  }
  std::printf("ipu_allreduce: %s\n", wrong_total == 0 ? "every IPU holds the host reference's sum, bit for bit"
                                                      : "MISMATCH against the host reference");
  std::printf("ipu_allreduce: run %llu cycles, %u supersteps, %llu bytes exchanged, %.2f s host\n",
              (unsigned long long)run.stats.cycles, run.stats.supersteps,
              (unsigned long long)run.stats.exchange_bytes, host_s);
  return wrong_total == 0 ? kOk : kMismatch;
}

}  // namespace demo
