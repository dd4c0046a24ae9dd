// console_queue.h: the console's bounded queue keeps its order, makes a producer wait while
// it is full and collecting (and only then), lets a waiting producer go when collecting
// stops, counts what it drops, and says when lines begin to wait.
#include "console_queue.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

namespace {

using ipusim::host_if::ConsoleLine;
using ipusim::wire::ConsoleQueue;
using namespace std::chrono_literals;

ConsoleLine line(uint32_t tile, std::string text) { return {0, tile, 0, std::move(text)}; }

TEST(ConsoleQueue, KeepsOrderAndTakesAPageAtATime) {
  ConsoleQueue q(1000);
  q.set_collecting(true);
  for (uint32_t i = 0; i < 5; ++i) q.push(line(i, std::string(10, 'x')));
  auto page = q.take(25);  // two lines of 10 bytes fit, a third does not
  ASSERT_EQ(page.size(), 2u);
  EXPECT_EQ(page[1].tile, 1u);
  page = q.take();
  ASSERT_EQ(page.size(), 3u);
  EXPECT_EQ(page[0].tile, 2u);
  EXPECT_EQ(page[2].tile, 4u);
  EXPECT_TRUE(q.empty());
  EXPECT_EQ(q.dropped(), 0u);
}

TEST(ConsoleQueue, NotCollectingDropsAndCounts) {
  ConsoleQueue q(1000);
  q.push(line(0, "lost"));  // a queue starts not collecting: nobody waits for it yet
  q.set_collecting(true);
  q.push(line(1, "kept"));
  q.set_collecting(false);
  q.push(line(2, "lost too"));
  const auto lines = q.take();
  ASSERT_EQ(lines.size(), 1u) << "lines queued before collecting stopped stay to be taken";
  EXPECT_EQ(lines[0].text, "kept");
  EXPECT_EQ(q.dropped(), 2u);
}

TEST(ConsoleQueue, AFullQueueHoldsTheProducerUntilATake) {
  ConsoleQueue q(16);
  q.set_collecting(true);
  q.push(line(0, std::string(16, 'a')));
  std::atomic<bool> pushed{false};
  std::thread producer([&] {
    q.push(line(1, "b"));
    pushed = true;
  });
  std::this_thread::sleep_for(50ms);
  EXPECT_FALSE(pushed) << "the producer went past a full queue";
  ASSERT_EQ(q.take().size(), 1u);
  producer.join();
  EXPECT_TRUE(pushed);
  const auto rest = q.take();
  ASSERT_EQ(rest.size(), 1u);
  EXPECT_EQ(rest[0].text, "b");
}

TEST(ConsoleQueue, StoppingCollectingReleasesAWaitingProducer) {
  ConsoleQueue q(4);
  q.set_collecting(true);
  q.push(line(0, "full"));
  std::thread producer([&] { q.push(line(1, "waits")); });
  std::this_thread::sleep_for(20ms);
  q.set_collecting(false);  // the reader is gone: the producer must not wait for ever
  producer.join();
  EXPECT_EQ(q.dropped(), 1u);
  EXPECT_EQ(q.take().size(), 1u);
}

TEST(ConsoleQueue, ALineLongerThanTheCapacityPassesAlone) {
  ConsoleQueue q(8);
  q.set_collecting(true);
  q.push(line(0, std::string(100, 'z')));
  const auto lines = q.take(8);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0].text.size(), 100u);
}

TEST(ConsoleQueue, PendingIsCalledWhenLinesBeginToWait) {
  ConsoleQueue q(1000);
  int calls = 0;
  q.set_pending([&] { ++calls; });
  q.set_collecting(true);
  q.push(line(0, "a"));
  q.push(line(0, "b"));  // the queue was not empty: the consumer knows already
  EXPECT_EQ(calls, 1);
  q.take();
  q.push(line(0, "c"));
  EXPECT_EQ(calls, 2);
}

}  // namespace
