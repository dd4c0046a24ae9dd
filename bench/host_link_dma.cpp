// host_link_dma: the modelled bandwidth of the host link's DMA against the config, and
// how fast the host simulates it.
//
//   host_link_dma [--config configs/m2000.yaml] [--mib 64] [--descriptor-kib 512]
//
// Opens the system in-process (host_if::ModelSession), maps a host buffer and moves --mib
// MiB through one DMA channel in --descriptor-kib descriptors, for each case: a
// broadcast to every tile of IPU 0 (host to device; the link carries the bytes once), one
// tile at a time (host to device), one tile at a time back (device to host), and
// streaming memory both ways (consecutive descriptors from 255 GiB on an M2000, or the
// memory's top). Prints one JSON line per case: the modelled GB/s (bytes over the
// simulated time, SIM_TIME_NS), the config's host_link GB/s (and streaming_memory GB/s),
// the rate expected (the link's; for streaming memory the slower of the two) and the
// ratio modelled / expected (must be within 5 %: exit 1 otherwise), and the host's GB/s
// of simulated transfer per wall-clock second (link bytes, and the tile SRAM bytes they
// became: a broadcast writes every tile).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "host_if/model_session.h"
#include "ipu/hostif_regs.h"
#include "iss/tile_core.h"
#include "config/config_loader.h"

namespace {

using namespace ipusim;

constexpr uint64_t kBus = 0x10'0000'0000ull;
constexpr uint32_t kRing = 4096;

struct Host {
  host_if::DeviceLink& dev;
  std::vector<std::byte> mem;
  uint32_t tail[2] = {0, 0};

  Host(host_if::DeviceLink& d, size_t data) : dev(d), mem(2 * kRing * sizeof(ipu_dma_desc) + data) {
    dev.map_host_memory(kBus, mem);
    for (uint32_t ch = 0; ch < 2; ++ch) {
      const uint64_t ring = kBus + ch * kRing * sizeof(ipu_dma_desc);
      const uint32_t base = ch == 0 ? IPU_REG_DMA0_RING_LO : IPU_REG_DMA1_RING_LO;
      dev.write32(base, uint32_t(ring));
      dev.write32(base + 4, uint32_t(ring >> 32));
      dev.write32(base + 8, kRing);
    }
  }
  ~Host() { dev.unmap_host_memory(kBus); }
  uint64_t data_bus() const { return kBus + 2 * kRing * sizeof(ipu_dma_desc); }
  std::byte* data() { return mem.data() + 2 * kRing * sizeof(ipu_dma_desc); }
  ipu_dma_desc* ring(uint32_t ch) { return reinterpret_cast<ipu_dma_desc*>(mem.data()) + ch * kRing; }
  uint64_t sim_ns() {
    const uint32_t lo = dev.read32(IPU_REG_SIM_TIME_NS_LO);
    return uint64_t(dev.read32(IPU_REG_SIM_TIME_NS_HI)) << 32 | lo;
  }
  // Posts every descriptor, rings the doorbell once, waits for the last to retire.
  bool run(uint32_t ch, const std::vector<ipu_dma_desc>& descs) {
    for (const ipu_dma_desc& d : descs) ring(ch)[tail[ch]++ % kRing] = d;
    dev.write32(ch == 0 ? IPU_REG_DMA0_TAIL : IPU_REG_DMA1_TAIL, tail[ch]);
    const uint32_t head = ch == 0 ? IPU_REG_DMA0_HEAD : IPU_REG_DMA1_HEAD;
    while (dev.read32(head) != tail[ch]) std::this_thread::sleep_for(std::chrono::microseconds(50));
    for (uint32_t i = tail[ch] - uint32_t(descs.size()); i != tail[ch]; ++i)
      if (ring(ch)[i % kRing].status != IPU_DESC_STATUS_OK) return false;
    return true;
  }
};

}  // namespace

