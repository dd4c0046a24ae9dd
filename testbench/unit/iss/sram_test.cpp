// Tile SRAM: host read / write bounds, code protected from host writes, and sparseness:
// a whole GC200 IPU's worth of tiles with only code loaded costs little host memory; a
// program's image shared by its tiles until each writes it (copy on write, sram_image.h).
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <string>

#include "iss/sram_image.h"
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

// A program with 16 KiB of initialised data at kData (word i = i + 1) whose tile adds
// the tile id to the word at kData and halts with the word at kData + 4 KiB.
std::shared_ptr<const Program> data_program(uint32_t data_bytes = 16 * 1024) {
  Asm a;
  a.li(s0, kData);
  a.lw(t0, 0, s0);
  a.csrr(t1, IPU_CSR_TILE);
  a.add(t0, t0, t1);
  a.sw(t0, 0, s0);
  a.li(s1, kData + 4096);
  a.lw(a0, 0, s1);
  a.halt(a0);
  testelf::Image img;
  img.data_addr = kData;
  for (uint32_t i = 0; i < data_bytes / 4; ++i)
    for (unsigned b = 0; b < 4; ++b) img.data.push_back(uint8_t((i + 1) >> (8 * b)));
  return make_program(a, img);
}

uint32_t read32(const TileCore& core, uint32_t addr) {
  uint8_t b[4];
  EXPECT_TRUE(core.read(addr, b));
  uint32_t v;
  std::memcpy(&v, b, 4);
  return v;
}

TEST(IssSram, SharedImageIsCopiedOnWrite) {
  auto program = data_program();
  TileParams p = test_params();
  const uint64_t mapped = shared_images_mapped();
  auto sram_a = loaded_sram(p.sram_bytes, *program);
  auto sram_b = loaded_sram(p.sram_bytes, *program);
  ASSERT_NE(sram_a->image_bytes(), 0u) << "the image is shared";
  EXPECT_EQ(sram_a->image_bytes(), kData + 16 * 1024 - kSramBase) << "up to the data's last page";
  EXPECT_EQ(shared_images_mapped(), mapped + 2);
  p.id.tile = 5;
  TileCore a(p, program, *sram_a);
  p.id.tile = 7;
  TileCore b(p, program, *sram_b);
  ASSERT_EQ(a.run().exit_code, 1025);  // word 1024 of the image, as loaded
  // a's store went to its own copy of the page: b still reads the image.
  EXPECT_EQ(read32(a, kData), 1u + 5u);
  EXPECT_EQ(read32(b, kData), 1u);
  const uint8_t host[4] = {9, 0, 0, 0};
  EXPECT_TRUE(b.write(kData + 8, host));  // a host's write copies b's page alone
  EXPECT_EQ(read32(b, kData + 8), 9u);
  EXPECT_EQ(read32(a, kData + 8), 3u);
  ASSERT_EQ(b.run().exit_code, 1025);
  EXPECT_EQ(read32(b, kData), 1u + 7u);
  EXPECT_EQ(read32(a, kData), 1u + 5u);
  // A load again gives the image as loaded; clearing gives zeros (no image).
  load_image(*sram_a, *program);
  EXPECT_EQ(read32(a, kData), 1u);
  sram_b->clear();
  EXPECT_EQ(sram_b->image_bytes(), 0u);
  EXPECT_EQ(read32(b, kData), 0u);
  EXPECT_EQ(read32(b, 0x40000), 0u);
  EXPECT_EQ(shared_images_mapped(), mapped + 1);
}

// Past the limit of shared images, the image is copied: the same bytes.
TEST(IssSram, ImageCopiedBeyondTheSharedLimit) {
  auto program = data_program();
  const uint64_t limit = shared_image_limit();
  set_shared_image_limit(sram_mappings());
  auto sram = loaded_sram(256 * 1024, *program);
  set_shared_image_limit(limit);
  EXPECT_EQ(sram->image_bytes(), 0u);
  uint32_t word;
  std::memcpy(&word, sram->data() + (kData + 4096 - kSramBase), 4);
  EXPECT_EQ(word, 1025u);
}

// The lines of /proc/self/maps: the process's mappings (VMAs).
size_t process_mappings() {
  std::ifstream in("/proc/self/maps");
  size_t lines = 0;
  for (std::string line; std::getline(in, line);) ++lines;
  return lines;
}

