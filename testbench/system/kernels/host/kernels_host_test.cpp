// The kernels' numerics on the host: each kernel's C, compiled natively, runs on the
// fake chip (fake_chip.h) and must print exactly what the C++ reference (kernels_ref.h)
// computes, with no exchange rule broken. Timing is not modelled here (see
// kernels_run_test for the kernels on ipusim).
#include <gtest/gtest.h>

#include "fake_chip.h"
#include "ipu/xipu.h"
#include "kernels_ref.h"
#include "pipeline.h"

extern "C" {
int allreduce_main(void);
int jacobi_main(void);
int gemm_main(void);
int gemm_small_main(void);
int mb_exchange_bw_main(void);
int mb_latency_main(void);
int mb_sync_main(void);
int ipu_allreduce_main(void);
int pipeline_main(void);
}

namespace {

kfake::RunOutcome run_clean(const kfake::ChipConfig& config, kfake::KernelMain kernel) {
  kfake::RunOutcome out = kfake::run(config, kernel);
  for (const std::string& e : out.errors) ADD_FAILURE() << e;
  for (size_t t = 0; t < out.tiles.size(); ++t)
    EXPECT_EQ(out.tiles[t].exit_code, 0) << "tile " << t << ": " << out.tiles[t].console;
  return out;
}

std::string hex(uint32_t v) {
  char s[16];
  std::snprintf(s, sizeof s, "0x%08x", v);
  return s;
}

class KernelsHostAllreduce : public ::testing::TestWithParam<uint32_t> {};

TEST_P(KernelsHostAllreduce, MatchesTheReferenceBitForBit) {
  const kfake::ChipConfig chip{.tiles = GetParam()};
  const kfake::RunOutcome out = run_clean(chip, allreduce_main);
  const kref::AllreduceExpect want = kref::allreduce(chip.tiles, chip.sram_bytes);
  const auto got = kref::find_line(out.tiles[0].console, "allreduce", "tiles");
  ASSERT_TRUE(got) << out.tiles[0].console;
  EXPECT_EQ(kref::to_u64(got->at("tiles")), chip.tiles);
  EXPECT_EQ(kref::to_u64(got->at("chunk")), want.chunk);
  EXPECT_EQ(kref::to_u64(got->at("elements")), want.elements);
  EXPECT_EQ(got->at("hash"), hex(want.hash));
  EXPECT_EQ(got->at("tiles_disagreeing"), "0");
  const auto first = kref::lines_of(out.tiles[0].console, "allreduce");
  const std::string want_first = "first " + hex(want.first[0]) + " " + hex(want.first[1]) + " " +
                                 hex(want.first[2]) + " " + hex(want.first[3]);
  EXPECT_NE(std::find(first.begin(), first.end(), want_first), first.end()) << out.tiles[0].console;
  for (uint32_t t = 1; t < chip.tiles; ++t) EXPECT_EQ(out.tiles[t].console, "") << "tile " << t;
}

INSTANTIATE_TEST_SUITE_P(Tiles, KernelsHostAllreduce, ::testing::Values(2u, 4u, 16u, 37u));

TEST(KernelsHostAllreduce, ChunkRuleGivesTheDocumentedSizes) {
  EXPECT_EQ(kref::allreduce(4, 624 * 1024).chunk, 64u);
  EXPECT_EQ(kref::allreduce(1472, 624 * 1024).chunk, 32u);  // GC200, Bow
  EXPECT_EQ(kref::allreduce(1216, 256 * 1024).chunk, 8u);   // GC2
}

class KernelsHostJacobi : public ::testing::TestWithParam<uint32_t> {};

TEST_P(KernelsHostJacobi, MatchesTheReferenceBitForBit) {
  const kfake::ChipConfig chip{.tiles = GetParam()};
  const kfake::RunOutcome out = run_clean(chip, jacobi_main);
  const kref::JacobiExpect want = kref::jacobi(chip.tiles);
  const auto got = kref::find_line(out.tiles[0].console, "jacobi", "tiles");
  ASSERT_TRUE(got) << out.tiles[0].console;
  EXPECT_EQ(got->at("grid"), std::to_string(want.grid_rows) + "x64");
  EXPECT_EQ(got->at("iterations"), "50");
  EXPECT_EQ(got->at("hash"), hex(want.hash));
  EXPECT_EQ(got->at("sum"), hex(want.sum_bits));
  EXPECT_EQ(out.tiles[0].syncs, 52u) << "one sync per iteration, one to start, one to gather";
}

INSTANTIATE_TEST_SUITE_P(Tiles, KernelsHostJacobi, ::testing::Values(1u, 2u, 4u, 16u));

struct GemmCase {
  uint32_t tiles, amp_rows;
  bool small;
};

class KernelsHostGemm : public ::testing::TestWithParam<GemmCase> {};

TEST_P(KernelsHostGemm, MatchesTheReferenceBitForBit) {
  const GemmCase c = GetParam();
  const kfake::ChipConfig chip{.tiles = c.tiles, .amp_rows16 = c.amp_rows};
  const kfake::RunOutcome out = run_clean(chip, c.small ? gemm_small_main : gemm_main);
  const uint32_t nt = c.small ? 64 : 512;
  const kref::GemmExpect want = kref::gemm(c.tiles, c.amp_rows, nt);
  const auto got = kref::find_line(out.tiles[0].console, "gemm", "tiles");
  ASSERT_TRUE(got) << out.tiles[0].console;
  EXPECT_EQ(got->at("grid"), std::to_string(want.grid_p) + "x" + std::to_string(want.grid_q));
  EXPECT_EQ(kref::to_u64(got->at("amp_rows")), c.amp_rows);
  EXPECT_EQ(kref::to_u64(got->at("M")), want.m);
  EXPECT_EQ(kref::to_u64(got->at("N")), want.n);
  EXPECT_EQ(kref::to_u64(got->at("K")), want.k);
  EXPECT_EQ(got->at("hash"), hex(want.hash));
  const auto perf = kref::find_line(out.tiles[0].console, "gemm", "macs");
  ASSERT_TRUE(perf) << out.tiles[0].console;
  EXPECT_EQ(kref::to_u64(perf->at("macs")), want.m * want.n * want.k);
}

INSTANTIATE_TEST_SUITE_P(Shapes, KernelsHostGemm,
                         ::testing::Values(GemmCase{1, 16, true}, GemmCase{4, 16, true},
                                           GemmCase{16, 16, true}, GemmCase{6, 8, true},
                                           GemmCase{12, 4, true}, GemmCase{16, 16, false}),
                         [](const auto& info) {
                           return "T" + std::to_string(info.param.tiles) + "R" +
                                  std::to_string(info.param.amp_rows) +
                                  (info.param.small ? "Small" : "Full");
                         });

// Across IPUs (the fake chip's zone 2): every IPU prints the host reference's sum.
struct IpusCase {
  uint32_t tiles, ipus;
};

class KernelsHostIpuAllreduce : public ::testing::TestWithParam<IpusCase> {};

TEST_P(KernelsHostIpuAllreduce, EveryIpuMatchesTheReference) {
  const kfake::ChipConfig chip{.tiles = GetParam().tiles, .ipus = GetParam().ipus};
  const kfake::RunOutcome out = run_clean(chip, ipu_allreduce_main);
  const kref::IpuAllreduceExpect want = kref::ipu_allreduce(chip.tiles, chip.sram_bytes, chip.ipus);
  for (uint32_t i = 0; i < chip.ipus; ++i) {
    const auto got = kref::find_line(out.tiles[i * chip.tiles].console, "ipu_allreduce", "ipu");
    ASSERT_TRUE(got) << "IPU " << i << ": " << out.tiles[i * chip.tiles].console;
    EXPECT_EQ(kref::to_u64(got->at("ipu")), i);
    EXPECT_EQ(got->at("hash"), hex(want.hash)) << "IPU " << i;
  }
}

INSTANTIATE_TEST_SUITE_P(Systems, KernelsHostIpuAllreduce,
                         ::testing::Values(IpusCase{4, 2}, IpusCase{4, 4}, IpusCase{5, 3}, IpusCase{2, 8}),
                         [](const auto& info) {
                           return "T" + std::to_string(info.param.tiles) + "I" + std::to_string(info.param.ipus);
                         });

// The pipeline: both layers' hashes, the step lines, and the idle IPUs' syncs.
class KernelsHostPipeline : public ::testing::TestWithParam<IpusCase> {};

TEST_P(KernelsHostPipeline, BothLayersMatchTheReference) {
  const kfake::ChipConfig chip{.tiles = GetParam().tiles, .ipus = GetParam().ipus};
  const kfake::RunOutcome out = run_clean(chip, pipeline_main);
  const kref::PipelineExpect want = kref::pipeline(chip.tiles, PIPE_DEFAULT_MICRO_BATCHES);
  for (uint32_t i = 0; i < 2; ++i) {
    const std::string& console = out.tiles[i * chip.tiles].console;
    const auto got = kref::find_line(console, "pipeline", "ipu", std::to_string(i));
    ASSERT_TRUE(got) << console;
    EXPECT_EQ(kref::to_u64(got->at("dim")), want.dim);
    EXPECT_EQ(kref::to_u64(got->at("micro_batches")), PIPE_DEFAULT_MICRO_BATCHES);
    EXPECT_EQ(got->at("hash"), hex(i == 0 ? want.hash_y1 : want.hash_y2)) << "IPU " << i;
    size_t steps = 0;
    for (const std::string& line : kref::lines_of(console, "pipeline")) steps += line.rfind("step ", 0) == 0;
    EXPECT_EQ(steps, PIPE_DEFAULT_MICRO_BATCHES + 1u) << "fill, steady state and drain";
  }
  // Per micro-batch: one zone-1 gather on each working IPU, one zone-2 transfer on every
  // IPU; then the hash gather on the working IPUs.
  EXPECT_EQ(out.tiles[0].syncs, 2 * PIPE_DEFAULT_MICRO_BATCHES + 1u);
  EXPECT_EQ(out.tiles[chip.tiles].syncs, 2 * PIPE_DEFAULT_MICRO_BATCHES + 1u);
  for (uint32_t i = 2; i < chip.ipus; ++i) {
    EXPECT_EQ(out.tiles[i * chip.tiles].syncs, PIPE_DEFAULT_MICRO_BATCHES) << "idle IPU " << i;
    EXPECT_EQ(out.tiles[i * chip.tiles].console, "");
  }
}

INSTANTIATE_TEST_SUITE_P(Systems, KernelsHostPipeline,
                         ::testing::Values(IpusCase{1, 2}, IpusCase{4, 2}, IpusCase{5, 4}, IpusCase{16, 2},
                                           IpusCase{70, 2}),
                         [](const auto& info) {
                           return "T" + std::to_string(info.param.tiles) + "I" + std::to_string(info.param.ipus);
                         });

TEST(KernelsHostPipeline, OneIpuIsRefused) {
  const kfake::RunOutcome out = kfake::run({.tiles = 4}, pipeline_main);
  EXPECT_EQ(out.tiles[0].exit_code, 1);
  EXPECT_NE(out.tiles[0].console.find("needs 2 IPUs (has 1)"), std::string::npos) << out.tiles[0].console;
}

TEST(KernelsHostMicrobenchmarks, ExchangePatternsFollowTheRules) {
  const kfake::ChipConfig chip{.tiles = 16};
  const kfake::RunOutcome out = run_clean(chip, mb_exchange_bw_main);
  const auto rows = kref::lines_of(out.tiles[0].console, "mb_exchange_bw");
  // header + pair 4..64 KiB (8) + partner (8) + alltoall 4, 16, 64, 128, 256 (5)
  EXPECT_EQ(rows.size(), 1u + 8 + 8 + 5) << out.tiles[0].console;
  const auto a2a = kref::find_line(out.tiles[0].console, "mb_exchange_bw", "pattern", "alltoall");
  ASSERT_TRUE(a2a);
  EXPECT_EQ(kref::to_u64(a2a->at("messages")), 16u * 15u);
  EXPECT_EQ(kref::to_u64(a2a->at("total_bytes")), 16u * 15u * 4u);
}

TEST(KernelsHostMicrobenchmarks, LatencyAndSyncRun) {
  const kfake::ChipConfig chip{.tiles = 16};
  kfake::RunOutcome out = run_clean(chip, mb_latency_main);
  const auto lat = kref::lines_of(out.tiles[0].console, "mb_latency");
  EXPECT_EQ(lat.size(), 1u + 5) << out.tiles[0].console;  // distances 1 2 4 8 15
  out = run_clean(chip, mb_sync_main);
  EXPECT_TRUE(kref::find_line(out.tiles[0].console, "mb_sync", "zone", "ipu")) << out.tiles[0].console;
  EXPECT_EQ(out.tiles[0].syncs, 1u + 64u + 1u);
}

// The fake chip's own checks: a send without its receive is reported, nothing delivered.
extern "C" int unmatched_send_main(void) {
  static thread_local uint32_t word;
  word = 1;
  ipu_sync(IPU_SYNC_IPU);
  if (ipu_tile_id() == 0) {
    ipu_xdst(1, 1);
    ipu_send(&word, 4);
  }
  ipu_xwait();
  return 0;
}

TEST(KernelsFakeChip, ReportsASendWithoutReceive) {
  const kfake::RunOutcome out = kfake::run({.tiles = 2}, unmatched_send_main);
  ASSERT_EQ(out.errors.size(), 1u);
  EXPECT_NE(out.errors[0].find("tile 0 sends 1 message(s) to tile 1 which receives only 0"),
            std::string::npos)
      << out.errors[0];
}

}  // namespace
