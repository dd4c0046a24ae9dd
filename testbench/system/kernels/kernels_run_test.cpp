// The chip-level kernels on `ipusim run` with the small test chips (tiny4, tiny16):
// results bit-exact against the host references, the microbenchmarks' figures inside
// what the config allows, and determinism. The full-chip checks are kernels_chip_test.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "ipusim_runner.h"
#include "kernels_ref.h"
#include "config/config_loader.h"
#include "iss/tile_core.h"

namespace {

using kref::find_line;
using kref::to_double;
using kref::to_u64;

struct Chip {
  std::string path;
  ipusim::config::ChipConfig config;
};

Chip chip(const std::string& path) { return {path, ipusim::config::load_system(path).board.chip}; }

std::string hex(uint32_t v) {
  char s[16];
  std::snprintf(s, sizeof s, "0x%08x", v);
  return s;
}

// The run must end cleanly: exit 0, no fault, and the JSON summary written.
void expect_clean(const kref::IpusimRun& r) {
  EXPECT_EQ(r.status, 0) << r.err << r.console;
  ASSERT_TRUE(r.json.is_object()) << r.err;
  EXPECT_TRUE(r.json["fault"].is_null()) << r.json["fault"];
}

class KernelsOnTestChips : public ::testing::TestWithParam<std::string> {
 protected:
  Chip c = chip(GetParam());
  std::string tag(const std::string& what) { return what + "_" + c.config.name; }
};

TEST_P(KernelsOnTestChips, AllreduceIsBitExact) {
  const kref::IpusimRun r = kref::run_ipusim(c.path, "allreduce.elf", tag("allreduce"));
  expect_clean(r);
  const kref::AllreduceExpect want = kref::allreduce(c.config.tiles, uint32_t(c.config.tile.sram_bytes));
  const auto got = find_line(r.console, "allreduce", "tiles");
  ASSERT_TRUE(got) << r.console << r.err;
  EXPECT_EQ(to_u64(got->at("chunk")), want.chunk);
  EXPECT_EQ(got->at("hash"), hex(want.hash));
  EXPECT_EQ(got->at("tiles_disagreeing"), "0");
  const auto phases = find_line(r.console, "allreduce", "cycles");
  ASSERT_TRUE(phases) << r.console;
  // Reduce-scatter moves (T-1) chunks through every port at 4 B/cycle: at least that long;
  // the all-gather's multicasts reach whole pairs, charged half (docs/exchange.md).
  const uint64_t port_cycles = uint64_t(c.config.tiles - 1) * want.chunk * 4 /
                               c.config.tile.exchange_in_bytes_per_cycle;
  EXPECT_GE(to_u64(phases->at("reduce_scatter_exchange")), port_cycles);
  EXPECT_GE(to_u64(phases->at("all_gather_exchange")), port_cycles / 2);
}

TEST_P(KernelsOnTestChips, JacobiIsBitExact) {
  const kref::IpusimRun r = kref::run_ipusim(c.path, "jacobi.elf", tag("jacobi"));
  expect_clean(r);
  const kref::JacobiExpect want = kref::jacobi(c.config.tiles);
  const auto got = find_line(r.console, "jacobi", "tiles");
  ASSERT_TRUE(got) << r.console << r.err;
  EXPECT_EQ(got->at("grid"), std::to_string(want.grid_rows) + "x64");
  EXPECT_EQ(got->at("hash"), hex(want.hash));
  EXPECT_EQ(got->at("sum"), hex(want.sum_bits));
  const auto cycles = find_line(r.console, "jacobi", "cycles");
  ASSERT_TRUE(cycles) << r.console;
  EXPECT_GT(to_u64(cycles->at("exchange")), 0u);
  // The sweep in f32v2 lanes takes 2 slots a point (docs/kernels.md); tile 0's busiest
  // worker has 3 rows of 64 (boundary columns included): 2,304 cycles of the loop, and
  // the start, prologue and boundary columns within half that again. The plain C loop
  // took 9 slots a point, 10,518 cycles.
  EXPECT_GT(to_u64(cycles->at("compute")), 3u * 64u * 2u * 6u);
  EXPECT_LT(to_u64(cycles->at("compute")), 3u * 64u * 2u * 6u * 3u / 2u);
}

TEST_P(KernelsOnTestChips, GemmIsBitExactAndAboveHalfThePeak) {
  const kref::IpusimRun r = kref::run_ipusim(c.path, "gemm_small.elf", tag("gemm"));
  expect_clean(r);
  const uint32_t rows = c.config.tile.amp_f16_macs_per_cycle / 4;
  const kref::GemmExpect want = kref::gemm(c.config.tiles, rows, 64);
  const auto got = find_line(r.console, "gemm", "tiles");
  ASSERT_TRUE(got) << r.console << r.err;
  EXPECT_EQ(to_u64(got->at("amp_rows")), rows);
  EXPECT_EQ(to_u64(got->at("M")), want.m);
  EXPECT_EQ(to_u64(got->at("N")), want.n);
  EXPECT_EQ(got->at("hash"), hex(want.hash));
  const auto perf = find_line(r.console, "gemm", "macs");
  ASSERT_TRUE(perf) << r.console;
  EXPECT_EQ(to_u64(perf->at("macs")), want.m * want.n * want.k);
  // With the accumulator banks each amp.ldw serves 8 amp.macs (docs/kernels.md).
  const double fraction = to_double(perf->at("peak_fraction"));
  EXPECT_GE(fraction, 0.50);
}

INSTANTIATE_TEST_SUITE_P(Chips, KernelsOnTestChips,
                         ::testing::Values("configs/test/tiny4.yaml", "configs/test/tiny16.yaml"),
                         [](const auto& info) {
                           return info.param.find("tiny4") != std::string::npos ? "tiny4" : "tiny16";
                         });

// ---- microbenchmarks on tiny16 ------------------------------------------------------

class KernelsMicrobenchmarksTiny16 : public ::testing::Test {
 protected:
  Chip c = chip("configs/test/tiny16.yaml");
};

TEST_F(KernelsMicrobenchmarksTiny16, ExchangeBandwidthApproachesThePortRate) {
  const kref::IpusimRun r = kref::run_ipusim(c.path, "mb_exchange_bw.elf", "mb_bw_tiny16");
  expect_clean(r);
  const double port = c.config.tile.exchange_in_bytes_per_cycle;
  const double tiles = c.config.tiles;
  const auto pair = find_line(r.console, "mb_exchange_bw", "pattern", "pair");
  ASSERT_TRUE(pair) << r.console;
  for (const std::string& row : kref::lines_of(r.console, "mb_exchange_bw")) {
    const auto f = kref::pairs(row);
    if (!f.count("pattern")) continue;
    const double bpc = to_double(f.at("bytes_per_cycle"));
    const double bytes = to_double(f.at("bytes"));
    const std::string p = f.at("pattern");
    const double limit = p == "pair" ? port : port * tiles;
    EXPECT_LE(bpc, limit * 1.0001) << row;  // no pattern beats the ports
    EXPECT_GT(bpc, 0.0) << row;
    const uint64_t messages = to_u64(f.at("messages"));
    EXPECT_EQ(to_u64(f.at("total_bytes")), uint64_t(bytes) * messages) << row;
    if (bytes == 65536 && p != "alltoall") {
      EXPECT_GE(bpc, 0.95 * limit) << row;
    }
  }
}

// The fabric's latency (docs/exchange.md, "Distance and latency"): tiny16 is one column,
// so the distance is |a - b| and d_max = 15.
uint32_t fabric_latency(const ipusim::config::ChipConfig& c, uint32_t distance) {
  const uint32_t lo = c.exchange.latency_min_cycles, hi = c.exchange.latency_max_cycles;
  const uint32_t dmax = c.tiles - 1;
  if (distance <= 1 || dmax <= 1) return lo;
  const uint64_t num = uint64_t(hi - lo) * (distance - 1), den = dmax - 1;
  return uint32_t(lo + (2 * num + den) / (2 * den));
}

TEST_F(KernelsMicrobenchmarksTiny16, LatencyIsTheFabricsDistanceLatency) {
  const kref::IpusimRun r = kref::run_ipusim(c.path, "mb_latency.elf", "mb_latency_tiny16");
  expect_clean(r);
  const auto rows = kref::lines_of(r.console, "mb_latency");
  ASSERT_EQ(rows.size(), 1u + 5) << r.console;  // header, distances 1 2 4 8 15
  for (size_t i = 1; i < rows.size(); ++i) {
    const auto f = kref::pairs(rows[i]);
    const uint32_t d = uint32_t(to_u64(f.at("distance")));
    const int64_t latency = std::stoll(f.at("latency_cycles"));
    EXPECT_EQ(latency, fabric_latency(c.config, d)) << rows[i];
    EXPECT_GE(to_u64(f.at("one_way_cycles")), uint64_t(latency) + 13) << rows[i];
  }
}

TEST_F(KernelsMicrobenchmarksTiny16, SyncStallIsTheControllersRoundTrip) {
  const kref::IpusimRun r = kref::run_ipusim(c.path, "mb_sync.elf", "mb_sync_tiny16");
  expect_clean(r);
  const auto ipu = find_line(r.console, "mb_sync", "zone", "ipu");
  const auto workers = find_line(r.console, "mb_sync", "zone", "workers");
  ASSERT_TRUE(ipu && workers) << r.console;
  EXPECT_EQ(workers->at("stall_mean"), "0.00") << "a sync with nothing to wait for";
  // In a steady loop every tile waits for the farthest one's round trip (docs/sync.md):
  // latency_max, whatever the tile's own distance.
  const std::string max = std::to_string(c.config.sync.latency_max_cycles) + ".00";
  EXPECT_EQ(ipu->at("stall_min"), max) << r.console;
  EXPECT_EQ(ipu->at("stall_max"), max) << r.console;
  // Releases differ by the controller's way out to each tile (docs/sync.md): the round
  // trip is floor(span * |2t - (T-1)| / (T-1)), the way out its larger half.
  const uint32_t span = c.config.sync.latency_max_cycles - c.config.sync.latency_min_cycles;
  const uint32_t n = c.config.tiles;
  auto way_out = [&](uint32_t t) {
    const uint32_t trip = uint32_t(uint64_t(span) * uint32_t(std::abs(int(2 * t) - int(n - 1))) / (n - 1));
    return trip - trip / 2;
  };
  uint32_t nearest = way_out(0);
  for (uint32_t t = 0; t < n; ++t) nearest = std::min(nearest, way_out(t));
  size_t rows = 0;
  for (const std::string& line : kref::lines_of(r.console, "mb_sync")) {
    const auto f = kref::pairs(line);
    if (!f.count("tile")) continue;
    ++rows;
    const uint32_t t = uint32_t(to_u64(f.at("tile")));
    EXPECT_EQ(to_u64(f.at("release_offset")), way_out(t) - nearest) << line;
    EXPECT_EQ(f.at("stall"), max) << line;
  }
  EXPECT_EQ(rows, 7u) << "tiles 0 1 2 4 7 8 15\n" << r.console;
}

// ---- memory bandwidth on tiny4 (stream, mb_sram_bw) ---------------------------------

class KernelsMemoryBandwidthTiny4 : public ::testing::Test {
 protected:
  Chip c = chip("configs/test/tiny4.yaml");
};

// A tile issues one slot per cycle (six workers, each every sixth cycle) and `lw` / `sw` /
// `flw` / `fsw` move 4 bytes: no 32-bit access pattern moves more than 4 B/cycle per tile.
constexpr double kWordBytesPerCycle = 4.0;

// The tile's memory paths as the model runs them: iss::TileParams' (16 B loaded, 8 B
// stored per cycle; the chip config has no keys for them on this branch).
const ipusim::iss::TileParams kPaths{};

// B/cycle/tile of a wide access moving `load` and `store` bytes per slot it takes.
double wide_bytes_per_slot(uint32_t load, uint32_t store) {
  return kref::wide_bytes_per_slot(kPaths.load_bytes_per_cycle, kPaths.store_bytes_per_cycle, load, store);
}

// The most a STREAM operation moving `words` words per element (one of them stored) can
// reach per tile: its stores at most the store path per cycle, its loads the load path,
// both together the two paths.
double stream_bound(uint64_t words) {
  const double store = kPaths.store_bytes_per_cycle, load = kPaths.load_bytes_per_cycle;
  return std::min({store * double(words), load * double(words) / double(words - 1), load + store});
}

// Every element right on every tile, STREAM's byte counts, and bandwidths that add up and
// stay under their bounds: the naive f32 kernels under the one-word-per-cycle bound, the
// others under the memory paths'. The hand-written triad's loop is one ld128st64.pi and one
// f32v2.axpy per two elements, paired by co-issue: at least 90 % of 24 B/cycle/tile; the
// intrinsic kernels at least 95 % of their loops' bytes per slot; GB/s at the configured
// clock are printed.
TEST_F(KernelsMemoryBandwidthTiny4, StreamIsRightAndCountsStreamsBytes) {
  const kref::IpusimRun r = kref::run_ipusim(c.path, "stream.elf", "stream_tiny4");
  expect_clean(r);
  const auto head = find_line(r.console, "stream", "tiles");
  ASSERT_TRUE(head) << r.console << r.err;
  // stream.c: the three arrays take half the SRAM, N a multiple of 48.
  const uint64_t n = c.config.tile.sram_bytes / 2 / 12 / 48 * 48;
  EXPECT_EQ(to_u64(head->at("tiles")), c.config.tiles);
  EXPECT_EQ(to_u64(head->at("workers")), 6u);
  EXPECT_EQ(to_u64(head->at("elements_per_tile")), n);
  EXPECT_EQ(head->at("wrong_tiles"), "0");
  const std::pair<std::string, uint64_t> ops[] = {{"copy", 2}, {"scale", 2}, {"add", 3}, {"triad", 3}};
  std::vector<std::pair<std::string, uint64_t>> kernels;
  for (const char* version : {"", "_opt", "_f16"})
    for (const auto& [op, words] : ops) kernels.emplace_back(op + version, words);
  kernels.emplace_back("triad_asm", 3);
  for (const auto& [name_s, words] : kernels) {
    const char* name = name_s.c_str();
    const auto k = find_line(r.console, "stream", "kernel", name);
    ASSERT_TRUE(k) << name << "\n" << r.console;
    const uint64_t bytes = to_u64(k->at("bytes")), cycles = to_u64(k->at("cycles"));
    EXPECT_EQ(bytes, c.config.tiles * n * words * 4) << name;
    ASSERT_GT(cycles, 0u) << name;
    const double bpc = to_double(k->at("bytes_per_cycle")), tile = to_double(k->at("bytes_per_cycle_per_tile"));
    EXPECT_NEAR(bpc, double(bytes) / double(cycles), 0.001) << name;
    EXPECT_NEAR(tile, bpc / c.config.tiles, 0.001) << name;
    if (name_s.find('_') == std::string::npos) {
      // Naive C: one flw / fsw per word and a few instructions of loop, so between one word
      // per 4 issue slots and one per slot.
      EXPECT_LE(tile, kWordBytesPerCycle) << name;
      EXPECT_GE(tile, kWordBytesPerCycle / 4) << name;
    } else {
      // Wide accesses: never above what the memory paths carry.
      EXPECT_LE(tile, stream_bound(words)) << name;
    }
    if (name_s == "triad_asm") {
      // Every slot of its rpt body pairs an ld128st64.pi with an f32v2.axpy: 24 B per slot
      // but for the workers' start and join.
      EXPECT_GE(tile, 0.9 * stream_bound(words)) << name;
    }
    // The intrinsic loops are their instructions (ipu/xipu.h's register forms, no moves):
    // scale 5 slots per 16 B, add and triad 6 per 24 B, none co-issued; the workers' start
    // and join take the rest.
    const std::string op = name_s.substr(0, name_s.find('_'));
    if (name_s != "triad_asm" && name_s.find('_') != std::string::npos && op != "copy") {
      EXPECT_GE(tile, 0.95 * (op == "scale" ? 16.0 / 5 : 24.0 / 6)) << name;
    }
    std::printf("stream %-9s %8.3f B/cycle/tile %8.3f GB/s per IPU at %.0f MHz\n", name, tile,
                bpc * c.config.clock_hz / 1e9, c.config.clock_hz / 1e6);
  }
}

// stream_wrong.elf adds 1 to a[5] on the last tile after the triad: the check must name it.
TEST_F(KernelsMemoryBandwidthTiny4, StreamNamesAWrongElementAndFails) {
  const kref::IpusimRun r = kref::run_ipusim(c.path, "stream_wrong.elf", "stream_wrong_tiny4");
  EXPECT_EQ(r.status, 1) << r.err;
  const auto wrong = find_line(r.console, "stream", "tile");
  ASSERT_TRUE(wrong) << r.console;
  EXPECT_EQ(to_u64(wrong->at("tile")), c.config.tiles - 1);
  EXPECT_EQ(wrong->at("kernel"), "triad");
  EXPECT_EQ(wrong->at("wrong_element"), "5");
  EXPECT_NE(wrong->at("got"), wrong->at("want"));
  const auto head = find_line(r.console, "stream", "tiles");
  ASSERT_TRUE(head) << r.console;
  EXPECT_EQ(head->at("wrong_tiles"), "1");
}

// Unrolled 32-bit accesses fill all but 2 of every 130 issue slots: within 5 % of the
// 4 B/cycle a tile's one-word accesses allow, never above it. The wide patterns' rpt loops
// are accesses but for a few slots per 256: within 5 % of their slot-bound figures (16, 8
// and 24 B/cycle/tile with the default memory paths), never above.
TEST_F(KernelsMemoryBandwidthTiny4, SramBandwidthIsOneWordPerCyclePerTile) {
  const kref::IpusimRun r = kref::run_ipusim(c.path, "mb_sram_bw.elf", "mb_sram_bw_tiny4");
  expect_clean(r);
  const auto head = find_line(r.console, "mb_sram_bw", "tiles");
  ASSERT_TRUE(head) << r.console << r.err;
  EXPECT_EQ(head->at("wrong_tiles"), "0");
  const uint64_t per_worker = to_u64(head->at("bytes_per_worker"));
  struct Pattern {
    const char* name;
    uint64_t halves;  // bytes per worker, in halves of bytes_per_worker
    double bound;     // B/cycle/tile
  };
  const Pattern patterns[] = {{"load", 2, kWordBytesPerCycle},
                              {"store", 2, kWordBytesPerCycle},
                              {"load_store", 4, kWordBytesPerCycle},
                              {"load128", 2, wide_bytes_per_slot(16, 0)},
                              {"store64", 2, wide_bytes_per_slot(0, 8)},
                              // ld128st64.pi stores 8 bytes per 16 loaded: 1.5 buffers
                              {"load128_store64", 3, wide_bytes_per_slot(16, 8)}};
  for (const auto& [p, halves, bound] : patterns) {
    const auto f = find_line(r.console, "mb_sram_bw", "pattern", p);
    ASSERT_TRUE(f) << p << "\n" << r.console;
    EXPECT_EQ(to_u64(f->at("bytes")), c.config.tiles * 6 * per_worker * halves / 2) << p;
    const double bpc = to_double(f->at("bytes_per_cycle")), tile = to_double(f->at("bytes_per_cycle_per_tile"));
    EXPECT_NEAR(bpc, double(to_u64(f->at("bytes"))) / double(to_u64(f->at("cycles"))), 0.001) << p;
    EXPECT_LE(tile, bound) << p;
    EXPECT_GE(tile, 0.95 * bound) << p;
    std::printf("mb_sram_bw %-15s %6.3f B/cycle/tile %8.3f GB/s per IPU at %.0f MHz\n", p, tile,
                bpc * c.config.clock_hz / 1e9, c.config.clock_hz / 1e6);
  }
}

// mb_sram_bw_wrong.elf flips a bit of word 7 of worker 2's copy on the last tile.
TEST_F(KernelsMemoryBandwidthTiny4, SramBandwidthNamesAWrongWordAndFails) {
  const kref::IpusimRun r = kref::run_ipusim(c.path, "mb_sram_bw_wrong.elf", "mb_sram_bw_wrong_tiny4");
  EXPECT_EQ(r.status, 1) << r.err;
  const auto wrong = find_line(r.console, "mb_sram_bw", "tile");
  ASSERT_TRUE(wrong) << r.console;
  EXPECT_EQ(to_u64(wrong->at("tile")), c.config.tiles - 1);
  EXPECT_EQ(wrong->at("pattern"), "load_store");
  EXPECT_EQ(wrong->at("worker"), "2");
  EXPECT_EQ(wrong->at("wrong_word"), "7");
  EXPECT_EQ(to_u64(wrong->at("got")) ^ to_u64(wrong->at("want")), 1u);
  const auto head = find_line(r.console, "mb_sram_bw", "tiles");
  ASSERT_TRUE(head) << r.console;
  EXPECT_EQ(head->at("wrong_tiles"), "1");
}

TEST(KernelsDeterminism, RunsOnOneOrTwoHostThreadsGiveTheSameBytesAndCycles) {
  const std::string tiny16 = "configs/test/tiny16.yaml";
  for (const char* elf : {"allreduce.elf", "gemm_small.elf", "mb_exchange_bw.elf", "stream.elf", "mb_sram_bw.elf"}) {
    const kref::IpusimRun a = kref::run_ipusim(tiny16, elf, "det_a", "--threads 1");
    const kref::IpusimRun b = kref::run_ipusim(tiny16, elf, "det_b", "--threads 2");
    expect_clean(a);
    EXPECT_EQ(a.console, b.console) << elf;
    EXPECT_EQ(a.json["tile_cycles"], b.json["tile_cycles"]) << elf;
    EXPECT_EQ(a.json["instructions"], b.json["instructions"]) << elf;
  }
}

}  // namespace
