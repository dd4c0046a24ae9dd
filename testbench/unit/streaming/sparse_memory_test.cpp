// SparseMemory: zeros where nothing was written, bytes back as written across page
// boundaries, range checks that change nothing, fill, and the cost: pages only on first
// write, and the resident memory of 256 GiB with scattered writes (measured).
#include <gtest/gtest.h>

#include <sys/resource.h>

#include <cstdio>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "streaming/sparse_memory.h"

namespace {

using ipusim::streaming::SparseMemory;
constexpr uint64_t kGiB = uint64_t{1} << 30;
constexpr uint64_t kPage = SparseMemory::kPageBytes;

// Current resident set in bytes (/proc/self/statm: pages).
uint64_t rss_bytes() {
  std::ifstream statm("/proc/self/statm");
  uint64_t size = 0, resident = 0;
  statm >> size >> resident;
  return resident * uint64_t(sysconf(_SC_PAGESIZE));
}

TEST(SparseMemory, UntouchedReadsZerosAndAllocatesNothing) {
  SparseMemory m(256 * kGiB);
  std::vector<uint8_t> out(3 * kPage + 17, 0xee);
  ASSERT_TRUE(m.read(200 * kGiB + 5, out));
  for (uint8_t b : out) ASSERT_EQ(b, 0);
  EXPECT_EQ(m.pages_allocated(), 0u);
}

TEST(SparseMemory, WritesReadBackAcrossPages) {
  SparseMemory m(256 * kGiB);
  std::mt19937_64 rng(7);
  std::vector<uint8_t> in(3 * kPage + 100);
  for (uint8_t& b : in) b = uint8_t(rng());
  const uint64_t addr = 255 * kGiB + kPage - 50;  // starts 50 bytes before a page boundary
  ASSERT_TRUE(m.write(addr, in));
  EXPECT_EQ(m.pages_allocated(), 5u);  // 50 + 3 pages + 50 bytes: 5 pages
  std::vector<uint8_t> out(in.size());
  ASSERT_TRUE(m.read(addr, out));
  EXPECT_EQ(out, in);
  // The bytes around the write are still zero.
  std::vector<uint8_t> edge(60);
  ASSERT_TRUE(m.read(addr - 60, edge));
  EXPECT_EQ(edge, std::vector<uint8_t>(60, 0));
  ASSERT_TRUE(m.read(addr + in.size(), edge));
  EXPECT_EQ(edge, std::vector<uint8_t>(60, 0));
}

TEST(SparseMemory, RandomAccessesMatchAFlatModel) {
  const uint64_t size = 1 << 20;
  SparseMemory m(size);
  std::vector<uint8_t> flat(size, 0);
  std::mt19937_64 rng(42);
  for (int i = 0; i < 2000; ++i) {
    const uint64_t len = rng() % 9000;
    const uint64_t addr = rng() % (size - len + 1);
    if (rng() % 3 == 0) {
      std::vector<uint8_t> out(len);
      ASSERT_TRUE(m.read(addr, out));
      ASSERT_TRUE(std::equal(out.begin(), out.end(), flat.begin() + addr)) << i;
    } else if (rng() % 4 == 0) {
      const uint8_t v = uint8_t(rng() % 2 ? 0 : rng());
      ASSERT_TRUE(m.fill(addr, len, v));
      std::fill(flat.begin() + addr, flat.begin() + addr + len, v);
    } else {
      std::vector<uint8_t> in(len);
      for (uint8_t& b : in) b = uint8_t(rng());
      ASSERT_TRUE(m.write(addr, in));
      std::copy(in.begin(), in.end(), flat.begin() + addr);
    }
  }
  std::vector<uint8_t> all(size);
  ASSERT_TRUE(m.read(0, all));
  EXPECT_EQ(all, flat);
}

TEST(SparseMemory, RangeChecksChangeNothing) {
  SparseMemory m(16 * kPage);
  std::vector<uint8_t> four(4, 0xab);
  EXPECT_TRUE(m.write(16 * kPage - 4, four));
  EXPECT_FALSE(m.write(16 * kPage - 2, four));
  EXPECT_FALSE(m.write(UINT64_MAX - 1, four));  // no wrap-around
  EXPECT_FALSE(m.fill(15 * kPage, 2 * kPage, 1));
  std::vector<uint8_t> out(8, 0x11);
  EXPECT_FALSE(m.read(16 * kPage - 4, out));
  EXPECT_EQ(out, std::vector<uint8_t>(8, 0x11));  // untouched on failure
  EXPECT_TRUE(m.read(16 * kPage, std::span<uint8_t>()));  // empty at the end: fine
  EXPECT_EQ(m.pages_allocated(), 1u);                      // only the first write
  SparseMemory none(0);
  EXPECT_FALSE(none.write(0, four));
  EXPECT_FALSE(none.read(0, out));
}

TEST(SparseMemory, FillZeroAllocatesNoPage) {
  SparseMemory m(kGiB);
  ASSERT_TRUE(m.fill(0, 64 * kPage, 0));
  EXPECT_EQ(m.pages_allocated(), 0u);
  ASSERT_TRUE(m.fill(kPage + 8, 8, 0x5a));
  EXPECT_EQ(m.pages_allocated(), 1u);
  ASSERT_TRUE(m.fill(0, 4 * kPage, 0));  // zeroes the touched page, allocates no other
  EXPECT_EQ(m.pages_allocated(), 1u);
  std::vector<uint8_t> out(16, 1);
  ASSERT_TRUE(m.read(kPage, out));
  EXPECT_EQ(out, std::vector<uint8_t>(16, 0));
  m.clear();
  EXPECT_EQ(m.pages_allocated(), 0u);
}

// 256 GiB with 128 MiB written in one word per page over the whole range: the resident
// set grows by the pages (128 MiB) and a small table, not by the capacity.
TEST(SparseMemory, ResidentMemoryFollowsTouchedPages) {
  const uint64_t before = rss_bytes();
  SparseMemory m(256 * kGiB);
  const uint64_t pages = 32768;  // 128 MiB
  const uint64_t stride = m.size() / pages / kPage * kPage;
  const uint32_t word = 0x12345678;
  for (uint64_t i = 0; i < pages; ++i)
    ASSERT_TRUE(m.write(i * stride + (i % 1000) * 4, std::span(reinterpret_cast<const uint8_t*>(&word), 4)));
  EXPECT_EQ(m.pages_allocated(), pages);
  const uint64_t grown = rss_bytes() - before;
  std::printf("256 GiB sparse memory, %llu pages touched: RSS +%.1f MiB (%.1f bytes of overhead per page)\n",
              (unsigned long long)pages, grown / 1048576.0, (double(grown) - pages * kPage) / pages);
  EXPECT_GE(grown, pages * kPage * 9 / 10);  // the pages are really there
  EXPECT_LT(grown, pages * (kPage + 256));   // and cost little beyond themselves
  uint32_t back = 0;
  ASSERT_TRUE(m.read(777 * stride + 777 * 4, std::span(reinterpret_cast<uint8_t*>(&back), 4)));
  EXPECT_EQ(back, word);
}

}  // namespace
