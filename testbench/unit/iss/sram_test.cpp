// Tile SRAM: host read / write bounds, code protected from host writes, and sparseness:
// a whole GC200 IPU's worth of tiles with only code loaded costs little host memory.
#include <unistd.h>

#include <fstream>

#include "iss_harness.h"

namespace {

using namespace isstest;
using namespace rvasm;

TEST(IssSram, HostReadWrite) {
  Asm a;
  a.li(s0, kData);
  a.lw(a0, 0, s0);
  a.halt(a0);
  Harness h(a);
  const uint8_t in[4] = {0x78, 0x56, 0x34, 0x12};
  EXPECT_TRUE(h.core.write(kData, in));
  uint8_t out[4] = {};
  EXPECT_TRUE(h.core.read(kData, out));
  EXPECT_EQ(std::vector<uint8_t>(out, out + 4), std::vector<uint8_t>(in, in + 4));
  h.run_ok();
  EXPECT_EQ(h.stop.exit_code, 0x12345678);
  // Bounds: nothing outside SRAM, nothing straddling its end.
  EXPECT_FALSE(h.core.read(0x3fffc, out));
  EXPECT_FALSE(h.core.read(0x80000 - 2, out));
  EXPECT_TRUE(h.core.read(0x80000 - 4, out));
  EXPECT_FALSE(h.core.write(0x80000, in));
  EXPECT_FALSE(h.core.write(0xfffffffe, in));
  // Code is read-only for the host too: the tiles share its decoded form.
  EXPECT_FALSE(h.core.write(0x40004, in));
  EXPECT_TRUE(h.core.read(0x40000, out));
}

size_t resident_bytes() {
  std::ifstream statm("/proc/self/statm");
  size_t pages = 0, resident = 0;
  statm >> pages >> resident;
  return resident * static_cast<size_t>(sysconf(_SC_PAGESIZE));
}

TEST(IssSram, UntouchedPagesCostNothing) {
  Asm a;
  a.li(s0, kData);
  a.sw(s0, 0, s0);
  a.halt(zero);
  auto program = make_program(a);
  TileParams p = test_params();
  p.sram_bytes = 624 * 1024;
  const size_t before = resident_bytes();
  std::vector<std::unique_ptr<Sram>> srams;
  std::vector<std::unique_ptr<TileCore>> tiles;
  for (uint32_t i = 0; i < 1472; ++i) {
    p.id.tile = i;
    srams.push_back(loaded_sram(p.sram_bytes, *program));
    tiles.push_back(std::make_unique<TileCore>(p, program, *srams.back()));
    ASSERT_EQ(tiles.back()->run().reason, StopReason::Halted);
  }
  const size_t grown = resident_bytes() - before;
  // 1472 x 624 KiB = 897 MiB of SRAM; code + one data page per tile is ~12 MiB.
  EXPECT_LT(grown, 64u << 20) << grown;
}

}  // namespace
