// Wakes the driver's waiters when the device interrupts. The interrupt handler only
// bumps a generation under a mutex (it must not touch the transport); a waiter takes the
// generation before reading a register, then sleeps until it changes or a poll interval
// passes, so an interrupt between the read and the sleep is never lost and a device
// without interrupts is still polled.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>

namespace ipudrv::detail {

class IrqEvent {
 public:
  void fire() {
    std::lock_guard lock(m_);
    ++generation_;
    cv_.notify_all();
  }
  uint64_t generation() {
    std::lock_guard lock(m_);
    return generation_;
  }
  // Returns when the generation differs from `seen` or after `poll`.
  void wait(uint64_t seen, std::chrono::microseconds poll) {
    std::unique_lock lock(m_);
    cv_.wait_for(lock, poll, [&] { return generation_ != seen; });
  }

 private:
  std::mutex m_;
  std::condition_variable cv_;
  uint64_t generation_ = 0;
};

// Poll intervals: with interrupts a long safety net; without, a short back-off.
struct PollPolicy {
  bool interrupts = true;
  std::chrono::microseconds next(int round) const {
    if (interrupts) return std::chrono::milliseconds(20);
    const int us = round < 10 ? 20 : round < 100 ? 200 : 2000;
    return std::chrono::microseconds(us);
  }
};

}  // namespace ipudrv::detail
