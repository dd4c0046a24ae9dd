// Every chip kernel (firmware/kernels, docs/kernels.md) through the driver's public API:
// load, run to halt, read `kc_result` from tile 0 by symbol, check it against the host
// references (bit-exact hashes) or the config's bounds (microbenchmarks). Also runs split
// into supersteps, run_async, and symbol / address access.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>

#include <ipu/hostif_regs.h>

#include "device_fixture.h"
#include "kernels_ref.h"
#include "config/config_loader.h"

namespace devapi {
namespace {

constexpr uint32_t kMagic = 0x4B524553u;  // KC_RESULT_MAGIC, firmware/kernels/kcommon.h

struct KcResult {
  uint32_t magic, hash, value[6];
};
static_assert(sizeof(KcResult) == 32);

class Kernels : public DeviceApiTest {
 protected:
  // Loads `elf` on every tile of `config`, runs it to halt (exit 0, stats counted) and
  // returns tile 0's kc_result.
  KcResult run_kernel(const std::string& config_path, const std::string& elf_name) {
    chip_ = ipusim::config::load_system(config_path).board.chip;
    dev_ = open(config_path);
    dev_->load(elf(elf_name));
    const ipudrv::RunResult r = dev_->run(0, std::chrono::seconds(60));
    EXPECT_EQ(r.state, ipudrv::RunState::kHalted);
    EXPECT_EQ(r.exit_code, 0);
    EXPECT_GT(r.stats.cycles, 0u);
    EXPECT_GT(r.stats.instructions, 0u);
    EXPECT_GT(r.stats.supersteps, 0u);
    EXPECT_EQ(r.stats.booted_tiles, dev_->info().ipus * dev_->info().tiles_per_ipu);
    result_ = r;
    KcResult k{};
    dev_->read_symbol(0, 0, "kc_result", writable_bytes_of(k));
    EXPECT_EQ(k.magic, kMagic);
    return k;
  }
  // A GEMM build (gemm.elf, gemm_small.elf: `k` deep) against the host reference; the
  // product superstep is part of the run and above half the f16 peak.
  void expect_gemm(const std::string& config_path, const std::string& elf_name, uint32_t k_depth) {
    const KcResult k = run_kernel(config_path, elf_name);
    const auto want = kref::gemm(chip_.tiles, chip_.tile.amp_f16_macs_per_cycle / 4, k_depth);
    EXPECT_EQ(k.hash, want.hash);
    EXPECT_EQ(k.value[0], want.m);
    EXPECT_EQ(k.value[1], want.n);
    EXPECT_GT(k.value[2], 0u);
    EXPECT_LE(k.value[2], result_.stats.cycles) << "product cycles within the run";
    EXPECT_GE(k.value[3], 5000u) << "peak fraction x 10000";
    EXPECT_LE(k.value[3], 10000u);
  }
  void TearDown() override {
    dev_.reset();
    DeviceApiTest::TearDown();
  }
  ipusim::config::ChipConfig chip_;
  std::unique_ptr<ipudrv::Device> dev_;
  ipudrv::RunResult result_;
};

TEST_P(Kernels, AllreduceIsBitExact) {
  const KcResult k = run_kernel("configs/test/tiny16.yaml", "allreduce.elf");
  const auto want = kref::allreduce(chip_.tiles, uint32_t(chip_.tile.sram_bytes));
  EXPECT_EQ(k.hash, want.hash);
  EXPECT_EQ(k.value[0], chip_.tiles);
  EXPECT_EQ(k.value[1], want.chunk);
  EXPECT_EQ(k.value[2], want.elements);
  EXPECT_EQ(k.value[3], 0u) << "tiles disagreeing";
  EXPECT_GT(result_.stats.exchange_bytes, 0u);
}

TEST_P(Kernels, JacobiIsBitExact) {
  const KcResult k = run_kernel("configs/test/tiny16.yaml", "jacobi.elf");
  const auto want = kref::jacobi(chip_.tiles);
  EXPECT_EQ(k.hash, want.hash);
  EXPECT_EQ(k.value[0], want.sum_bits);
  EXPECT_EQ(k.value[1], chip_.tiles);
  EXPECT_GT(k.value[2], 0u);
  EXPECT_LE(k.value[2], result_.stats.cycles);
  EXPECT_EQ(k.value[3], 50u) << "iterations";
  EXPECT_GE(result_.stats.supersteps, 50u);
}

TEST_P(Kernels, GemmIsBitExact) { expect_gemm("configs/test/tiny4.yaml", "gemm.elf", 512); }

TEST_P(Kernels, GemmSmallIsBitExact) { expect_gemm("configs/test/tiny16.yaml", "gemm_small.elf", 64); }

TEST_P(Kernels, ExchangeBandwidthIsWithinThePorts) {
  const KcResult k = run_kernel("configs/test/tiny16.yaml", "mb_exchange_bw.elf");
  EXPECT_EQ(k.hash, 0u);
  EXPECT_EQ(k.value[0], 2u) << "all-to-all";
  EXPECT_GT(k.value[1], 0u);
  EXPECT_GT(k.value[2], 0u);
  // All-to-all: every receive port at most its rate, so tiles x port bytes per cycle.
  const uint64_t limit_milli = uint64_t(chip_.tiles) * chip_.tile.exchange_in_bytes_per_cycle * 1000;
  EXPECT_GT(k.value[3], 0u);
  EXPECT_LE(k.value[3], limit_milli);
  // bytes/cycle = (messages x bytes) / cycles, messages = T (T - 1).
  const uint64_t total = uint64_t(chip_.tiles) * (chip_.tiles - 1) * k.value[1];
  EXPECT_EQ(k.value[3], uint32_t(total * 1000 / k.value[2]));
}

TEST_P(Kernels, LatencyIsWithinTheFabricsBounds) {
  const KcResult k = run_kernel("configs/test/tiny16.yaml", "mb_latency.elf");
  EXPECT_EQ(k.hash, 0u);
  EXPECT_EQ(k.value[0], 5u) << "distances 1 2 4 8 15";
  // One way = the fabric's latency (min for the nearest, max for the farthest) plus the
  // send / receive instructions around it (at least 13 cycles; kernels_run_test).
  const uint32_t lo = chip_.exchange.latency_min_cycles, hi = chip_.exchange.latency_max_cycles;
  EXPECT_GE(k.value[1], lo + 13);
  EXPECT_LT(k.value[1], hi) << "the nearest tile is faster than the farthest's fabric latency";
  EXPECT_GE(k.value[2], hi + 13);
  EXPECT_LT(k.value[2], 2 * hi + 13) << "the farthest tile costs little more than the fabric's latency";
  std::printf("mb_latency: nearest %u farthest %u cycles (fabric %u..%u)\n", k.value[1], k.value[2], lo, hi);
  EXPECT_EQ(k.value[3], chip_.tiles);
}

TEST_P(Kernels, SyncStallIsTheControllersLatency) {
  const KcResult k = run_kernel("configs/test/tiny16.yaml", "mb_sync.elf");
  EXPECT_EQ(k.hash, 0u);
  const uint32_t max = chip_.sync.latency_max_cycles * 100;
  EXPECT_EQ(k.value[0], max) << "mean";
  EXPECT_EQ(k.value[1], max) << "min";
  EXPECT_EQ(k.value[2], max) << "max";
  EXPECT_GT(k.value[3], max) << "period";
}

// run(1) until halted: the same kc_result and cycle count as one run(0) (determinism
// across superstep boundaries the host stops at).
TEST_P(Kernels, SuperstepSplitRunMatchesOneRun) {
  const KcResult whole = run_kernel("configs/test/tiny4.yaml", "jacobi.elf");
  const ipudrv::RunResult once = result_;
  dev_->load(elf("jacobi.elf"));
  ipudrv::RunResult r;
  uint32_t runs = 0;
  do {
    r = dev_->run(1, std::chrono::seconds(30));
    ++runs;
    if (r.state == ipudrv::RunState::kPaused) {
      EXPECT_EQ(r.stats.supersteps, runs - 1) << "a held release counts when the next RUN releases it";
      EXPECT_EQ(dev_->state(), IPU_STATE_PAUSED);
    }
  } while (r.state == ipudrv::RunState::kPaused && runs < 10000);
  ASSERT_EQ(r.state, ipudrv::RunState::kHalted);
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_GE(runs, once.stats.supersteps);
  EXPECT_EQ(r.stats.supersteps, once.stats.supersteps);
  EXPECT_EQ(r.stats.cycles, once.stats.cycles);
  EXPECT_EQ(r.stats.instructions, once.stats.instructions);
  EXPECT_EQ(r.stats.exchange_bytes, once.stats.exchange_bytes);
  KcResult split{};
  dev_->read_symbol(0, 0, "kc_result", writable_bytes_of(split));
  EXPECT_EQ(std::memcmp(&split, &whole, sizeof split), 0);
}

TEST_P(Kernels, RunAsyncGivesTheSameResult) {
  const KcResult whole = run_kernel("configs/test/tiny4.yaml", "allreduce.elf");
  dev_->load(elf("allreduce.elf"));
  std::future<ipudrv::RunResult> f = dev_->run_async();
  // While the run is in flight, calls other than stats / state / abort are refused.
  KcResult busy{};
  try {
    dev_->read_symbol(0, 0, "kc_result", writable_bytes_of(busy));
    // The run may already have finished; then the read is legal.
  } catch (const ipudrv::UsageError&) {
  }
  (void)dev_->stats();
  ASSERT_EQ(f.wait_for(std::chrono::seconds(60)), std::future_status::ready);
  const ipudrv::RunResult r = f.get();
  EXPECT_EQ(r.state, ipudrv::RunState::kHalted);
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.stats.cycles, result_.stats.cycles);
  KcResult again{};
  dev_->read_symbol(0, 0, "kc_result", writable_bytes_of(again));
  EXPECT_EQ(std::memcmp(&again, &whole, sizeof again), 0);
}

// write_symbol / read_symbol / read_tile by address reach the same bytes. kc_result is
// .bss, which crt0 clears: host bytes written before the run are gone after it on every
// tile, and only tile 0 reports.
TEST_P(Kernels, SymbolsAndAddressesReachTheSameBytes) {
  dev_ = open("configs/test/tiny4.yaml");
  const ipudrv::Elf e = elf("allreduce.elf");
  dev_->load(e);
  const uint32_t addr = dev_->symbol_address(0, 3, "kc_result");
  EXPECT_EQ(addr, e.symbol("kc_result").value());
  const KcResult mark{0x11111111u, 0x22222222u, {3, 4, 5, 6, 7, 8}};
  dev_->write_symbol(0, 3, "kc_result", bytes_of(mark));
  KcResult got{};
  dev_->read_tile(0, 3, addr, writable_bytes_of(got));
  EXPECT_EQ(std::memcmp(&got, &mark, sizeof mark), 0);
  dev_->read_tile(0, 2, addr, writable_bytes_of(got));
  EXPECT_EQ(got.magic, 0u) << "the write reached tile 3 only";

  EXPECT_EQ(dev_->run(0, std::chrono::seconds(60)).exit_code, 0);
  dev_->read_symbol(0, 3, "kc_result", writable_bytes_of(got));
  // crt0 leaves .bss as the loader and the host left it, and tile 3 does not report: a
  // host's write before the run survives it (how kernels take parameters).
  EXPECT_EQ(std::memcmp(&got, &mark, sizeof mark), 0) << "the host's write before the run was lost";
  dev_->read_symbol(0, 0, "kc_result", writable_bytes_of(got));
  EXPECT_EQ(got.magic, kMagic);

  // After the run (HALTED), SRAM is still the host's to read and write.
  const KcResult mark2{0x33333333u, 0x44444444u, {9, 10, 11, 12, 13, 14}};
  dev_->write_tile(0, 1, addr, bytes_of(mark2));
  dev_->read_symbol(0, 1, "kc_result", writable_bytes_of(got));
  EXPECT_EQ(std::memcmp(&got, &mark2, sizeof mark2), 0);
  // A broadcast write reaches every tile of the range, by symbol address.
  dev_->write_tiles({0, 0, 4}, addr, bytes_of(mark));
  for (uint32_t t = 0; t < 4; ++t) {
    dev_->read_tile(0, t, addr, writable_bytes_of(got));
    EXPECT_EQ(std::memcmp(&got, &mark, sizeof mark), 0) << "tile " << t;
  }
}

DEVAPI_TRANSPORTS(Kernels);

}  // namespace
}  // namespace devapi
