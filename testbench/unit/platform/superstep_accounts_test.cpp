// The superstep accounts' window (platform_supersteps.h): rows leave to the sink in
// order, final and once, while the window holds a bounded number; IPUs that halted or
// lag hold rows back only up to a second window; a kept tile's records ride with rows.
#include <gtest/gtest.h>

#include <vector>

#include "platform/platform_supersteps.h"

namespace ipusim::platform {
namespace {

tile::SuperstepRecord record(uint32_t index, uint64_t compute = 10) {
  tile::SuperstepRecord r;
  r.index = index;
  r.begin = index * 100;
  r.end = index * 100 + 90;
  r.compute_cycles = compute;
  r.sync_zone = 1;
  return r;
}

TEST(SuperstepAccounts, WindowIsBoundedBySystemSize) {
  EXPECT_EQ(SuperstepAccounts::window_rows_for(1, 0), SuperstepAccounts::kWindowRowsMax);
  EXPECT_EQ(SuperstepAccounts::window_rows_for(64, 0), 1024u);
  EXPECT_EQ(SuperstepAccounts::window_rows_for(1024, 0), 64u);
  EXPECT_EQ(SuperstepAccounts::window_rows_for(65536, 0), SuperstepAccounts::kWindowRowsMin);
  EXPECT_EQ(SuperstepAccounts::window_rows_for(1, 63), 1024u);
}

// Four tiles syncing 100,000 times: the accounts hold one window; every older row went to
// the sink exactly once, in order, complete.
TEST(SuperstepAccounts, LongRunStreamsEveryRowOnceInOrder) {
  SuperstepAccounts a(1);
  std::vector<uint64_t> seen;
  bool complete = true, tiles_sorted = true;
  a.set_sink([&](const SuperstepRow& row) {
    seen.push_back(row.index);
    complete = complete && row.ipus.at(0).tiles == 4 && row.ipus[0].compute_cycles == 40 && row.tiles.size() == 4;
    for (size_t i = 0; i < row.tiles.size(); ++i) tiles_sorted = tiles_sorted && row.tiles[i].tile == i;
  });
  a.start({true}, 4);
  constexpr uint32_t kSteps = 100000;
  for (uint32_t k = 0; k < kSteps; ++k)
    for (uint32_t t : {2u, 0u, 3u, 1u}) a.add(0, t, record(k));
  const uint64_t window = a.window_rows();
  EXPECT_EQ(window, SuperstepAccounts::window_rows_for(1, 4));
  ASSERT_EQ(seen.size(), kSteps - window);
  for (size_t i = 0; i < seen.size(); ++i) ASSERT_EQ(seen[i], i);
  EXPECT_TRUE(complete);
  EXPECT_TRUE(tiles_sorted);
  EXPECT_EQ(a.first(), kSteps - window);
  EXPECT_EQ(a.count(), kSteps);
  EXPECT_EQ(a.rows().size(), window);
  EXPECT_EQ(a.ipu(0).size(), window);
  EXPECT_EQ(a.late_records(), 0u);
}

// A row leaves only when final: a tile of the IPU has closed two supersteps more.
TEST(SuperstepAccounts, RowWaitsForTheIpuThatLags) {
  SuperstepAccounts a(2);
  std::vector<uint64_t> seen;
  a.set_sink([&](const SuperstepRow& row) { seen.push_back(row.index); });
  a.start({true, true}, 0);
  const uint64_t w = a.window_rows();
  for (uint32_t k = 0; k < w + 10; ++k) a.add(0, 0, record(k));
  EXPECT_TRUE(seen.empty()) << "IPU 1 has closed nothing: no row is final";
  for (uint32_t k = 0; k < 5; ++k) a.add(1, 0, record(k));
  EXPECT_EQ(seen.size(), 3u) << "rows 0-2 are final on IPU 1 once it closed superstep 4";
  // IPU 1 stops (halted); IPU 0 runs on: rows leave past the second window, and nothing
  // is late since IPU 1 records nothing more.
  for (uint32_t k = uint32_t(w + 10); k < 3 * w; ++k) a.add(0, 0, record(k));
  EXPECT_EQ(a.rows().size(), 2 * w);
  EXPECT_EQ(a.late_records(), 0u);
  a.add(1, 0, record(5));  // a record for a row gone: counted, not kept
  EXPECT_EQ(a.late_records(), 1u);
}

TEST(SuperstepAccounts, IpuWindowStopsAtItsOwnCount) {
  SuperstepAccounts a(2);
  a.start({true, true}, 0);
  for (uint32_t k = 0; k < 6; ++k) a.add(0, 0, record(k));
  for (uint32_t k = 0; k < 2; ++k) a.add(1, 0, record(k));
  EXPECT_EQ(a.ipu(0).size(), 6u);
  EXPECT_EQ(a.ipu(1).size(), 2u);
  EXPECT_EQ(a.count(1), 2u);
  a.clear();
  EXPECT_EQ(a.count(), 0u);
  EXPECT_TRUE(a.ipu(0).empty());
}

}  // namespace
}  // namespace ipusim::platform
