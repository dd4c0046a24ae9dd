// How far a run has got, for a progress display (`ipusim run` on a terminal; docs/platform.md).
// The platform reports it between the engine's batches, at most once per period, from
// counters the run keeps anyway: it reads, never changes, so results and cycles are the
// same with or without it. A run that is one long compute stretch (no sync) reports only
// when the stretch ends.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>

namespace ipusim::platform {

struct RunProgress {
  uint64_t supersteps = 0;        // supersteps closed so far (the most of any IPU)
  uint64_t instructions = 0;      // retired by every loaded tile so far
  double simulated_seconds = 0;   // simulated time since the run started
  double host_seconds = 0;        // wall time since the run started
  double mips() const { return host_seconds > 0 ? double(instructions) / host_seconds / 1e6 : 0; }
};

using ProgressReport = std::function<void(const RunProgress&)>;

// Decides when a report is due: at the first check, then once `period` has passed since
// the last one. One clock reading per check (per batch: nothing next to a batch).
class ProgressClock {
 public:
  using Clock = std::chrono::steady_clock;
  explicit ProgressClock(double period_seconds)
      : start_(Clock::now()), period_(std::chrono::duration_cast<Clock::duration>(
                                  std::chrono::duration<double>(period_seconds))) {}
  // True (and the period starts again) when a report is due.
  bool due() {
    const Clock::time_point now = Clock::now();
    if (reported_ && now - last_ < period_) return false;
    reported_ = true;
    last_ = now;
    return true;
  }
  double seconds() const { return std::chrono::duration<double>(Clock::now() - start_).count(); }

 private:
  Clock::time_point start_, last_;
  Clock::duration period_;
  bool reported_ = false;
};

}  // namespace ipusim::platform
