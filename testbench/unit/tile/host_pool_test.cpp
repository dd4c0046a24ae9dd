// HostPool: every item runs exactly once, on several threads when asked, and errors come
// back to the caller.
#include <gtest/gtest.h>

#include <atomic>
#include <mutex>
#include <set>
#include <stdexcept>
#include <thread>
#include <vector>

#include "tile/host_pool.h"

namespace ipusim::tile {
namespace {

TEST(HostPool, RunsEveryItemExactlyOnce) {
  for (unsigned threads : {1u, 2u, 3u, 8u}) {
    HostPool pool(threads);
    EXPECT_EQ(pool.threads(), threads);
    for (size_t count : {size_t(0), size_t(1), size_t(5), size_t(1000)}) {
      std::vector<std::atomic<int>> hits(count);
      pool.run(count, [&](size_t i) { hits[i].fetch_add(1); });
      for (size_t i = 0; i < count; ++i) EXPECT_EQ(hits[i].load(), 1) << threads << " threads, item " << i;
    }
  }
}

TEST(HostPool, UsesMoreThanOneThreadForSlowItems) {
  HostPool pool(4);
  std::mutex m;
  std::set<std::thread::id> ids;
  pool.run(64, [&](size_t) {
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
    std::lock_guard lock(m);
    ids.insert(std::this_thread::get_id());
  });
  EXPECT_GT(ids.size(), 1u);
  EXPECT_TRUE(ids.count(std::this_thread::get_id())) << "the caller works too";
}

TEST(HostPool, ManyLoopsInARow) {
  HostPool pool(3);
  uint64_t total = 0;
  std::vector<uint64_t> out(100);
  for (int loop = 0; loop < 2000; ++loop) {
    pool.run(out.size(), [&](size_t i) { out[i] = i * loop; });
    for (uint64_t v : out) total += v;
  }
  EXPECT_EQ(total, uint64_t(99 * 100 / 2) * (1999 * 2000 / 2));
}

TEST(HostPool, RethrowsTheFirstErrorAfterTheLoop) {
  HostPool pool(2);
  std::atomic<int> ran{0};
  EXPECT_THROW(pool.run(50,
                        [&](size_t i) {
                          ran.fetch_add(1);
                          if (i == 7) throw std::runtime_error("item 7");
                        }),
               std::runtime_error);
  EXPECT_EQ(ran.load(), 50) << "the other items still run";
  pool.run(3, [&](size_t) { ran.fetch_add(1); });  // usable afterwards
  EXPECT_EQ(ran.load(), 53);
  EXPECT_THROW(HostPool(0), std::invalid_argument);
}

}  // namespace
}  // namespace ipusim::tile