// More SRAMs than the kernel allows a process mappings (vm.max_map_count, 65530 by
// default) all share the image: neighbouring SRAMs' mappings merge, one per arena chunk.
TEST(IssSram, SharedImagePastTheMappingCap) {
  auto program = data_program();
  std::ifstream cap_file("/proc/sys/vm/max_map_count");
  uint64_t cap = 65530;
  cap_file >> cap;
  const uint64_t srams = std::max<uint64_t>(70000, cap + 1000);
  if (srams > 200000) GTEST_SKIP() << "vm.max_map_count is " << cap;
  const size_t maps_before = process_mappings();
  const uint64_t tracked_before = sram_mappings();
  std::vector<std::unique_ptr<Sram>> all;
  all.reserve(srams);
  for (uint64_t i = 0; i < srams; ++i) {
    all.push_back(loaded_sram(128 * 1024, *program));
    ASSERT_NE(all.back()->image_bytes(), 0u) << "SRAM " << i << " copied its image";
  }
  const size_t maps_grown = process_mappings() - maps_before;
  const uint64_t chunks = (srams + kSramImageCopies - 1) / kSramImageCopies;
  EXPECT_LE(maps_grown, chunks + 4) << "mappings for " << srams << " SRAMs";
  EXPECT_LE(sram_mappings() - tracked_before, chunks + 4);
  // The bytes are the image's, each tile's write its own.
  const uint8_t mine[4] = {7, 0, 0, 0};
  std::memcpy(all[12345]->data() + (kData - kSramBase), mine, 4);
  for (const uint64_t i : {uint64_t{0}, uint64_t{12344}, uint64_t{12345}, uint64_t{12346}, srams - 1}) {
    uint32_t first, word;
    std::memcpy(&first, all[i]->data() + (kData - kSramBase), 4);
    std::memcpy(&word, all[i]->data() + (kData + 4096 - kSramBase), 4);
    EXPECT_EQ(first, i == 12345 ? 7u : 1u) << "SRAM " << i;
    EXPECT_EQ(word, 1025u) << "SRAM " << i;
  }
  all.clear();  // the chunks stay, anonymous: one mapping each
  EXPECT_LE(sram_mappings() - tracked_before, chunks + 1);
}

// /proc/self/smaps_rollup's Pss (kB): the proportional set, where a page mapped n times
// counts 1/n each time, so pages the tiles share count once.
size_t proportional_bytes() {
  std::ifstream in("/proc/self/smaps_rollup");
  std::string word;
  while (in >> word)
    if (word == "Pss:") {
      size_t kib = 0;
      in >> kib;
      return kib * 1024;
    }
  return 0;
}

// 256 tiles that read a 64 KiB image and write one page of it hold the image once and
// one page each; with the images copied, 256 x 64 KiB = 16 MiB.
size_t grown_by_256_tiles(const std::shared_ptr<const Program>& program, std::vector<std::unique_ptr<Sram>>& srams,
                          std::vector<std::unique_ptr<TileCore>>& tiles) {
  TileParams p = test_params();
  // A lockstep tile's shadow has an SRAM of its own, which copies what the tile reads.
  if (p.core == TileParams::Core::lockstep) p.core = TileParams::Core::jit;
  const size_t before = proportional_bytes();
  for (uint32_t i = 0; i < 256; ++i) {
    srams.push_back(loaded_sram(p.sram_bytes, *program));
    tiles.push_back(std::make_unique<TileCore>(p, program, *srams.back()));
    EXPECT_EQ(tiles.back()->run().exit_code, 1025);
    std::vector<uint8_t> all(64 * 1024);
    EXPECT_TRUE(tiles.back()->read(kData, all));  // every page of the image read
  }
  return proportional_bytes() - before;
}

TEST(IssSram, SharedImagePagesCountOnce) {
  if (proportional_bytes() == 0) GTEST_SKIP() << "no /proc/self/smaps_rollup";
  auto program = data_program(64 * 1024);
  std::vector<std::unique_ptr<Sram>> srams;
  std::vector<std::unique_ptr<TileCore>> tiles;
  const size_t shared = grown_by_256_tiles(program, srams, tiles);
  EXPECT_LT(shared, size_t{6} << 20) << shared;
  const uint64_t limit = shared_image_limit();
  set_shared_image_limit(0);
  const size_t copied = grown_by_256_tiles(program, srams, tiles);
  set_shared_image_limit(limit);
  EXPECT_GT(copied, size_t{14} << 20) << copied;
}

}  // namespace
