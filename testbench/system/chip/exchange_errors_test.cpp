// Exchange errors end to end: the firmware of testbench/system/firmware/xerr_*.c on the
// 4-tile test chip, run in-process so the test can read tile memory afterwards. Every
// fabric error names both tiles and ends the run (no tile goes on), and a failed exchange
// leaves every receive buffer as it was; the ISS's own exchange faults (a send in the
// compute phase, a buffer outside SRAM) stop the run naming the tiles. Each case
// elaborates, so each runs in its own process.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <cstring>
#include <string>
#include <vector>

#include "iss/program.h"
#include "config/config_loader.h"
#include "platform/platform.h"

namespace ipusim {
namespace {

using platform::Platform;
using platform::PlatformOptions;
using platform::RunResult;

const std::string kFirmware = std::string(IPUSIM_FIRMWARE_DIR) + "/system/";

struct Outcome {
  RunResult result;
  std::vector<std::vector<uint32_t>> rx;  // per tile: the words of `rx` after the run
};

Outcome run(const std::string& elf, unsigned threads = 2) {
  const config::SystemConfig system = config::load_system("configs/test/tiny4.yaml");
  PlatformOptions options;
  options.console_out = nullptr;
  options.host_threads = threads;
  Platform& platform = *new Platform(system, options);  // one per process; left to the OS
  const auto program = iss::Program::load(kFirmware + elf);
  platform.load(program);
  Outcome r;
  r.result = platform.run();
  const auto rx = program->symbol("rx");
  for (uint32_t t = 0; t < 4; ++t) {
    std::vector<uint32_t> words(4, 0);
    if (rx) {
      std::vector<uint8_t> bytes(16);
      EXPECT_TRUE(platform.ipu(0).tile(t).core()->read(*rx, bytes));
      std::memcpy(words.data(), bytes.data(), 16);
    }
    r.rx.push_back(words);
  }
  return r;
}

const std::vector<uint32_t> kUntouched(4, 0xa5a5a5a5u);

void expect_failed_exchange(const Outcome& r, const std::string& message_start) {
  EXPECT_FALSE(r.result.end.fault());
  EXPECT_FALSE(r.result.end.deadlock());
  ASSERT_EQ(r.result.end.exchange_errors().size(), 1u);
  EXPECT_EQ(ipusim::to_text(r.result.end.exchange_errors()[0]).rfind(message_start, 0), 0u) << r.result.end.exchange_errors()[0];
  // Each of these firmwares fails at its first exchange, after one sync: the text says so.
  EXPECT_EQ(r.result.end.exchange_errors()[0].superstep, 1u);
  EXPECT_TRUE(ipusim::to_text(r.result.end.exchange_errors()[0]).ends_with(", in superstep 1")) << r.result.end.exchange_errors()[0];
  for (uint32_t t = 0; t < 4; ++t) EXPECT_EQ(r.rx[t], kUntouched) << "tile " << t << "'s receive buffer";
  for (const auto& t : r.result.tiles) {
    EXPECT_NE(t.state, tile::TileState::Halted) << "tile " << t.tile << " went on after the failed exchange";
    EXPECT_EQ(t.exchanges, 0u);
  }
}

TEST(ExchangeErrors, SendWithoutReceive) {
  const Outcome r = run("xerr_no_recv.elf");
  ASSERT_NO_FATAL_FAILURE(expect_failed_exchange(r, "tile 0 sends 16 bytes to tile 1 (pc 0x"));
  EXPECT_NE(ipusim::to_text(r.result.end.exchange_errors()[0]).find("but tile 1 posts no receive from tile 0"), std::string::npos)
      << r.result.end.exchange_errors()[0];
  const Problem& e = r.result.end.exchange_errors()[0];  // the record names both tiles
  EXPECT_EQ(e.code, ProblemCode::Exchange);
  EXPECT_EQ(e.kind, "send without receive");
  EXPECT_EQ(e.ipu, 0u);
  EXPECT_EQ(e.tile, 0u);
  EXPECT_NE(e.pc, Problem::kNone);
  ASSERT_TRUE(e.peer);
  EXPECT_EQ(e.peer->ipu, 0u);
  EXPECT_EQ(e.peer->tile, 1u);
  EXPECT_TRUE(e.cycle);
  EXPECT_EQ(e.superstep, 1u);  // the tiles' exchange phase follows their first sync
  // Every tile reached its xwait (tile 1 with nothing posted): every one is told.
  for (const auto& t : r.result.tiles) EXPECT_EQ(t.state, tile::TileState::ExchangeFailed) << t.tile;
}

TEST(ExchangeErrors, ReceiveWithoutSend) {
  const Outcome r = run("xerr_no_send.elf");
  ASSERT_NO_FATAL_FAILURE(expect_failed_exchange(r, "tile 1 expects 16 bytes from tile 0 (pc 0x"));
  EXPECT_NE(ipusim::to_text(r.result.end.exchange_errors()[0]).find("but tile 0 sends nothing to tile 1"), std::string::npos)
      << r.result.end.exchange_errors()[0];
}

// The record of a length mismatch: both tiles and both postings' pcs; the lengths are in
// its detail (the record has no length fields).
void expect_length_mismatch(const Outcome& r, uint32_t sent, uint32_t expected) {
  ASSERT_NO_FATAL_FAILURE(expect_failed_exchange(r, fmt::format("tile 0 sends {} bytes to tile 1 (pc 0x", sent)));
  const Problem& e = r.result.end.exchange_errors()[0];
  EXPECT_EQ(e.code, ProblemCode::Exchange);
  EXPECT_EQ(e.kind, "length mismatch");
  EXPECT_EQ(e.ipu, 0u);
  EXPECT_EQ(e.tile, 0u);
  EXPECT_NE(e.pc, Problem::kNone);
  ASSERT_TRUE(e.peer);
  EXPECT_EQ(e.peer->ipu, 0u);
  EXPECT_EQ(e.peer->tile, 1u);
  EXPECT_NE(e.peer->pc, Problem::kNone);
  EXPECT_EQ(e.detail, fmt::format("tile 0 sends {} bytes to tile 1 (pc 0x{:08x}) but the matching receive on tile 1 "
                                  "from tile 0 expects {} bytes (pc 0x{:08x})",
                                  sent, e.pc, expected, e.peer->pc));
}

TEST(ExchangeErrors, LengthMismatch) {
  ASSERT_NO_FATAL_FAILURE(expect_length_mismatch(run("xerr_length.elf"), 16, 8));
}

// The send shorter than its receive (xerr_short.c): as much an error as the longer one.
TEST(ExchangeErrors, ShortSendIsALengthMismatch) {
  ASSERT_NO_FATAL_FAILURE(expect_length_mismatch(run("xerr_short.elf"), 8, 16));
}

TEST(ExchangeErrors, SendDuringComputeIsAFault) {
  const Outcome r = run("xerr_compute.elf");
  ASSERT_TRUE(r.result.end.fault());
  EXPECT_TRUE(r.result.end.exchange_errors().empty());
  const std::string f = ipusim::to_text(*r.result.end.fault());
  EXPECT_EQ(f.rfind("tile 2 (ipu 0) thread 0 pc 0x", 0), 0u) << f;
  EXPECT_NE(f.find("send during compute: send of 16 bytes at 0x"), std::string::npos) << f;
  EXPECT_NE(f.find("to tile 3 outside an exchange phase"), std::string::npos) << f;
  EXPECT_EQ(r.result.tiles[2].state, tile::TileState::Faulted);
}

TEST(ExchangeErrors, ReceiveOutsideTheTileIsAFault) {
  const Outcome r = run("xerr_outside.elf");
  ASSERT_TRUE(r.result.end.fault());
  const std::string f = ipusim::to_text(*r.result.end.fault());
  EXPECT_EQ(f.rfind("tile 1 (ipu 0) thread 0 pc 0x", 0), 0u) << f;
  EXPECT_NE(f.find("access fault: recv of 16 bytes into 0x00001000 from tile 0"), std::string::npos) << f;
  EXPECT_NE(f.find("outside SRAM"), std::string::npos) << f;
  for (uint32_t t = 0; t < 4; ++t) EXPECT_EQ(r.rx[t], kUntouched) << "tile " << t;
}

TEST(ExchangeErrors, TheValidPairAloneDelivers) {
  // The positive control: the same valid pair without the broken one.
  const Outcome r = run("xok_pair.elf");
  EXPECT_FALSE(r.result.end.fault()) << *r.result.end.fault();
  EXPECT_TRUE(r.result.end.exchange_errors().empty());
  EXPECT_EQ(r.rx[3], (std::vector<uint32_t>{0x11111111u, 0x22222222u, 0x33333333u, 0x44444444u}));
  for (uint32_t t = 0; t < 3; ++t) EXPECT_EQ(r.rx[t], kUntouched) << "tile " << t;
  for (const auto& t : r.result.tiles) {
    EXPECT_EQ(t.state, tile::TileState::Halted);
    EXPECT_EQ(t.exchanges, 1u);
  }
  EXPECT_GT(r.result.tiles[3].exchange_stall_cycles, 16u / 4) << "16 bytes at 4 B/cycle plus latency";
}

}  // namespace
}  // namespace ipusim