int main(int argc, char** argv) {
  CLI::App app("host_link_dma: modelled host-link DMA bandwidth vs the config");
  std::string config_path = "configs/m2000.yaml";
  uint32_t mib = 64, desc_kib = 512;
  app.add_option("--config", config_path, "system config");
  app.add_option("--mib", mib, "MiB moved per case")->check(CLI::Range(1, 4096));
  app.add_option("--descriptor-kib", desc_kib, "KiB per descriptor")->check(CLI::Range(1, 1 << 20));
  CLI11_PARSE(app, argc, argv);

  const config::SystemConfig config = config::load_system(config_path);
  host_if::ModelOptions options;
  options.console = nullptr;
  auto sys = host_if::ModelSession::open(config, options);
  const uint32_t desc_bytes = desc_kib * 1024;
  if (desc_bytes > config.board.chip.tile.sram_bytes) {
    std::fprintf(stderr, "host_link_dma: --descriptor-kib %u exceeds a tile's SRAM\n", desc_kib);
    return 2;
  }
  const uint32_t count = uint32_t((uint64_t(mib) << 20) / desc_bytes);
  Host host(sys->link(0), desc_bytes);
  for (uint32_t i = 0; i < desc_bytes; ++i) host.data()[i] = std::byte(i * 13 + 1);
  const double config_gbps = config.board.host_link_bytes_per_second / 1e9;
  const uint32_t tiles = config.board.chip.tiles;

  const double smem_gbps = config.board.streaming_memory_bytes_per_second / 1e9;
  const uint64_t smem_bytes = config.board.streaming_memory_bytes;
  const uint64_t span = uint64_t(count) * desc_bytes;
  // Streaming-memory cases start at 255 GiB (or as high as the memory allows).
  const uint64_t smem_base = smem_bytes >= span + (255ull << 30) ? 255ull << 30 : smem_bytes >= span ? smem_bytes - span : 0;

  struct Case {
    const char* name;
    uint32_t ch;
    bool broadcast;
    bool smem;
  };
  std::vector<Case> cases = {Case{"h2d_broadcast_ipu0", 0, true, false}, Case{"h2d_single_tile", 0, false, false},
                             Case{"d2h_single_tile", 1, false, false}};
  if (smem_bytes >= span) {
    cases.push_back(Case{"h2d_smem", 0, false, true});
    cases.push_back(Case{"d2h_smem", 1, false, true});
  } else {
    std::fprintf(stderr, "host_link_dma: %s has %llu bytes of streaming memory, less than --mib: no smem cases\n",
                 config.name().c_str(), (unsigned long long)smem_bytes);
  }
  int status = 0;
  for (const Case& c : cases) {
    std::vector<ipu_dma_desc> descs(count);
    for (uint32_t i = 0; i < count; ++i) {
      ipu_dma_desc& d = descs[i];
      d = ipu_dma_desc{};
      d.host_addr = host.data_bus();
      d.length = desc_bytes;
      if (c.smem) {
        d.dev_addr = smem_base + uint64_t(i) * desc_bytes;
        d.target = IPU_DMA_TARGET_SMEM;
        continue;
      }
      d.dev_addr = iss::kSramBase;
      d.target = IPU_DMA_TARGET_TILE;
      d.tile_first = c.broadcast ? 0 : i % tiles;
      d.tile_count = c.broadcast ? tiles : 1;
    }
    sys->wait_idle();
    const uint64_t ns0 = host.sim_ns();
    const auto t0 = std::chrono::steady_clock::now();
    const bool ok = host.run(c.ch, descs);
    sys->wait_idle();  // the statistics registers follow the kernel's last step
    const double host_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const uint64_t ns = host.sim_ns() - ns0;
    const double bytes = double(count) * desc_bytes;
    const double gbps = ns ? bytes / double(ns) : 0;  // bytes per ns = GB/s
    const double expect_gbps = c.smem ? std::min(config_gbps, smem_gbps) : config_gbps;
    const double ratio = gbps / expect_gbps;
    nlohmann::json j;
    j["bench"] = "host_link_dma";
    j["case"] = c.name;
    j["config"] = config.name();
    j["descriptors"] = count;
    j["descriptor_bytes"] = desc_bytes;
    j["link_bytes"] = uint64_t(bytes);
    j["tile_bytes"] = c.smem ? 0 : uint64_t(bytes) * (c.broadcast ? tiles : 1);
    j["simulated_ns"] = ns;
    j["modelled_gbytes_per_s"] = gbps;
    j["config_gbytes_per_s"] = config_gbps;
    if (c.smem) {
      j["config_smem_gbytes_per_s"] = smem_gbps;
      j["smem_offset"] = smem_base;
    }
    j["expected_gbytes_per_s"] = expect_gbps;
    j["ratio"] = ratio;
    j["host_seconds"] = host_s;
    j["host_gbytes_per_s"] = bytes / host_s / 1e9;  // link bytes simulated per host second
    if (!c.smem) j["host_tile_gbytes_per_s"] = bytes * (c.broadcast ? tiles : 1) / host_s / 1e9;  // SRAM bytes written / read
    j["ok"] = ok && std::fabs(ratio - 1) <= 0.05;
    std::printf("%s\n", j.dump().c_str());
    std::fflush(stdout);
    if (!j["ok"].get<bool>()) status = 1;
  }
  return status;
}
