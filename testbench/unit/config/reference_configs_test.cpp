// The reference configs carry the public figures of docs/config.md: tile counts,
// SRAM, clocks, peak FLOPS within 0.5 % of the published numbers, GC2 exchange.
#include <gtest/gtest.h>

#include <cmath>
#include <numeric>
#include <vector>

#include "config/config_loader.h"
#include "links/topology.h"

namespace ipusim::config {
namespace {

constexpr uint64_t KiB = 1024;
constexpr uint64_t GiB = uint64_t(1) << 30;

// |model / published - 1| in percent.
double off_percent(double model, double published) { return 100.0 * std::fabs(model / published - 1.0); }

void expect_common_tile(const ChipConfig& c) {
  EXPECT_EQ(c.tile.workers, 6u);
  // A 128-bit load and a 64-bit store per cycle, with co-issue (docs/config.md).
  EXPECT_EQ(c.tile.load_bytes_per_cycle, 16u);
  EXPECT_EQ(c.tile.store_bytes_per_cycle, 8u);
  EXPECT_TRUE(c.tile.co_issue);
  EXPECT_EQ(c.tile.exchange_in_bytes_per_cycle, 4u);
  EXPECT_EQ(c.tile.exchange_out_bytes_per_cycle, 4u);
  EXPECT_EQ(c.ipu_links.count, 10u);
  EXPECT_DOUBLE_EQ(c.ipu_links.bytes_per_second, 16e9);
  EXPECT_DOUBLE_EQ(c.ipu_links_bytes_per_second_total(), 320e9);
}

TEST(ReferenceConfigs, Gc2) {
  SystemConfig s = load_system("configs/gc2.yaml");
  const ChipConfig& c = s.board.chip;
  EXPECT_EQ(s.kind, "chip");
  EXPECT_EQ(s.name(), "gc2");
  EXPECT_EQ(s.topology(), "single");
  EXPECT_EQ(s.total_ipus(), 1u);
  EXPECT_EQ(c.tiles, 1216u);
  EXPECT_EQ(c.tile.sram_bytes, 256 * KiB);
  EXPECT_EQ(c.sram_bytes_total(), 304 * 1024 * KiB);
  EXPECT_DOUBLE_EQ(c.clock_hz, 1.6e9);
  EXPECT_EQ(c.tile.amp_f16_macs_per_cycle, 32u);
  EXPECT_EQ(c.tile.amp_f32_macs_per_cycle, 8u);
  expect_common_tile(c);
  EXPECT_LT(off_percent(c.peak_f16_flops(), 124.5e12), 0.5);
  EXPECT_LT(off_percent(c.peak_f32_flops(), 31.1e12), 0.5);
  EXPECT_DOUBLE_EQ(c.published_f16_tflops, 124.5);
  // 1216 tiles x 4 B/cycle x 1.6 GHz = 7.78 TB/s.
  EXPECT_NEAR(c.exchange_bytes_per_second(), 7.78e12, 0.005e12);
  EXPECT_DOUBLE_EQ(c.exchange_bytes_per_second(), 1216.0 * 4 * 1.6e9);
}

TEST(ReferenceConfigs, Gc200) {
  SystemConfig s = load_system("configs/gc200.yaml");
  const ChipConfig& c = s.board.chip;
  EXPECT_EQ(s.name(), "gc200");
  EXPECT_EQ(c.tiles, 1472u);
  EXPECT_EQ(c.tile.sram_bytes, 624 * KiB);
  EXPECT_DOUBLE_EQ(c.clock_hz, 1.325e9);
  EXPECT_EQ(c.tile.amp_f16_macs_per_cycle, 64u);
  EXPECT_EQ(c.tile.amp_f32_macs_per_cycle, 16u);
  expect_common_tile(c);
  EXPECT_LT(off_percent(c.peak_f16_flops(), 249.7e12), 0.5);
  EXPECT_LT(off_percent(c.peak_f32_flops(), 62.4e12), 0.5);
  EXPECT_LT(off_percent(c.peak_f16_flops(), c.published_f16_tflops * 1e12), 0.5);
  EXPECT_LT(off_percent(c.peak_f32_flops(), c.published_f32_tflops * 1e12), 0.5);
}

// The external (zone 2) sync of the farthest tile across a POD16 of GC200s is ~150 ns
// (docs/sync.md): sync.latency_max_cycles + the sync group's path over the real pod16
// wiring, gather to the master and release back, at the chip's clock.
TEST(ReferenceConfigs, ExternalSyncIsAbout150ns) {
  const SystemConfig s = load_system("configs/pod16.yaml");
  const links::Topology topology = links::Topology::of(s);
  std::vector<uint32_t> all(s.total_ipus());
  std::iota(all.begin(), all.end(), 0u);
  const links::SyncGroupPath path = links::sync_group_path(topology, all, s.board.chip);
  EXPECT_EQ(path.master, 4u);  // board 1, IPU 0: 2 boards and 1 link from the farthest
  EXPECT_EQ(path.radius, 3u);
  EXPECT_EQ(path.hop_cycles, 20u);  // 15 ns at 1.325 GHz = 19.875
  const double ns = (s.board.chip.sync.latency_max_cycles + path.latency_cycles) / s.board.chip.clock_hz * 1e9;
  EXPECT_NEAR(ns, 150.0, 15.0);  // within 10 %
  EXPECT_NEAR(ns, 150.9, 0.1);
}

TEST(ReferenceConfigs, Bow) {
  SystemConfig s = load_system("configs/bow.yaml");
  const ChipConfig& c = s.board.chip;
  EXPECT_EQ(c.tiles, 1472u);
  EXPECT_EQ(c.tile.sram_bytes, 624 * KiB);
  EXPECT_DOUBLE_EQ(c.clock_hz, 1.85e9);
  EXPECT_EQ(c.tile.amp_f16_macs_per_cycle, 64u);
  expect_common_tile(c);
  EXPECT_LT(off_percent(c.peak_f16_flops(), 350e12), 0.5);
  EXPECT_LT(off_percent(c.peak_f32_flops(), c.published_f32_tflops * 1e12), 0.5);
  // Bow's published 65.4 TB/s of SRAM bandwidth: 24 B/cycle/tile (load + store paths).
  const double memory_bytes_per_s =
      double(c.tiles) * (c.tile.load_bytes_per_cycle + c.tile.store_bytes_per_cycle) * c.clock_hz;
  EXPECT_LT(off_percent(memory_bytes_per_s, 65.4e12), 0.5);
}

TEST(ReferenceConfigs, C2ResolvesItsChip) {
  SystemConfig s = load_system("configs/c2.yaml");
  EXPECT_EQ(s.kind, "board");
  EXPECT_EQ(s.name(), "c2");
  EXPECT_EQ(s.topology(), "pair");
  EXPECT_EQ(s.board.ipus, 2u);
  EXPECT_EQ(s.total_ipus(), 2u);
  EXPECT_EQ(s.board.source, "configs/c2.yaml");
  EXPECT_EQ(s.board.chip.source, "configs/gc2.yaml");
  EXPECT_EQ(s.board.chip, load_system("configs/gc2.yaml").board.chip);
  EXPECT_EQ(s.board.streaming_memory_bytes, 0u);
  EXPECT_DOUBLE_EQ(s.board.host_link_bytes_per_second, 31.5e9);
}

TEST(ReferenceConfigs, M2000AndBow2000) {
  for (auto [file, chip] : {std::pair{"configs/m2000.yaml", "configs/gc200.yaml"},
                            std::pair{"configs/bow2000.yaml", "configs/bow.yaml"}}) {
    SCOPED_TRACE(file);
    SystemConfig s = load_system(file);
    EXPECT_EQ(s.kind, "board");
    EXPECT_EQ(s.topology(), "m2000");
    EXPECT_EQ(s.board.ipus, 4u);
    EXPECT_EQ(s.board.streaming_memory_bytes, 256 * GiB);
    EXPECT_EQ(s.board.chip, load_system(chip).board.chip);
    EXPECT_EQ(s.total_tiles(), 4u * 1472);
  }
}

TEST(ReferenceConfigs, Pod16ResolvesBoardAndChip) {
  SystemConfig s = load_system("configs/pod16.yaml");
  EXPECT_EQ(s.kind, "system");
  EXPECT_EQ(s.name(), "pod16");
  EXPECT_EQ(s.topology(), "ladder");
  EXPECT_EQ(s.boards, 4u);
  EXPECT_EQ(s.total_ipus(), 16u);
  EXPECT_EQ(s.total_tiles(), 16u * 1472);
  EXPECT_EQ(s.board.name, "m2000");
  EXPECT_EQ(s.board.source, "configs/m2000.yaml");
  EXPECT_EQ(s.board.chip.source, "configs/gc200.yaml");
  EXPECT_EQ(s.board, load_system("configs/m2000.yaml").board);
  EXPECT_LT(off_percent(16 * s.board.chip.peak_f16_flops(), 16 * 249.7e12), 0.5);
}

// Each fact is kept once: a chip or board file's name and wiring are its board's (the
// system's own fields stay empty); a system file's are its own, beside its board's.
TEST(ReferenceConfigs, NameAndWiringAreKeptOnce) {
  for (const char* file : {"configs/gc200.yaml", "configs/c2.yaml", "configs/m2000.yaml"}) {
    SCOPED_TRACE(file);
    const SystemConfig s = load_system(file);
    EXPECT_FALSE(s.is_system());
    EXPECT_EQ(s.system_name, "");
    EXPECT_EQ(s.system_topology, "");
    EXPECT_TRUE(s.system_links.empty());
    EXPECT_EQ(&s.name(), &s.board.name);
    EXPECT_EQ(&s.topology(), &s.board.topology);
    EXPECT_EQ(&s.links(), &s.board.links);
  }
  const SystemConfig pod = load_system("configs/pod16.yaml");
  EXPECT_TRUE(pod.is_system());
  EXPECT_EQ(pod.system_name, "pod16");
  EXPECT_EQ(pod.board.name, "m2000");
  EXPECT_EQ(pod.system_topology, "ladder");
  EXPECT_EQ(pod.board.topology, "m2000");
  EXPECT_EQ(&pod.links(), &pod.system_links);
  EXPECT_EQ(pod.board.links.size(), 16u);  // board-local; the system's 76 are derived from it
}

TEST(ReferenceConfigs, TestChips) {
  for (auto [file, tiles] : {std::pair{"configs/test/tiny4.yaml", 4u}, std::pair{"configs/test/tiny16.yaml", 16u},
                             std::pair{"configs/test/tile1.yaml", 1u}}) {
    SCOPED_TRACE(file);
    SystemConfig s = load_system(file);
    EXPECT_EQ(s.board.chip.tiles, tiles);
    EXPECT_EQ(s.board.chip.tile.sram_bytes, 624 * KiB);
    EXPECT_EQ(s.board.chip.tile.workers, 6u);
    EXPECT_GT(s.board.chip.clock_hz, 0);
    EXPECT_LE(s.board.chip.clock_hz, 200e6);
    EXPECT_EQ(s.total_ipus(), 1u);
  }
}

TEST(ReferenceConfigs, DefaultsApplyToOmittedKeys) {
  // tiny4.yaml names only the required keys; everything else is config.h's default.
  const ChipConfig& c = load_system("configs/test/tiny4.yaml").board.chip;
  ChipConfig defaults;
  EXPECT_EQ(c.tile.thread_quantum, defaults.tile.thread_quantum);
  EXPECT_EQ(c.tile.load_bytes_per_cycle, 16u);  // the published chips' figures
  EXPECT_EQ(c.tile.store_bytes_per_cycle, 8u);
  EXPECT_TRUE(c.tile.co_issue);
  EXPECT_EQ(c.ipu_links, defaults.ipu_links);
  EXPECT_EQ(c.exchange, defaults.exchange);
  EXPECT_EQ(c.sync, defaults.sync);
  EXPECT_EQ(c.published_f16_tflops, 0);
}

}  // namespace
}  // namespace ipusim::config
