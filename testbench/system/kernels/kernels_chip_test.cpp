// The kernels' acceptance figures on the full reference chips (docs/kernels.md):
//  - GC2: aggregate all-to-all exchange bandwidth for large messages within 5 % of
//    7.78 TB/s (1216 tiles x 4 B/cycle x 1.6 GHz), and the partner pattern likewise;
//  - GC200 and Bow: the f16 GEMM on every tile and worker, bit-exact, and its modelled
//    throughput against the configured peak (at least 50 %, see KernelsGemmOnFullChips);
//  - GC200: all-reduce and Jacobi bit-exact on 1472 tiles;
//  - GC2: STREAM and the SRAM bandwidth right on every tile, figures printed.
// Every test prints its measured table (the figures docs/kernels.md quotes).
#include <gtest/gtest.h>

#include <cstdio>
#include <map>

#include "ipusim_runner.h"
#include "kernels_ref.h"
#include "pipeline.h"
#include "config/config_loader.h"
#include "iss/tile_core.h"

namespace {

using kref::find_line;
using kref::to_double;
using kref::to_u64;

ipusim::config::ChipConfig chip_of(const std::string& path) {
  return ipusim::config::load_system(path).board.chip;
}

std::string hex(uint32_t v) {
  char s[16];
  std::snprintf(s, sizeof s, "0x%08x", v);
  return s;
}

void expect_clean(const kref::IpusimRun& r) {
  EXPECT_EQ(r.status, 0) << r.err << r.console.substr(0, 4000);
  ASSERT_TRUE(r.json.is_object()) << r.err;
  EXPECT_TRUE(r.json["fault"].is_null()) << r.json["fault"];
}

TEST(KernelsExchangeOnGc2, AllToAllBandwidthIsTheDatasheetFigure) {
  const std::string path = "configs/gc2.yaml";
  const auto chip = chip_of(path);
  const kref::IpusimRun r = kref::run_ipusim(path, "mb_exchange_bw.elf", "gc2_bw");
  expect_clean(r);
  const double datasheet = 7.78e12;  // B/s: 1216 tiles x 4 B/cycle x 1.6 GHz (Jia et al.)
  std::printf("GC2 exchange bandwidth (%.2f s host)\n%-9s %8s %10s %12s %10s %12s\n",
              r.host_seconds, "pattern", "bytes", "cycles", "bytes/cycle", "GB/s", "GB/s/tile");
  std::map<std::string, double> largest;  // pattern -> B/s of its largest message
  std::map<std::string, uint64_t> largest_bytes;
  for (const std::string& row : kref::lines_of(r.console, "mb_exchange_bw")) {
    const auto f = kref::pairs(row);
    if (!f.count("pattern")) continue;
    const std::string p = f.at("pattern");
    const double bps = to_double(f.at("bytes_per_cycle")) * chip.clock_hz;
    const double per_tile = p == "pair" ? bps : bps / chip.tiles;
    std::printf("%-9s %8s %10s %12s %10.1f %12.2f\n", p.c_str(), f.at("bytes").c_str(),
                f.at("cycles").c_str(), f.at("bytes_per_cycle").c_str(), bps / 1e9, per_tile / 1e9);
    const uint64_t bytes = to_u64(f.at("bytes"));
    if (bytes >= largest_bytes[p]) largest_bytes[p] = bytes, largest[p] = bps;
  }
  ASSERT_TRUE(largest.count("alltoall") && largest.count("partner")) << r.console;
  EXPECT_EQ(largest_bytes["alltoall"], 128u) << "the largest all-to-all message that fits GC2";
  EXPECT_NEAR(largest["alltoall"] / datasheet, 1.0, 0.05) << largest["alltoall"] / 1e12 << " TB/s";
  EXPECT_NEAR(largest["partner"] / datasheet, 1.0, 0.05) << largest["partner"] / 1e12 << " TB/s";
  EXPECT_NEAR(largest["pair"] / (4 * chip.clock_hz), 1.0, 0.05) << "one tile: 4 B/cycle";
}

class KernelsGemmOnFullChips : public ::testing::TestWithParam<std::string> {};

// The GEMM's inner loop reuses each W over 8 columns (one accumulator bank each): per
// block of 8 columns an amp.clr, 24 x (amp.ldw + 8 amp.mac), 8 x (amp.st + pointer add),
// a reload of the loop end and a branch: 192 / 235 = 81.7 % of the issue slots are
// amp.mac. The brief asks for at least 50 % of the configured f16 peak over the product
// superstep.
TEST_P(KernelsGemmOnFullChips, IsBitExactAndAboveHalfThePeak) {
  const std::string path = GetParam();
  const auto chip = chip_of(path);
  const kref::IpusimRun r = kref::run_ipusim(path, "gemm.elf", "gemm_" + chip.name);
  expect_clean(r);
  const uint32_t rows = chip.tile.amp_f16_macs_per_cycle / 4;
  const kref::GemmExpect want = kref::gemm(chip.tiles, rows, 512);
  const auto got = find_line(r.console, "gemm", "tiles");
  const auto perf = find_line(r.console, "gemm", "macs");
  ASSERT_TRUE(got && perf) << r.console << r.err;
  EXPECT_EQ(got->at("hash"), hex(want.hash));
  const uint64_t macs = to_u64(perf->at("macs")), cycles = to_u64(perf->at("cycles"));
  EXPECT_EQ(macs, want.m * want.n * want.k);
  const double seconds = double(cycles) / chip.clock_hz;
  const double tflops = 2.0 * double(macs) / seconds / 1e12;
  const double peak = chip.peak_f16_flops() / 1e12;
  const double whole_run = 2.0 * double(macs) / (r.json["tile_cycles"].get<double>() / chip.clock_hz) / 1e12;
  std::printf("GEMM on %s: M %llu N %llu K %llu, %llu MACs in %llu cycles (product superstep), "
              "%.1f TFLOPS of %.1f peak = %.1f %%; whole run %llu cycles = %.1f TFLOPS; "
              "distribution %s cycles; %.2f s host\n",
              chip.name.c_str(), (unsigned long long)want.m, (unsigned long long)want.n,
              (unsigned long long)want.k, (unsigned long long)macs, (unsigned long long)cycles,
              tflops, peak, 100 * tflops / peak,
              (unsigned long long)r.json["tile_cycles"].get<uint64_t>(), whole_run,
              perf->at("distribution_cycles").c_str(), r.host_seconds);
  EXPECT_NEAR(to_double(perf->at("peak_fraction")), tflops / peak, 0.0002);
  EXPECT_GE(tflops / peak, 0.50);
}

INSTANTIATE_TEST_SUITE_P(Chips, KernelsGemmOnFullChips,
                         ::testing::Values("configs/gc200.yaml", "configs/bow.yaml"),
                         [](const auto& info) {
                           return info.param.find("bow") != std::string::npos ? "bow" : "gc200";
                         });

TEST(KernelsCollectivesOnGc200, AllreduceAndJacobiAreBitExact) {
  const std::string path = "configs/gc200.yaml";
  const auto chip = chip_of(path);
  kref::IpusimRun r = kref::run_ipusim(path, "allreduce.elf", "allreduce_gc200");
  expect_clean(r);
  const kref::AllreduceExpect ar = kref::allreduce(chip.tiles, uint32_t(chip.tile.sram_bytes));
  auto got = find_line(r.console, "allreduce", "tiles");
  ASSERT_TRUE(got) << r.err;
  EXPECT_EQ(to_u64(got->at("chunk")), 32u);
  EXPECT_EQ(got->at("hash"), hex(ar.hash));
  EXPECT_EQ(got->at("tiles_disagreeing"), "0");
  const auto phases = find_line(r.console, "allreduce", "cycles");
  ASSERT_TRUE(phases);
  std::printf("allreduce on gc200: %llu floats, cycles: reduce-scatter post %s + exchange %s, reduce "
              "%s, all-gather post %s + exchange %s; %.2f s host\n",
              (unsigned long long)ar.elements, phases->at("reduce_scatter_post").c_str(),
              phases->at("reduce_scatter_exchange").c_str(), phases->at("reduce").c_str(),
              phases->at("all_gather_post").c_str(), phases->at("all_gather_exchange").c_str(),
              r.host_seconds);
  // Each exchange brings (T-1) chunks of 32 floats into every receive port at 4 B/cycle;
  // the all-gather's multicasts reach both tiles of every pair, which the pair rule
  // (docs/exchange.md) charges half: it takes half as long.
  const double port_cycles = double(chip.tiles - 1) * 32 * 4 / chip.tile.exchange_in_bytes_per_cycle;
  EXPECT_NEAR(to_double(phases->at("reduce_scatter_exchange")) / port_cycles, 1.0, 0.05);
  EXPECT_NEAR(to_double(phases->at("all_gather_exchange")) / (port_cycles / 2), 1.0, 0.05);
  // The sum in f32v2 lanes: 8 quads over six workers, two on the busiest, 4 slots a tile
  // for its T - 1 additions (docs/kernels.md): within 5 % of that, where the plain C
  // loop took 124,662 cycles.
  const double reduce_cycles = double(chip.tiles - 1) * 4 * 6;
  EXPECT_GE(to_double(phases->at("reduce")), reduce_cycles);
  EXPECT_LE(to_double(phases->at("reduce")), reduce_cycles * 1.05);

  r = kref::run_ipusim(path, "jacobi.elf", "jacobi_gc200");
  expect_clean(r);
  const kref::JacobiExpect ja = kref::jacobi(chip.tiles);
  got = find_line(r.console, "jacobi", "tiles");
  ASSERT_TRUE(got) << r.err;
  EXPECT_EQ(got->at("hash"), hex(ja.hash));
  EXPECT_EQ(got->at("sum"), hex(ja.sum_bits));
  const auto cycles = find_line(r.console, "jacobi", "cycles");
  ASSERT_TRUE(cycles);
  std::printf("jacobi on gc200: %u x 64 grid, 50 iterations, per iteration %s cycles (compute %s, "
              "exchange %s); %.2f s host\n",
              ja.grid_rows, cycles->at("per_iteration").c_str(), cycles->at("compute").c_str(),
              cycles->at("exchange").c_str(), r.host_seconds);
}

// STREAM and the SRAM's peak on GC2, the chip of Louw & McIntosh-Smith (2021) and Jia et
// al. (2019): every element right on all 1216 tiles, and the figures printed beside the
// papers' (STREAM's measured, not held to them: docs/kernels.md). mb_sram_bw's load128
// must be within 5 % of the 16 B/cycle/tile (31.1 TB/s) Jia et al. give for GC2 reads.
TEST(KernelsMemoryBandwidthOnGc2, StreamAndSramBandwidthAreRightAndPrinted) {
  const std::string path = "configs/gc2.yaml";
  const auto chip = chip_of(path);
  kref::IpusimRun r = kref::run_ipusim(path, "stream.elf", "stream_gc2");
  expect_clean(r);
  auto head = find_line(r.console, "stream", "tiles");
  ASSERT_TRUE(head) << r.err;
  EXPECT_EQ(to_u64(head->at("tiles")), chip.tiles);
  EXPECT_EQ(head->at("wrong_tiles"), "0");
  // GB/s, Louw & McIntosh-Smith (2021) Table I: naive, optimised, assembly fp32; fp16.
  const std::map<std::string, double> paper = {
      {"triad", 3726}, {"triad_opt", 7261}, {"triad_asm", 12420}, {"triad_f16", 7490}};
  std::printf("stream on gc2 (%.2f s host)\n%-9s %10s %14s %12s %10s\n", r.host_seconds, "kernel",
              "cycles", "B/cycle/tile", "GB/s", "paper");
  for (const char* k : {"copy", "scale", "add", "triad", "copy_opt", "scale_opt", "add_opt", "triad_opt",
                        "triad_asm", "copy_f16", "scale_f16", "add_f16", "triad_f16"}) {
    const auto f = find_line(r.console, "stream", "kernel", k);
    ASSERT_TRUE(f) << k << "\n" << r.console;
    const double gbs = to_double(f->at("bytes_per_cycle")) * chip.clock_hz / 1e9;
    // The naive kernels move one word per flw / fsw; the others at most what a slot's
    // memory paths carry (16 B loaded + 8 B stored by default).
    const bool naive = std::string(k).find('_') == std::string::npos;
    EXPECT_LE(to_double(f->at("bytes_per_cycle_per_tile")),
              naive ? 4.0 : double(ipusim::iss::TileParams{}.load_bytes_per_cycle +
                                   ipusim::iss::TileParams{}.store_bytes_per_cycle)) << k;
    std::printf("%-9s %10s %14s %12.1f %10s\n", k, f->at("cycles").c_str(),
                f->at("bytes_per_cycle_per_tile").c_str(), gbs,
                paper.count(k) ? std::to_string(int(paper.at(k))).c_str() : "");
  }

  r = kref::run_ipusim(path, "mb_sram_bw.elf", "mb_sram_bw_gc2");
  expect_clean(r);
  head = find_line(r.console, "mb_sram_bw", "tiles");
  ASSERT_TRUE(head) << r.err;
  EXPECT_EQ(head->at("wrong_tiles"), "0");
  std::printf("mb_sram_bw on gc2 (%.2f s host; Jia et al.: 16 B/cycle/tile read, 31.1 TB/s)\n"
              "%-15s %10s %14s %10s\n", r.host_seconds, "pattern", "cycles", "B/cycle/tile", "TB/s");
  // B/cycle/tile a pattern's access moves per slot with the model's memory paths
  // (iss::TileParams: 16 B loaded, 8 B stored per cycle).
  const ipusim::iss::TileParams paths{};
  const uint32_t lp = paths.load_bytes_per_cycle, sp = paths.store_bytes_per_cycle;
  const std::map<std::string, double> slot_bound = {{"load", 4},
                                                    {"store", 4},
                                                    {"load_store", 4},
                                                    {"load128", kref::wide_bytes_per_slot(lp, sp, 16, 0)},
                                                    {"store64", kref::wide_bytes_per_slot(lp, sp, 0, 8)},
                                                    {"load128_store64", kref::wide_bytes_per_slot(lp, sp, 16, 8)}};
  for (const char* p : {"load", "store", "load_store", "load128", "store64", "load128_store64"}) {
    const auto f = find_line(r.console, "mb_sram_bw", "pattern", p);
    ASSERT_TRUE(f) << p << "\n" << r.console;
    const double tile = to_double(f->at("bytes_per_cycle_per_tile"));
    EXPECT_LE(tile, slot_bound.at(p)) << p;
    EXPECT_GE(tile, 0.95 * slot_bound.at(p)) << p;
    std::printf("%-15s %10s %14s %10.2f\n", p, f->at("cycles").c_str(),
                f->at("bytes_per_cycle_per_tile").c_str(),
                to_double(f->at("bytes_per_cycle")) * chip.clock_hz / 1e12);
  }
}

}  // namespace

