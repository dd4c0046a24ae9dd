// The tiles' console on its way to a host program: a bounded queue between the device's
// threads, which push each line through DeviceLink::set_console_handler, and the driver's
// run loop, which takes them and calls the program's callback. The in-process transport
// keeps one; so does `ipusim serve` for its client, which takes them with CONSOLE_READ.
//
// Bounded memory: while collecting, a push into a full queue waits until the consumer
// takes lines, and the simulation waits with it (a tile printing in a loop cannot grow
// the host without bound; the simulated cycles are unchanged). When nobody collects
// (no run() is waiting on the device, e.g. a run that timed out goes on), lines are
// dropped and counted, so a producer never waits for a consumer that is not there.
// docs/host_driver.md, "Console".
#pragma once

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <vector>

#include "host_if/device_link.h"

namespace ipusim::wire {

class ConsoleQueue {
 public:
  // At most about `capacity_bytes` of text waits (a longer line is taken alone).
  explicit ConsoleQueue(size_t capacity_bytes = size_t{256} << 10) : capacity_(capacity_bytes) {}

  // Producer (a device thread). Collecting: waits while the queue is full, then queues
  // the line; not collecting (or stopped collecting while it waited): drops it.
  void push(host_if::ConsoleLine line);
  // Consumer: the oldest lines, up to `max_bytes` of text (at least one line if any
  // waits); empty when none does.
  std::vector<host_if::ConsoleLine> take(size_t max_bytes = SIZE_MAX);
  bool empty() const;

  // Off: every later line, and the one a producer waits with, is dropped.
  void set_collecting(bool on);
  // Lines dropped so far (not collecting).
  uint64_t dropped() const;
  // Called when a line is queued into an empty queue (on the producer's thread, with no
  // lock held): the consumer has something to take. Keep it short; it must not push.
  void set_pending(std::function<void()> pending);

 private:
  const size_t capacity_;
  mutable std::mutex mutex_;
  std::condition_variable room_;  // a producer waits on it for room or for collecting off
  std::deque<host_if::ConsoleLine> lines_;
  size_t bytes_ = 0;
  bool collecting_ = false;
  uint64_t dropped_ = 0;
  std::function<void()> pending_;
};

}  // namespace ipusim::wire
