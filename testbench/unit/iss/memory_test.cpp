// Loads and stores of every width, sign / zero extension, little-endian layout, the
// read-only code (loads from it work) and stores below the code (slow path, allowed).
#include "iss_harness.h"

namespace {

using namespace isstest;
using namespace rvasm;

TEST(IssMemory, EveryWidthWithExtension) {
  Asm a;
  a.li(s0, kData);
  a.li(t0, 0x8081f2f3u);
  a.sw(t0, 0, s0);
  a.lb(a0, 0, s0);    // 0xf3 -> sign-extended
  a.lbu(a1, 0, s0);
  a.lb(a2, 3, s0);    // 0x80
  a.lh(a3, 0, s0);    // 0xf2f3
  a.lhu(a4, 0, s0);
  a.lh(a5, 2, s0);    // 0x8081
  a.lw(a6, 0, s0);
  a.addi(t1, zero, 0x7f);
  a.sb(t1, 5, s0);
  a.li(t2, 0x1234abcdu);
  a.sh(t2, 6, s0);    // low half only
  a.lw(a7, 4, s0);
  a.addi(t3, zero, -1);
  a.sw(t3, 8, s0);
  a.sb(zero, 9, s0);
  a.lw(s1, 8, s0);
  a.flw(5, 0, s0);    // flw / fsw move raw bits
  a.fsw(5, 12, s0);
  a.lw(s2, 12, s0);
  a.lw(s3, -4, s0);   // negative offsets
  a.halt(zero);
  Harness h(a);
  h.run_ok();
  EXPECT_EQ(h.x(a0), 0xfffffff3u);
  EXPECT_EQ(h.x(a1), 0xf3u);
  EXPECT_EQ(h.x(a2), 0xffffff80u);
  EXPECT_EQ(h.x(a3), 0xfffff2f3u);
  EXPECT_EQ(h.x(a4), 0xf2f3u);
  EXPECT_EQ(h.x(a5), 0xffff8081u);
  EXPECT_EQ(h.x(a6), 0x8081f2f3u);
  EXPECT_EQ(h.x(a7), 0xabcd7f00u);
  EXPECT_EQ(h.x(s1), 0xffff00ffu);
  EXPECT_EQ(h.x(s2), 0x8081f2f3u);
  EXPECT_EQ(h.f(5), 0x8081f2f3u);
  EXPECT_EQ(h.x(s3), 0u);
  EXPECT_EQ(h.mem32(kData + 4), 0xabcd7f00u);
}

TEST(IssMemory, LoadsFromCodeSeeTheInstructions) {
  Asm a;
  a.li(s0, 0x40000);
  a.lw(a0, 0, s0);
  a.lhu(a1, 2, s0);
  a.halt(zero);
  Harness h(a);
  h.run_ok();
  const uint32_t first = a.finish()[0];
  EXPECT_EQ(h.x(a0), first);
  EXPECT_EQ(h.x(a1), first >> 16);
}

// Code placed high in SRAM: stores below it take the slow path and succeed.
TEST(IssMemory, StoresBelowCodeAreAllowed) {
  Asm a(0x48000);
  a.li(s0, 0x40100);
  a.li(t0, 0xdeadbeefu);
  a.sw(t0, 0, s0);
  a.sh(t0, 6, s0);
  a.sb(t0, 9, s0);
  a.lw(a0, 0, s0);
  a.lw(a1, 4, s0);
  a.lw(a2, 8, s0);
  a.halt(zero);
  testelf::Image img;
  img.entry = 0x48000;
  Harness h(a, test_params(), img);
  h.run_ok();
  EXPECT_EQ(h.x(a0), 0xdeadbeefu);
  EXPECT_EQ(h.x(a1), 0xbeef0000u);
  EXPECT_EQ(h.x(a2), 0x0000ef00u);
  EXPECT_EQ(h.mem32(0x40100), 0xdeadbeefu);
}

TEST(IssMemory, LastWordsOfSramAreReachable) {
  Asm a;
  a.li(s0, 0x40000 + 256 * 1024 - 4);
  a.li(t0, 0x01020304u);
  a.sw(t0, 0, s0);
  a.lw(a0, 0, s0);
  a.lhu(a1, 2, s0);
  a.lbu(a2, 3, s0);
  a.halt(zero);
  Harness h(a);
  h.run_ok();
  EXPECT_EQ(h.x(a0), 0x01020304u);
  EXPECT_EQ(h.x(a1), 0x0102u);
  EXPECT_EQ(h.x(a2), 0x01u);
}

TEST(IssMemory, DataSegmentIsLoadedAndBssZeroed) {
  Asm a;
  a.li(s0, kData);
  a.lw(a0, 0, s0);
  a.lw(a1, 4, s0);
  a.li(t0, 77);
  a.sw(t0, 4, s0);
  a.halt(zero);
  testelf::Image img;
  img.data_addr = kData;
  img.data = {0x11, 0x22, 0x33, 0x44};
  img.bss_bytes = 64;
  Harness h(a, test_params(), img);
  h.run_ok();
  EXPECT_EQ(h.x(a0), 0x44332211u);
  EXPECT_EQ(h.x(a1), 0u);
  // A reset with the image loaded again restores it: the bss word written by the run is zero again.
  EXPECT_EQ(h.mem32(kData + 4), 77u);
  h.reset();
  EXPECT_EQ(h.mem32(kData + 4), 0u);
  EXPECT_EQ(h.mem32(kData), 0x44332211u);
  h.run_ok();
  EXPECT_EQ(h.x(a1), 0u);
}

}  // namespace
