// The clock every model keeps its time with: integer cycles converted to SystemC time.
#pragma once

#include <cstdint>

#include <systemc>

namespace ipusim {

// Converts integer tile cycles to SystemC time. Models keep time as integer cycles and
// convert once per wait: cycle c maps to round(c / hz) in the kernel's time resolution,
// computed exactly in integers, so time never accumulates rounding error and the same
// cycle always gives the same time on every host.
class TileClock {
 public:
  // `clock_hz` is rounded to a whole number of Hz. Throws std::invalid_argument if it is
  // not at least 1 Hz.
  explicit TileClock(double clock_hz);

  uint64_t hz() const { return hz_; }
  // SystemC time of `cycle`: the epoch (the time of cycle 0) plus the cycles' time;
  // sc_max_time() for a cycle beyond it (reachable() is false there).
  sc_core::sc_time time_of(uint64_t cycle) const;
  // Whether simulated time can reach `cycle` (its time is before sc_max_time()): about
  // 2^54 cycles at 1 GHz with a 1 ps resolution, 1.8e7 at 1 Hz.
  bool reachable(uint64_t cycle) const { return time_of(cycle) < sc_core::sc_max_time(); }
  // The latest cycle whose time_of() is not after `t` (0 before the epoch): where
  // simulated time has reached, in cycles.
  uint64_t cycle_at(const sc_core::sc_time& t) const;
  // Cycle 0 of a run is the time the run started (Platform::start_run), not
  // time 0: the clock reads it from `epoch`, which must outlive the clock (nullptr: time 0).
  void set_epoch(const sc_core::sc_time* epoch) { epoch_ = epoch; }
  double seconds_of(uint64_t cycle) const { return double(cycle) / double(hz_); }

 private:
  uint64_t hz_;
  uint64_t units_per_second_;  // of the kernel's time resolution (1e12 for 1 ps)
  const sc_core::sc_time* epoch_ = nullptr;
};

}  // namespace ipusim