namespace {

class KernelsLatencyAndSync : public ::testing::TestWithParam<std::string> {};

// Tile 0 to its neighbour is the config's minimum latency and to the last tile (the far
// corner of the column layout, docs/exchange.md) its maximum; in a steady sync loop every
// tile stalls for the farthest tile's round trip (latency_max, docs/sync.md).
TEST_P(KernelsLatencyAndSync, MatchTheConfiguredEnds) {
  const std::string path = GetParam();
  const auto chip = chip_of(path);
  kref::IpusimRun r = kref::run_ipusim(path, "mb_latency.elf", "latency_" + chip.name);
  expect_clean(r);
  std::printf("%s exchange latency, tile 0 -> tile d (4 bytes)\n%8s %14s %14s %10s\n",
              chip.name.c_str(), "d", "one-way cyc", "latency cyc", "ns");
  size_t rows = 0;
  for (const std::string& line : kref::lines_of(r.console, "mb_latency")) {
    const auto f = kref::pairs(line);
    if (!f.count("distance")) continue;
    ++rows;
    const uint64_t d = to_u64(f.at("distance"));
    const int64_t latency = std::stoll(f.at("latency_cycles"));
    std::printf("%8s %14s %14s %10.1f\n", f.at("distance").c_str(), f.at("one_way_cycles").c_str(),
                f.at("latency_cycles").c_str(), double(latency) / chip.clock_hz * 1e9);
    EXPECT_GE(latency, int64_t(chip.exchange.latency_min_cycles)) << line;
    EXPECT_LE(latency, int64_t(chip.exchange.latency_max_cycles)) << line;
    if (d == 1) {
      EXPECT_EQ(latency, int64_t(chip.exchange.latency_min_cycles)) << line;
    }
    if (d == chip.tiles - 1) {
      EXPECT_EQ(latency, int64_t(chip.exchange.latency_max_cycles)) << line;
    }
  }
  EXPECT_GE(rows, 10u) << r.console;

  r = kref::run_ipusim(path, "mb_sync.elf", "sync_" + chip.name);
  expect_clean(r);
  const auto ipu = find_line(r.console, "mb_sync", "zone", "ipu");
  ASSERT_TRUE(ipu) << r.console;
  const std::string max = std::to_string(chip.sync.latency_max_cycles) + ".00";
  EXPECT_EQ(ipu->at("stall_min"), max);
  EXPECT_EQ(ipu->at("stall_max"), max);
  std::printf("%s sync over the IPU: stall %s cycles (%.1f ns) per sync, loop period %s cycles\n"
              "%8s %10s %16s\n",
              chip.name.c_str(), ipu->at("stall_mean").c_str(),
              to_double(ipu->at("stall_mean")) / chip.clock_hz * 1e9,
              ipu->at("period_cycles").c_str(), "tile", "stall", "release offset");
  for (const std::string& line : kref::lines_of(r.console, "mb_sync")) {
    const auto f = kref::pairs(line);
    if (f.count("tile"))
      std::printf("%8s %10s %16s\n", f.at("tile").c_str(), f.at("stall").c_str(),
                  f.at("release_offset").c_str());
  }
}

INSTANTIATE_TEST_SUITE_P(Chips, KernelsLatencyAndSync,
                         ::testing::Values("configs/gc2.yaml", "configs/gc200.yaml"),
                         [](const auto& info) {
                           return info.param.find("gc200") != std::string::npos ? "gc200" : "gc2";
                         });

}  // namespace

