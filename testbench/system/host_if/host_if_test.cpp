// The device through its DeviceLink: identity, boot by DMA + BOOT, runs to the end and in
// supersteps (cycles equal to an unsplit run), results by DMA, interrupts, reset mid-run
// and reuse, sessions. Every case its own process.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <cstdio>
#include <memory>
#include <cstring>

#include "host_if/model_session.h"
#include "iss/program.h"
#include "config/config_loader.h"
#include "sim_fixture.h"
#include "test_host.h"
#include "test_program.h"
#include "test_system.h"

namespace ipusim::test {
namespace {

using host_if::ModelSession;
using host_if::ModelOptions;
using host_if::ModelUnavailable;

#ifdef IPUSIM_FIRMWARE_DIR
std::shared_ptr<const iss::Program> firmware(const std::string& name) {
  return iss::Program::load(std::string(IPUSIM_FIRMWARE_DIR) + "/" + name);
}
#endif

TEST(HostIf, IdentityRegistersComeFromTheConfig) {
  const config::SystemConfig m2000 = config::load_system("configs/m2000.yaml");
  auto sys = ModelSession::open(m2000, quiet());
  ASSERT_EQ(sys->boards(), m2000.boards);
  TestHost host(sys->link(0));
  EXPECT_EQ(host.reg(IPU_REG_ID), IPU_ID_MAGIC);
  EXPECT_EQ(host.reg(IPU_REG_VERSION) >> IPU_VERSION_MAJOR_SHIFT, IPU_VERSION_MAJOR);
  EXPECT_EQ(host.reg(IPU_REG_BOARD_INDEX), 0u);
  EXPECT_EQ(host.reg(IPU_REG_IPUS), m2000.board.ipus);
  EXPECT_EQ(host.reg(IPU_REG_TILES_PER_IPU), m2000.board.chip.tiles);
  EXPECT_EQ(host.reg(IPU_REG_SRAM_BYTES), m2000.board.chip.tile.sram_bytes);
  EXPECT_EQ(host.reg(IPU_REG_TILE_CLOCK_KHZ), uint32_t(m2000.board.chip.clock_hz / 1e3 + 0.5));
  EXPECT_EQ(host.reg(IPU_REG_HOST_LINK_MBPS), uint32_t(m2000.board.host_link_bytes_per_second / 1e6 + 0.5));
  EXPECT_EQ(host.reg(IPU_REG_WORKERS), m2000.board.chip.tile.workers);
  EXPECT_EQ(host.reg(IPU_REG_SYSTEM_IPUS), m2000.total_ipus());
  EXPECT_EQ(host.reg64(IPU_REG_SMEM_SIZE_LO), m2000.board.streaming_memory_bytes);
  EXPECT_EQ(host.reg(IPU_REG_CAPS), IPU_CAPS_SMEM_MASK | IPU_CAPS_STREAMS_MASK);
  EXPECT_EQ(host.reg(IPU_REG_STREAM_FIFO_BYTES), uint32_t(IPU_XFER_MAX));
  EXPECT_GT(m2000.board.chip.tile.amp_f16_macs_per_cycle, 0u);
  EXPECT_EQ(host.reg(IPU_REG_AMP_F16_MACS), m2000.board.chip.tile.amp_f16_macs_per_cycle);
  EXPECT_EQ(host.reg(IPU_REG_AMP_F32_MACS), m2000.board.chip.tile.amp_f32_macs_per_cycle);
  for (uint32_t id = 0; id < IPU_STREAMS; ++id) {
    EXPECT_EQ(host.reg(IPU_WIN_STREAM_H2D_LEVEL + 4 * id), 0u);
    EXPECT_EQ(host.reg(IPU_WIN_STREAM_D2H_LEVEL + 4 * id), 0u);
  }
  EXPECT_EQ(host.reg(IPU_REG_ERR_CODE), IPU_ERR_NONE);  // the windows are readable
  EXPECT_EQ(host.state(), IPU_STATE_IDLE);
  EXPECT_EQ(host.reg(IPU_REG_ERR_CODE), IPU_ERR_NONE);
  EXPECT_EQ(host.reg(IPU_REG_BOOTED_TILES), 0u);
  EXPECT_THROW(sys->link(m2000.boards), std::out_of_range);
}

TEST(HostIf, ReopenSameConfigReusesTheModelAndADifferentOneThrows) {
  {
    auto sys = ModelSession::open(tiny4(), quiet());
    EXPECT_THROW(ModelSession::open(tiny4(), quiet()), ModelUnavailable);  // already open
    TestHost host(sys->link(0));
    uint32_t v = 0x12345678;
    host.write_tiles(0, 0, 1, iss::kSramBase, &v, 4);
  }
  {
    auto sys = ModelSession::open(tiny4(), quiet());
    TestHost host(sys->link(0));
    EXPECT_EQ(host.state(), IPU_STATE_IDLE);
    // Closing reset the board: SRAM is zero again.
    EXPECT_EQ(host.read_tile(0, 0, iss::kSramBase, 4), std::vector<uint8_t>(4, 0));
  }
  try {
    ModelSession::open(config::load_system("configs/test/tile1.yaml"), quiet());
    FAIL() << "a second config must not elaborate";
  } catch (const ModelUnavailable& e) {  // the driver runs it in an `ipusim serve` child
    EXPECT_NE(std::string(e.what()).find("elaborates once per process"), std::string::npos) << e.what();
  }
}

TEST(HostIf, DmaBroadcastWritesEveryTileAndReadsBack) {
  auto sys = ModelSession::open(tiny4(), quiet());
  TestHost host(sys->link(0));
  std::vector<uint8_t> bytes(10000);
  for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = uint8_t(i * 7 + 3);
  host.write_tiles(0, 1, 3, iss::kSramBase + 0x100, bytes.data(), uint32_t(bytes.size()));
  for (uint32_t t = 1; t < 4; ++t) EXPECT_EQ(host.read_tile(0, t, iss::kSramBase + 0x100, 10000), bytes) << "tile " << t;
  EXPECT_EQ(host.read_tile(0, 0, iss::kSramBase + 0x100, 16), std::vector<uint8_t>(16, 0));  // not in the range
  EXPECT_EQ(host.reg(IPU_REG_ERR_CODE), IPU_ERR_NONE);
  EXPECT_EQ(host.reg(IPU_REG_DMA0_STATUS), 0u);
}

#ifdef IPUSIM_FIRMWARE_DIR
TEST(HostIf, HelloBootsByDmaAndHalts) {
  CapturedFile console;
  ModelOptions o;
  o.console = console.file();
  auto sys = ModelSession::open(tiny4(), o);
  TestHost host(sys->link(0));
  host.load(*firmware("hello.elf"), 0, 0, 4);
  EXPECT_EQ(host.state(), IPU_STATE_READY);
  EXPECT_EQ(host.run(), IPU_STATE_HALTED) << host.err_text();
  EXPECT_EQ(host.reg(IPU_REG_EXIT_CODE), 0u);
  EXPECT_EQ(host.reg(IPU_REG_BOOTED_TILES), 4u);
  EXPECT_GT(host.reg64(IPU_REG_CYCLES_LO), 0u);
  EXPECT_GT(host.reg64(IPU_REG_INSTRET_LO), 0u);
  sys->wait_idle();
  const std::string text = console.text();
  for (int t = 0; t < 4; ++t)
    EXPECT_NE(text.find("[ipu 0 tile " + std::to_string(t) + "]"), std::string::npos) << text;
  // A second RUN of a halted board is refused.
  host.set(IPU_REG_CTRL, IPU_CTRL_RUN_MASK);
  EXPECT_TRUE(TestHost::wait_for([&] { return host.reg(IPU_REG_ERR_CODE) == IPU_ERR_STATE; }, 5));
}

// The device's own console on a full device: the run still halts (the host's run is the
// host's to end), and stderr says once what was lost and why.
TEST(HostIf, AConsoleThatCannotBeWrittenIsSaidOnStderr) {
  // Outlives the session, which writes to it.
  const std::unique_ptr<std::FILE, int (*)(std::FILE*)> full(std::fopen("/dev/full", "w"), &std::fclose);
  ASSERT_NE(full, nullptr);
  ModelOptions o;
  o.console = full.get();
  auto sys = ModelSession::open(tiny4(), o);
  TestHost host(sys->link(0));
  host.load(*firmware("hello.elf"), 0, 0, 4);
  testing::internal::CaptureStderr();
  const uint32_t state = host.run();
  sys->wait_idle();
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_EQ(state, IPU_STATE_HALTED) << host.err_text();
  EXPECT_NE(err.find("ipusim: error: console: writing the device's console failed: No space left on device"),
            std::string::npos)
      << err;
  EXPECT_EQ(err.find("failed", err.find("failed") + 1), std::string::npos) << "said more than once: " << err;
}

TEST(HostIf, VecaddResultsReadByDma) {
  auto sys = ModelSession::open(tiny4(), quiet());
  TestHost host(sys->link(0));
  auto prog = firmware("vecadd.elf");
  host.load(*prog, 0, 0, 4);
  ASSERT_EQ(host.run(), IPU_STATE_HALTED) << host.err_text();
  EXPECT_EQ(host.reg(IPU_REG_EXIT_CODE), 0u);
  const uint32_t c = prog->symbol("c").value();
  for (uint32_t t = 0; t < 4; ++t) {
    const std::vector<uint8_t> bytes = host.read_tile(0, t, c, 1536 * 4);
    for (unsigned i = 0; i < 1536; i += 97) {
      float v;
      std::memcpy(&v, bytes.data() + i * 4, 4);
      EXPECT_EQ(v, float(i) * 0.5f + (1000.0f - float(i) * 0.25f)) << "tile " << t << " c[" << i << "]";
    }
  }
}

// A run in pieces of one superstep gives the cycles, instructions, exchange bytes,
// console and SRAM of one unsplit run (gtest ASSERTs in a helper return from it alone).
void superstep_runs_equal_an_unsplit_run(unsigned host_threads) {
  CapturedFile console;
  ModelOptions o;
  o.console = console.file();
  o.host_threads = host_threads;
  auto sys = ModelSession::open(tiny4(), o);
  TestHost host(sys->link(0));
  auto prog = firmware("jacobi.elf");
  struct Result {
    uint64_t cycles, instret, exchange_bytes, supersteps;
    std::vector<uint8_t> sram;
    std::string console;
  };
  auto finish = [&] {
    Result r;
    r.cycles = host.reg64(IPU_REG_CYCLES_LO);
    r.instret = host.reg64(IPU_REG_INSTRET_LO);
    r.exchange_bytes = host.reg64(IPU_REG_EXCHANGE_BYTES_LO);
    r.supersteps = host.reg(IPU_REG_SUPERSTEPS);
    for (uint32_t t = 0; t < 4; ++t) {
      auto b = host.read_tile(0, t, iss::kSramBase, 64 * 1024);
      r.sram.insert(r.sram.end(), b.begin(), b.end());
    }
    sys->wait_idle();
    r.console = console.text();
    return r;
  };
  host.load(*prog, 0, 0, 4);
  ASSERT_EQ(host.run(0), IPU_STATE_HALTED) << host.err_text();
  const Result whole = finish();
  ASSERT_GT(whole.supersteps, 10u);
  ASSERT_GT(whole.exchange_bytes, 0u);

  host.reset();
  ASSERT_TRUE(TestHost::wait_for([&] { return host.state() == IPU_STATE_IDLE; }));
  host.load(*prog, 0, 0, 4);
  uint32_t pauses = 0;
  uint32_t st;
  while ((st = host.run(1)) == IPU_STATE_PAUSED) {
    ++pauses;
    ASSERT_EQ(host.reg(IPU_REG_SUPERSTEPS), pauses - 1) << "held release not counted yet";
    ASSERT_LT(pauses, 10000u);
  }
  ASSERT_EQ(st, IPU_STATE_HALTED) << host.err_text();
  const Result split = finish();
  std::printf("jacobi on tiny4, %u host thread(s): %llu supersteps, %llu cycles, %llu instructions, %llu exchange "
              "bytes; split into %u runs\n",
              host_threads, (unsigned long long)whole.supersteps, (unsigned long long)whole.cycles,
              (unsigned long long)whole.instret, (unsigned long long)whole.exchange_bytes, pauses + 1);
  EXPECT_EQ(pauses, whole.supersteps);
  EXPECT_EQ(split.cycles, whole.cycles);
  EXPECT_EQ(split.instret, whole.instret);
  EXPECT_EQ(split.exchange_bytes, whole.exchange_bytes);
  EXPECT_EQ(split.supersteps, whole.supersteps);
  EXPECT_TRUE(split.sram == whole.sram);
  // The console of the split run is the unsplit run's again.
  ASSERT_EQ(split.console.size(), 2 * whole.console.size());
  EXPECT_EQ(split.console.substr(whole.console.size()), whole.console);
}

TEST(HostIf, SuperstepRunsEqualAnUnsplitRun) { superstep_runs_equal_an_unsplit_run(1); }
TEST(HostIf, SuperstepRunsEqualAnUnsplitRunOnTwoHostThreads) { superstep_runs_equal_an_unsplit_run(2); }
#endif

// An endless BSP loop (sync, repeat) is stopped by RESET between supersteps, and the board
// is usable again at once.
TEST(HostIf, ResetMidRunThenReuse) {
  auto sys = ModelSession::open(tiny4(), quiet());
  TestHost host(sys->link(0));
  auto forever = forever_sync_loop();
  host.load(*forever, 0, 0, 4);
  host.set(IPU_REG_RUN_SUPERSTEPS, 0);
  host.set(IPU_REG_CTRL, IPU_CTRL_RUN_MASK);
  ASSERT_TRUE(TestHost::wait_for([&] { return host.reg(IPU_REG_SUPERSTEPS) > 100; }, 30)) << "the loop does not run";
  EXPECT_EQ(host.state(), IPU_STATE_RUNNING);
  host.reset();
  EXPECT_EQ(host.state(), IPU_STATE_IDLE);  // at once
  sys->wait_idle();                         // the model took it (between batches)
  EXPECT_EQ(host.reg(IPU_REG_BOOTED_TILES), 0u);
  EXPECT_EQ(host.reg(IPU_REG_SUPERSTEPS), 0u);
  EXPECT_EQ(host.read_tile(0, 2, iss::kSramBase, 8), std::vector<uint8_t>(8, 0));  // SRAM zeroed

  Asm b;
  b.li(a0, 7);
  b.halt(a0);
  host.load(*program(b, "seven.elf"), 0, 0, 2);
  EXPECT_EQ(host.run(), IPU_STATE_HALTED) << host.err_text();
  EXPECT_EQ(host.reg(IPU_REG_EXIT_CODE), 7u);
  EXPECT_EQ(host.reg(IPU_REG_BOOTED_TILES), 2u);
}

TEST(HostIf, AbortMidRunIsAnError) {
  auto sys = ModelSession::open(tiny4(), quiet());
  TestHost host(sys->link(0));
  host.load(*forever_sync_loop(), 0, 0, 4);
  host.set(IPU_REG_CTRL, IPU_CTRL_RUN_MASK);
  ASSERT_TRUE(TestHost::wait_for([&] { return host.reg(IPU_REG_SUPERSTEPS) > 10; }, 30));
  host.set(IPU_REG_CTRL, IPU_CTRL_ABORT_MASK);
  ASSERT_TRUE(TestHost::wait_for([&] { return host.state() == IPU_STATE_ERROR; }, 10));
  EXPECT_EQ(host.reg(IPU_REG_ERR_CODE), IPU_ERR_STATE);
  EXPECT_NE(host.err_text().find("aborted"), std::string::npos) << host.err_text();
  const uint32_t steps = host.reg(IPU_REG_SUPERSTEPS);
  sys->wait_idle();
  EXPECT_EQ(host.reg(IPU_REG_SUPERSTEPS), steps);  // frozen
}

TEST(HostIf, InterruptsAreDeliveredForEnabledCauses) {
  auto sys = ModelSession::open(tiny4(), quiet());
  TestHost host(sys->link(0));
  std::atomic<int> calls{0};
  sys->link(0).set_interrupt_handler([&] { ++calls; });
  host.set(IPU_REG_IRQ_MASK, IPU_IRQ_STATUS_RUN_DONE_MASK | IPU_IRQ_STATUS_DMA0_MASK);
  // A descriptor with the IRQ flag raises DMA0; one without raises nothing.
  uint32_t v = 1;
  std::memcpy(host.data(), &v, 4);
  auto d = TestHost::tile_desc(host.data_bus(), iss::kSramBase, 4, 0, 0);
  ASSERT_EQ(host.wait_desc(0, host.post(0, d)), IPU_DESC_STATUS_OK);
  sys->wait_idle();
  EXPECT_EQ(calls.load(), 0);
  EXPECT_EQ(host.reg(IPU_REG_IRQ_STATUS), 0u);
  d.flags = IPU_DESC_FLAG_IRQ;
  ASSERT_EQ(host.wait_desc(0, host.post(0, d)), IPU_DESC_STATUS_OK);
  ASSERT_TRUE(TestHost::wait_for([&] { return calls.load() == 1; }, 5));
  EXPECT_EQ(host.reg(IPU_REG_IRQ_STATUS), IPU_IRQ_STATUS_DMA0_MASK);
  host.set(IPU_REG_IRQ_STATUS, IPU_IRQ_STATUS_DMA0_MASK);  // w1c
  EXPECT_EQ(host.reg(IPU_REG_IRQ_STATUS), 0u);

  Asm a;
  a.li(a0, 0);
  a.halt(a0);
  host.load(*program(a, "halt.elf"), 0, 0, 1);
  EXPECT_EQ(host.run(), IPU_STATE_HALTED);
  ASSERT_TRUE(TestHost::wait_for([&] { return calls.load() >= 2; }, 5));
  EXPECT_TRUE(host.reg(IPU_REG_IRQ_STATUS) & IPU_IRQ_STATUS_RUN_DONE_MASK);
  // ERROR is raised but masked: the status shows it, no interrupt.
  const int before = calls.load();
  host.set(IPU_REG_CTRL, IPU_CTRL_RUN_MASK);  // HALTED: refused
  ASSERT_TRUE(TestHost::wait_for([&] { return host.reg(IPU_REG_IRQ_STATUS) & IPU_IRQ_STATUS_ERROR_MASK; }, 5));
  sys->wait_idle();
  EXPECT_EQ(calls.load(), before);
}

// The boards of a system are one run domain: a run starts when every board has written
// CTRL.RUN (zone 2 spans the boards), STATE is the same on every board, and a RESET or an
// ABORT written to one board acts on all; errors name system IPUs on every board.
TEST(HostIf, BoardsRunAsOneDomain) {
  config::SystemConfig two = small_system(4, 2);
  two.boards = 2;
  two.kind = "system";
  two.system_name = "test4x2x2";
  two.system_links = two.board.links;
  two.system_links.push_back({2, 1, 3, 0});  // board 1's IPUs, as board 0's
  two.system_links.push_back({1, 1, 2, 0});  // and a link between the boards: IPU 1 - IPU 2
  auto sys = ModelSession::open(two, quiet());
  ASSERT_EQ(sys->boards(), 2u);
  TestHost b0(sys->link(0)), b1(sys->link(1));
  EXPECT_EQ(b1.reg(IPU_REG_BOARD_INDEX), 1u);
  EXPECT_EQ(b1.reg(IPU_REG_SYSTEM_IPUS), 4u);
  auto halting = [](uint32_t code) {
    Asm a;
    a.li(t0, 2);  // a zone-2 (group) sync: every IPU of the system that runs a program
    a.sync(t0);
    a.li(a0, code);
    a.halt(a0);
    return program(a, "halt" + std::to_string(code) + ".elf");
  };
  b0.load(*halting(3), 0, 0, 4);
  EXPECT_EQ(b1.state(), IPU_STATE_READY) << "a BOOT on one board makes the domain READY";
  b1.load(*halting(5), 1, 2, 1);
  // Board 0 alone: RUNNING, and nothing runs until board 1 joins.
  b0.set(IPU_REG_CTRL, IPU_CTRL_RUN_MASK);
  EXPECT_EQ(b0.state(), IPU_STATE_RUNNING);
  EXPECT_EQ(b1.state(), IPU_STATE_RUNNING);
  sys->wait_idle();
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_EQ(b0.state(), IPU_STATE_RUNNING);
  EXPECT_EQ(b0.reg64(IPU_REG_CYCLES_LO), 0u) << "the run has not started";
  b0.set(IPU_REG_CTRL, IPU_CTRL_RUN_MASK);  // twice before the others: refused on this board
  ASSERT_TRUE(TestHost::wait_for([&] { return b0.reg(IPU_REG_ERR_CODE) == IPU_ERR_STATE; }, 5));
  EXPECT_EQ(b1.reg(IPU_REG_ERR_CODE), IPU_ERR_NONE);
  EXPECT_EQ(b1.run(), IPU_STATE_HALTED) << b1.err_text();
  EXPECT_EQ(b0.state(), IPU_STATE_HALTED);
  EXPECT_TRUE(b0.reg(IPU_REG_IRQ_STATUS) & IPU_IRQ_STATUS_RUN_DONE_MASK);
  EXPECT_EQ(b0.reg(IPU_REG_EXIT_CODE), 3u);
  EXPECT_EQ(b1.reg(IPU_REG_EXIT_CODE), 5u);
  EXPECT_EQ(b0.reg(IPU_REG_BOOTED_TILES), 4u) << "statistics stay per board";
  EXPECT_EQ(b1.reg(IPU_REG_BOOTED_TILES), 1u);
  EXPECT_EQ(b0.reg(IPU_REG_SUPERSTEPS), 1u);
  EXPECT_EQ(b1.reg(IPU_REG_SUPERSTEPS), 1u) << "one zone-2 sync across both boards";

  // A RESET written to board 1 resets board 0 too.
  b1.reset();
  b0.setup_ring(0);
  b0.setup_ring(1);
  EXPECT_EQ(b0.state(), IPU_STATE_IDLE);
  EXPECT_EQ(b0.reg(IPU_REG_ERR_CODE), IPU_ERR_NONE);
  sys->wait_idle();
  EXPECT_EQ(b0.reg(IPU_REG_BOOTED_TILES), 0u);

  // An ABORT before every board joined ends the run on every board.
  b0.load(*halting(4), 0, 0, 4);
  b1.set(IPU_REG_CTRL, IPU_CTRL_RUN_MASK);
  b0.set(IPU_REG_CTRL, IPU_CTRL_ABORT_MASK);
  EXPECT_EQ(b1.state(), IPU_STATE_ERROR);
  EXPECT_NE(b0.err_text().find("aborted"), std::string::npos) << b0.err_text();
  EXPECT_NE(b1.err_text().find("aborted"), std::string::npos) << b1.err_text();
  ASSERT_TRUE(TestHost::wait_for([&] { return b1.reg(IPU_REG_IRQ_STATUS) & IPU_IRQ_STATUS_RUN_DONE_MASK; }, 5));

  // An ABORT written to board 1 stops a run of board 0's tiles (which loop forever).
  b0.reset();
  b1.setup_ring(0);
  b1.setup_ring(1);
  b0.load(*forever_sync_loop(), 0, 0, 4);
  b0.set(IPU_REG_CTRL, IPU_CTRL_RUN_MASK);
  b1.set(IPU_REG_CTRL, IPU_CTRL_RUN_MASK);
  ASSERT_TRUE(TestHost::wait_for([&] { return b0.reg(IPU_REG_SUPERSTEPS) > 10; }, 10)) << "it runs";
  b1.set(IPU_REG_CTRL, IPU_CTRL_ABORT_MASK);
  EXPECT_TRUE(TestHost::wait_for([&] { return b0.state() == IPU_STATE_ERROR; }, 10));
  EXPECT_EQ(b0.reg(IPU_REG_ERR_CODE), IPU_ERR_STATE);
  EXPECT_EQ(b1.reg(IPU_REG_ERR_CODE), IPU_ERR_STATE);
}

}  // namespace
}  // namespace ipusim::test
