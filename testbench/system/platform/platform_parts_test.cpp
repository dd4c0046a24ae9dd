// The platform's pieces that need no elaborated model: tile selection, console order,
// cycle -> time conversion, exit status, and the fits-in-SRAM check.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "platform/platform.h"
#include "platform/platform_console.h"
#include "platform/platform_tiles.h"
#include "test_system.h"
#include "tile/tile_config.h"

namespace ipusim {
namespace {

using platform::ConsoleCollector;
using platform::ConsoleMode;
using platform::TileSelection;

TEST(TileSelection, DefaultIsEveryTile) {
  const TileSelection all;
  EXPECT_TRUE(all.all());
  EXPECT_EQ(all.tiles(4), (std::vector<uint32_t>{0, 1, 2, 3}));
  EXPECT_EQ(all.to_string(), "all");
}

TEST(TileSelection, RangesAndListsNormalise) {
  EXPECT_EQ(TileSelection::parse("2-5", 16).tiles(16), (std::vector<uint32_t>{2, 3, 4, 5}));
  EXPECT_EQ(TileSelection::parse("7,1,3", 16).tiles(16), (std::vector<uint32_t>{1, 3, 7}));
  const TileSelection mixed = TileSelection::parse("8,0-3,2", 16);
  EXPECT_EQ(mixed.tiles(16), (std::vector<uint32_t>{0, 1, 2, 3, 8}));
  EXPECT_EQ(mixed.to_string(), "0-3,8");
}

TEST(TileSelection, BadInputNamesTheItem) {
  auto message = [](const std::string& text) {
    try {
      TileSelection::parse(text, 16);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("(no error)");
  };
  EXPECT_NE(message("3-x").find("'3-x'"), std::string::npos) << message("3-x");
  EXPECT_NE(message("16").find("tile 16 is out of range"), std::string::npos) << message("16");
  EXPECT_NE(message("5-2").find("'5-2' is reversed"), std::string::npos) << message("5-2");
  EXPECT_NE(message("").find("empty"), std::string::npos);
  EXPECT_NE(message("1,,2").find("''"), std::string::npos) << message("1,,2");
  EXPECT_NE(message("-3").find("'-3'"), std::string::npos) << message("-3");
}

TEST(ConsoleCollector, FormatsTaggedAndRaw) {
  EXPECT_EQ(ConsoleCollector::format(ConsoleMode::Tagged, 1, 22, 0, "hi"), "[ipu 1 tile 22] hi\n");
  EXPECT_EQ(ConsoleCollector::format(ConsoleMode::Tagged, 0, 5, 3, "w"), "[ipu 0 tile 5 w 3] w\n");
  EXPECT_EQ(ConsoleCollector::format(ConsoleMode::Raw, 0, 5, 3, "w"), "w\n");
}

TEST(ConsoleCollector, OrdersByTimeThenIpuTileThenEmission) {
  test::CapturedFile out;
  ConsoleCollector console(out.file(), ConsoleMode::Tagged);
  console.add(100, 0, 2, 0, "t2 first");
  console.add(100, 1, 0, 0, "ipu1");
  console.add(100, 0, 1, 1, "t1 worker");
  console.add(100, 0, 2, 0, "t2 second");
  EXPECT_EQ(out.text(), "") << "lines of the current time may still be joined by earlier tiles";
  console.add(200, 0, 0, 0, "later");
  EXPECT_EQ(out.text(),
            "[ipu 0 tile 1 w 1] t1 worker\n"
            "[ipu 0 tile 2] t2 first\n"
            "[ipu 0 tile 2] t2 second\n"
            "[ipu 1 tile 0] ipu1\n");
  console.flush();
  EXPECT_EQ(console.lines(), 5u);
  EXPECT_NE(out.text().find("[ipu 0 tile 0] later\n"), std::string::npos);
}

// The progress line's hook: called once before each group of lines printed, with nothing
// printed yet, and not when there is nothing to print.
TEST(ConsoleCollector, CallsTheBeforePrintHookBeforePrintingOnly) {
  test::CapturedFile out;
  ConsoleCollector console(out.file(), ConsoleMode::Raw);
  std::vector<std::string> seen;  // what was printed when the hook ran
  console.set_before_print([&] { seen.push_back(out.text()); });
  console.flush();
  console.add(1, 0, 0, 0, "a");
  EXPECT_TRUE(seen.empty());
  console.add(2, 0, 0, 0, "b");
  console.flush();
  console.flush();
  EXPECT_EQ(seen, (std::vector<std::string>{"", "a\n"}));
  EXPECT_EQ(out.text(), "a\nb\n");
}

TEST(TileClock, ConvertsCyclesExactly) {
  const TileClock clock(1.325e9);
  EXPECT_EQ(clock.hz(), 1325000000u);
  EXPECT_EQ(clock.time_of(0), sc_core::SC_ZERO_TIME);
  EXPECT_EQ(clock.time_of(1325), sc_core::sc_time(1, sc_core::SC_US));
  // 1 cycle = 754.7 ps: rounded to the nearest ps, and never accumulated.
  EXPECT_EQ(clock.time_of(1).value(), 755u);
  EXPECT_EQ(clock.time_of(1'325'000'000'000ull), sc_core::sc_time(1000, sc_core::SC_SEC));
  EXPECT_DOUBLE_EQ(clock.seconds_of(2650), 2e-6);
  EXPECT_THROW(TileClock(0), std::invalid_argument);
}

TEST(TileModuleConfig, TakesTheChipAndIdentity) {
  const config::SystemConfig s = test::small_system(16, 2, 128 * 1024, 1.6e9);
  iss::TileIdentity id;
  id.tile = 5;
  id.ipu = 1;
  id.ipus = 2;
  const tile::TileModuleConfig c = tile::TileModuleConfig::from(s.board.chip, id);
  EXPECT_EQ(c.core.id.tile, 5u);
  EXPECT_EQ(c.core.id.ipu, 1u);
  EXPECT_EQ(c.core.id.tiles_per_ipu, 16u);
  EXPECT_EQ(c.core.id.ipus, 2u);
  EXPECT_EQ(c.core.sram_bytes, 128u * 1024);
  EXPECT_EQ(c.core.thread_quantum, 64u);
  EXPECT_EQ(c.core.load_bytes_per_cycle, 16u);
  EXPECT_EQ(c.core.store_bytes_per_cycle, 8u);
  EXPECT_TRUE(c.core.co_issue);
  config::ChipConfig narrow = s.board.chip;
  narrow.tile.load_bytes_per_cycle = 4;
  narrow.tile.store_bytes_per_cycle = 32;
  narrow.tile.co_issue = false;
  const tile::TileModuleConfig n = tile::TileModuleConfig::from(narrow, id);
  EXPECT_EQ(n.core.load_bytes_per_cycle, 4u);
  EXPECT_EQ(n.core.store_bytes_per_cycle, 32u);
  EXPECT_FALSE(n.core.co_issue);
  EXPECT_EQ(c.clock_hz, 1.6e9);
  config::ChipConfig huge = s.board.chip;
  huge.tile.sram_bytes = uint64_t(1) << 32;
  EXPECT_THROW(tile::TileModuleConfig::from(huge, id), std::invalid_argument);
}

TEST(RunResult, ExitStatusIsTheLowestNonZeroTileClamped) {
  platform::RunResult r;
  auto halted = [](uint32_t ipu, uint32_t t, int32_t code) {
    platform::TileResult x;
    x.ipu = ipu;
    x.tile = t;
    x.state = tile::TileState::Halted;
    x.exit_code = code;
    return x;
  };
  r.tiles = {halted(0, 0, 0), halted(0, 1, 0)};
  EXPECT_EQ(r.exit_status(), 0);
  r.tiles = {halted(0, 0, 0), halted(0, 1, 300), halted(1, 0, 4)};
  EXPECT_EQ(r.exit_status(), 255);
  r.tiles = {halted(0, 0, 0), halted(0, 1, -7), halted(1, 0, 4)};
  EXPECT_EQ(r.exit_status(), 1);
  r.tiles = {halted(0, 0, 0), halted(0, 3, 9), halted(1, 0, 4)};
  EXPECT_EQ(r.exit_status(), 9);
}

TEST(Platform, CheckFitsRejectsAnImageBeyondSram) {
  test::Asm a;
  a.halt(test::zero);
  const config::SystemConfig s = test::small_system(4, 1, 64 * 1024);
  EXPECT_NO_THROW(platform::Platform::check_fits(*test::program(a), s.board.chip));
  a.bytes(std::string(0x9000, 'x'));  // data from kSramBase + 0x8000: past 64 KiB
  try {
    platform::Platform::check_fits(*test::program(a, "big.elf"), s.board.chip);
    FAIL() << "no error";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("big.elf: segment 0x00048000..0x00051000 does not fit"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace ipusim
