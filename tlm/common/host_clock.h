// Host time for the run's own figures (where the host's time goes: docs/platform.md
// "Where the host time goes"), read often and cheaply: the time-stamp counter where
// there is one, a few cycles per reading, where the steady clock's 20-25 ns per reading
// showed up as 0.5 % of a run when read twice per tile; elsewhere the steady clock.
// Ticks are turned into seconds against the steady clock over the clock's life, so no
// tick rate is assumed. Host figures only: nothing simulated reads them.
#pragma once

#include <chrono>
#include <cstdint>

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#endif

namespace ipusim {

class HostClock {
 public:
  HostClock() : tick0_(ticks()), wall0_(std::chrono::steady_clock::now()) {}

  static uint64_t ticks() {
#if defined(__x86_64__) || defined(__i386__)
    return __rdtsc();
#else
    return uint64_t(std::chrono::steady_clock::now().time_since_epoch().count());
#endif
  }

  // `ticks_elapsed` in seconds, at the tick rate seen since this clock was made.
  double seconds(uint64_t ticks_elapsed) const {
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0_).count();
    const uint64_t all = ticks() - tick0_;
    return all == 0 ? 0.0 : double(ticks_elapsed) / double(all) * wall;
  }

 private:
  uint64_t tick0_;
  std::chrono::steady_clock::time_point wall0_;
};

// Adds the ticks from its making to its end to `*sum` (a component's host time).
class HostTicksScope {
 public:
  explicit HostTicksScope(uint64_t& sum) : sum_(sum), start_(HostClock::ticks()) {}
  ~HostTicksScope() { sum_ += HostClock::ticks() - start_; }
  HostTicksScope(const HostTicksScope&) = delete;
  HostTicksScope& operator=(const HostTicksScope&) = delete;

 private:
  uint64_t& sum_;
  uint64_t start_;
};

}  // namespace ipusim
