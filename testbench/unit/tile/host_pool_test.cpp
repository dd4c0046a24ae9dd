// HostPool: every item runs exactly once, on several threads when asked, and errors come
// back to the caller.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
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

TEST(HostPool, RunOrderedCallsThenInOrderAfterEachBody) {
  for (unsigned threads : {1u, 2u, 4u}) {
    HostPool pool(threads);
    for (int loop = 0; loop < 50; ++loop) {
      const size_t count = 1 + size_t(loop) * 7 % 200;
      std::vector<std::atomic<int>> body_done(count);
      std::vector<size_t> order;
      const auto caller = std::this_thread::get_id();
      pool.run_ordered(
          count,
          [&](size_t i) {
            if (i % 5 == 0) std::this_thread::sleep_for(std::chrono::microseconds(50));  // uneven
            body_done[i].store(1);
          },
          [&](size_t i) {
            EXPECT_EQ(std::this_thread::get_id(), caller);
            EXPECT_EQ(body_done[i].load(), 1) << "then(" << i << ") before its body";
            order.push_back(i);
          });
      ASSERT_EQ(order.size(), count);
      for (size_t i = 0; i < count; ++i) EXPECT_EQ(order[i], i);
    }
    pool.run(3, [](size_t) {});  // the plain loop still works after ordered ones
  }
}

TEST(HostPool, RunOrderedStopsAtABodyErrorAndAtAThenError) {
  HostPool pool(3);
  std::atomic<int> bodies{0};
  std::vector<size_t> thens;
  EXPECT_THROW(pool.run_ordered(
                   40,
                   [&](size_t i) {
                     bodies.fetch_add(1);
                     if (i == 10) throw std::runtime_error("body 10");
                   },
                   [&](size_t i) { thens.push_back(i); }),
               std::runtime_error);
  EXPECT_EQ(bodies.load(), 40);
  for (size_t i : thens) EXPECT_LT(i, 10u) << "no then() at or after the failed body";
  EXPECT_THROW(pool.run_ordered(
                   40, [](size_t) {},
                   [](size_t i) {
                     if (i == 5) throw std::logic_error("then 5");
                   }),
               std::logic_error);
  std::atomic<int> after{0};
  pool.run_ordered(8, [&](size_t) { after.fetch_add(1); }, [](size_t) {});
  EXPECT_EQ(after.load(), 8);
}

}  // namespace
}  // namespace ipusim::tile
