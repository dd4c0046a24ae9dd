// Streaming memory and host streams through the Platform, in process (one elaboration per
// process: one test per process): the memory's contents after the round-trip firmware,
// the structured failure the device model reads (ERR_CODE / TILE / PC / ADDR), the timing
// an exchange phase's copy adds to its tile, and a host stream served before the run or
// never (the run stops naming the stream).
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <ipu/hostif_regs.h>

#include "iss/program.h"
#include "config/config_loader.h"
#include "platform/platform.h"
#include "smem_plan.h"
#include "test_system.h"

namespace ipusim {
namespace {

using platform::Platform;
using test::Asm;
using namespace test;

const std::string kFirmware = std::string(IPUSIM_FIRMWARE_DIR) + "/streaming/";

Platform& make_platform(const std::string& config, bool host = true) {
  const config::SystemConfig system = config::load_system(config);
  platform::PlatformOptions options;
  options.console_out = nullptr;
  options.host_threads = 2;
  Platform& p = *new Platform(system, options);  // one per process; left to the OS
  // The test serves the streams itself, as a host interface would.
  for (uint32_t b = 0; b < system.boards; ++b) p.gateway(b).set_host_connected(host);
  return p;
}

TEST(StreamingPlatform, MemoryHoldsEveryTilesLastRound) {
  Platform& p = make_platform("configs/test/tiny16_smem.yaml");
  p.load(iss::Program::load(kFirmware + "smem_rw3.elf"));
  const platform::RunResult r = p.run();
  ASSERT_FALSE(r.end.fault() || r.end.deadlock() || !r.end.exchange_errors().empty());
  EXPECT_EQ(r.exit_status(), 0);
  const smemplan::Plan plan{77, 3};
  const streaming::Gateway& g = p.gateway(0);
  for (uint32_t t = 0; t < 16; ++t)
    for (uint32_t k = 0; k < 3; ++k) {
      std::vector<uint32_t> words(plan.words(t, 2, k));
      ASSERT_EQ(g.read_smem(plan.offset(t, 2, k),
                            std::span(reinterpret_cast<uint8_t*>(words.data()), words.size() * 4)),
                IPU_ERR_NONE);
      for (uint32_t i = 0; i < words.size(); ++i) ASSERT_EQ(words[i], plan.word(t, 2, k, i)) << t << " " << k << " " << i;
    }
  EXPECT_EQ(g.smem_copies(), 16u * 3 * 3 * 2);
  EXPECT_EQ(r.streaming_copies, 16u * 3 * 3 * 2);
}

// Tile 1 reads beyond the memory; tiles 0, 2, 3 write in the same phase: nothing moves,
// and the failure names tile 1, its pc and the offset with IPU_ERR_SMEM_RANGE.
TEST(StreamingPlatform, FailureIsStructuredAndNothingMoves) {
  Platform& p = make_platform("configs/test/tiny4x2_smem.yaml");
  p.load(iss::Program::load(kFirmware + "smem_error1.elf"));
  const platform::RunResult r = p.run();
  ASSERT_EQ(r.end.exchange_errors().size(), 1u);
  const Problem& f = r.end.exchange_errors()[0];
  EXPECT_EQ(f.code, ProblemCode::SmemRange);
  EXPECT_EQ(f.kind, "beyond streaming memory");
  EXPECT_EQ(f.ipu, 0u);
  EXPECT_EQ(f.tile, 1u);
  EXPECT_EQ(f.thread, 0u);
  EXPECT_NE(f.pc, Problem::kNone);
  EXPECT_EQ(f.address, 0x8ffffffc0ull);
  EXPECT_TRUE(f.cycle);
  // Located at the platform edge: the inlined Xipu wrapper the copy was posted by.
  EXPECT_EQ(f.function, "ipu_smread");
  EXPECT_EQ(f.source.rfind("ipu/xipu.h:", 0), 0u) << f.source;
  const std::string text = ipusim::to_text(f);
  EXPECT_EQ(text.rfind(fmt::format("tile 1 (ipu 0) thread 0 pc 0x{:08x} in {} ({}): smread", f.pc, f.function, f.source), 0),
            0u)
      << text;
  EXPECT_EQ(p.gateway(0).memory().pages_allocated(), 0u);  // the other tiles' writes did not land
  EXPECT_EQ(p.gateway(0).smem_copies(), 0u);
}

// One tile, one smwrite of 4096 bytes: tiny16 runs at 100 MHz with 4 B/cycle ports
// (0.4 GB/s, slower than the gateway's 20 GB/s): 1024 cycles on the port + 500 ns (50
// cycles) latency = an exchange stall of exactly 1074 cycles. Two copies: twice the port.
TEST(StreamingPlatform, CopyTimeIsTheTilesExchangeStall) {
  Platform& p = make_platform("configs/test/tiny16_smem.yaml");
  Asm a;
  const uint32_t buf = a.bytes(std::string(4096, 'x'));
  a.addi(t0, zero, 1);
  a.sync(t0);
  a.li(a0, 0x2000);
  a.smaddr(a0, zero);  // 0x2000
  a.li(a1, buf);
  a.li(a2, 4096);
  a.smwrite(a1, a2);
  a.xwait();
  a.addi(t0, zero, 1);
  a.sync(t0);
  a.li(a0, 0x10000);
  a.smaddr(a0, zero);
  a.smwrite(a1, a2);
  a.smread(a1, a2);  // the same 4096 bytes back from 0x10000 (old: zeros)
  a.xwait();
  a.halt(zero);
  p.load(program(a), platform::TileSelection::parse("0", 16));
  const platform::RunResult r = p.run();
  ASSERT_FALSE(r.end.fault() || r.end.deadlock() || !r.end.exchange_errors().empty()) << r.end.exchange_errors().size();
  ASSERT_EQ(r.tiles.size(), 1u);
  EXPECT_EQ(r.tiles[0].exchanges, 2u);
  EXPECT_EQ(r.tiles[0].exchange_stall_cycles, 1074u + (2048u + 50u));
  // The read saw the memory as the phase found it: zeros, now in the tile's buffer.
  std::vector<uint8_t> back(4096, 1);
  ASSERT_TRUE(p.ipu(0).tile(0).core()->read(buf, back));
  EXPECT_EQ(back, std::vector<uint8_t>(4096, 0));
  std::vector<uint8_t> mem(4096);
  ASSERT_EQ(p.gateway(0).read_smem(0x2000, mem), IPU_ERR_NONE);
  EXPECT_EQ(mem, std::vector<uint8_t>(4096, 'x'));
}

Asm stream_reader(uint32_t& buf) {
  Asm a;
  buf = a.bytes(std::string(64, '\0'));
  a.addi(t0, zero, 1);
  a.sync(t0);
  a.addi(a0, zero, 3);
  a.hsid(a0);  // 3
  a.li(a1, buf);
  a.li(a2, 64);
  a.hsread(a1, a2);  // 64 bytes
  a.xwait();
  a.halt(zero);
  return a;
}

TEST(StreamingPlatform, HostStreamServedBeforeTheRun) {
  Platform& p = make_platform("configs/test/tiny16_smem.yaml");
  uint32_t buf = 0;
  p.load(program(stream_reader(buf)), platform::TileSelection::parse("0", 16));
  std::vector<uint8_t> bytes(80);
  for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = uint8_t(3 * i + 1);
  ASSERT_EQ(p.gateway(0).push_h2d(3, bytes).bytes, 80u);
  const platform::RunResult r = p.run();
  ASSERT_FALSE(r.end.fault() || r.end.deadlock() || !r.end.exchange_errors().empty());
  std::vector<uint8_t> got(64);
  ASSERT_TRUE(p.ipu(0).tile(0).core()->read(buf, got));
  EXPECT_EQ(got, std::vector<uint8_t>(bytes.begin(), bytes.begin() + 64));
  EXPECT_EQ(p.gateway(0).h2d_level(3), 16u);
}

// With a host that never serves the stream the simulation runs out of events: the run
// ends naming the stream and the tile, and the gateway says what it waits for.
TEST(StreamingPlatform, HostStreamNeverServed) {
  Platform& p = make_platform("configs/test/tiny16_smem.yaml");
  uint32_t buf = 0;
  p.load(program(stream_reader(buf)), platform::TileSelection::parse("0", 16));
  const platform::RunResult r = p.run();
  ASSERT_TRUE(r.end.deadlock());
  EXPECT_EQ(ipusim::to_text(*r.end.deadlock()).rfind("host stream 3: tile 0 (ipu 0) pc 0x", 0), 0u) << *r.end.deadlock();
  EXPECT_NE(ipusim::to_text(*r.end.deadlock()).find("waits to read 64 more bytes"), std::string::npos) << *r.end.deadlock();
  const auto wait = p.gateway(0).stream_wait();
  ASSERT_TRUE(wait);
  EXPECT_EQ(wait->stream, 3u);
  EXPECT_FALSE(wait->d2h);
  EXPECT_EQ(wait->bytes, 64u);
}

}  // namespace
}  // namespace ipusim