namespace {

// ipu_allreduce on an IPU-M2000 of GC200s (5,888 tiles): the host reference's sum on
// every IPU, and the same sum at a bit-error rate of 1e-6 on every link, every IPU's last
// sync later by exactly the cycles the links lost.
TEST(KernelsAcrossIpus, IpuAllreduceOnM2000IsBitExactWithAndWithoutLinkFaults) {
  const std::string path = "configs/m2000.yaml";
  const auto sys = ipusim::config::load_system(path);
  const kref::IpuAllreduceExpect want =
      kref::ipu_allreduce(sys.board.chip.tiles, uint32_t(sys.board.chip.tile.sram_bytes), sys.total_ipus());
  const kref::IpusimRun clean = kref::run_ipusim(path, "ipu_allreduce.elf", "ipu_allreduce_m2000");
  const kref::IpusimRun faulty =
      kref::run_ipusim(path, "ipu_allreduce.elf", "ipu_allreduce_m2000_ber", "--link-faults ber=1e-6,seed=1");
  for (const kref::IpusimRun* r : {&clean, &faulty}) {
    ASSERT_EQ(r->status, 0) << r->err;
    int lines = 0;
    for (const std::string& line : kref::lines_of(r->console, "ipu_allreduce"))
      if (kref::pairs(line).count("hash")) {
        EXPECT_EQ(kref::pairs(line).at("hash"), hex(want.hash)) << line;
        ++lines;
      }
    EXPECT_EQ(lines, 4);
  }
  const uint64_t lost = faulty.json["link_cycles_lost"].get<uint64_t>();
  EXPECT_GT(lost, 0u) << "1e-6 over a megabyte of link traffic corrupts some frames";
  for (uint32_t i = 0; i < sys.total_ipus(); ++i)  // the report after the last sync prints other digits
    EXPECT_EQ(kref::last_superstep_begin(faulty.json, i), kref::last_superstep_begin(clean.json, i) + lost) << "IPU " << i;
  std::printf("ipu_allreduce on m2000: %llu cycles clean, +%llu lost at BER 1e-6; %.2f s / %.2f s host\n",
              (unsigned long long)clean.json["tile_cycles"].get<uint64_t>(), (unsigned long long)lost,
              clean.host_seconds, faulty.host_seconds);
}

// The pipeline on an IPU-M2000 of GC200s (D = 1472): both layers' hashes bit-exact, and
// in the steady state both IPUs compute in the same superstep, their steps within 1 % of
// each other (both layers are D x D).
TEST(KernelsAcrossIpus, PipelineOnM2000IsBitExactAndBalanced) {
  const std::string path = "configs/m2000.yaml";
  const auto sys = ipusim::config::load_system(path);
  const uint32_t n = PIPE_DEFAULT_MICRO_BATCHES;
  const kref::PipelineExpect want = kref::pipeline(sys.board.chip.tiles, n);
  const kref::IpusimRun r = kref::run_ipusim(path, "pipeline.elf", "pipeline_m2000");
  ASSERT_EQ(r.status, 0) << r.err;
  for (uint32_t ipu = 0; ipu < 2; ++ipu) {
    const auto got = kref::find_line(r.console, "pipeline", "ipu", std::to_string(ipu));
    ASSERT_TRUE(got) << r.console;
    EXPECT_EQ(got->at("hash"), hex(ipu == 0 ? want.hash_y1 : want.hash_y2));
    EXPECT_EQ(kref::to_u64(got->at("dim")), 1472u);
  }
  uint64_t step[2][PIPE_MAX_MICRO_BATCHES + 1] = {};
  for (const std::string& line : kref::lines_of(r.console, "pipeline")) {
    if (line.rfind("step ", 0) != 0) continue;
    const auto kv = kref::pairs(line);
    step[kref::to_u64(kv.at("ipu"))][kref::to_u64(kv.at("step"))] =
        kref::to_u64(kv.at("gather")) + kref::to_u64(kv.at("compute"));
  }
  for (uint32_t s = 1; s < n; ++s) {
    EXPECT_GT(step[0][s], 0u);
    EXPECT_NEAR(double(step[1][s]), double(step[0][s]), 0.01 * double(step[0][s])) << "step " << s;
  }
  std::printf("pipeline on m2000: %llu cycles, steady step %llu / %llu cycles (IPU 0 / 1); %.2f s host\n",
              (unsigned long long)r.json["tile_cycles"].get<uint64_t>(), (unsigned long long)step[0][1],
              (unsigned long long)step[1][1], r.host_seconds);
}

}  // namespace
