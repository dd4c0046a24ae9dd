// Run budgets and interrupts: where a run stops short of its end (docs/platform.md "Run
// budgets and interrupts").
//
// Every booted tile runs with the budget's iss::RunBounds, so its core pauses before an
// instruction (Tile::paused) at
//   - the cycle budget: no instruction issues at or after tile cycle max_cycles, and the
//     run control stops the run at that cycle, so tiles waiting at a sync or an exchange
//     do not go past it either: exact, the same on every host thread count;
//   - the instruction budget: no tile retires more than max_instructions on its own, and
//     after each compute batch (a point in simulated time fixed by simulated figures
//     alone) the instructions of every tile are summed: once they reach max_instructions
//     the run stops (below). Tiles compute ahead of simulated time, so the sum counts
//     whole stretches: the run retires at least max_instructions (at most that many per
//     tile of the batch), exactly the same number on every host thread count;
//   - the interrupt flag (a timeout, Ctrl-C, a host's abort / reset / close), set from any
//     thread: tiles pause at their next quantum. `ipusim run` then ends the run
//     (end_on_interrupt); a host's device only pauses its tiles and lets the host's
//     command (abort, reset) end the run. Where an interrupt stops depends on host timing.
// The instruction budget and an interrupt end the run after the batch, at the latest of
// the current simulated time and the cycles the batch's paused tiles reached: tiles
// compute ahead of simulated time, so a tile that halted before a looping tile paused
// ends the run halted, and the tiles still running are the ones that really were.
// The probe of RunBounds belongs to a debugger, not to this file.
#pragma once

#include <atomic>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/problem.h"
#include "iss/tile_core.h"
#include "platform/run_control.h"

namespace ipusim::tile {
class Tile;
}

namespace ipusim::platform {

struct RunLimits {
  uint64_t max_cycles = 0;        // 0: none
  uint64_t max_instructions = 0;  // 0: none
  bool operator==(const RunLimits&) const = default;
};

// A tile still computing when a run stopped short (common/run_end.h).
using ipusim::RunningTile;

// A tile waiting when a run stopped short: a stop with no tile running (every one waits
// at a sync or an exchange nobody completes, across IPUs) names these instead.
struct WaitingTile {
  uint32_t ipu = 0, tile = 0;
  uint32_t pc = 0;       // the supervisor's
  std::string function;  // the function pc lies in, "" if unknown
  std::string what;      // "at sync (zone 2)", "at exchange"
};

class RunBudget {
 public:
  RunBudget();
  RunBudget(const RunBudget&) = delete;
  RunBudget& operator=(const RunBudget&) = delete;

  // The limits of the runs started from now on (between runs only: the bounds every
  // tile reads change with them).
  void set_limits(const RunLimits& limits);
  const RunLimits& limits() const { return limits_; }
  // What every booted tile runs with (the pointer stays valid for the budget's life).
  const iss::RunBounds* bounds() const { return &bounds_; }

  // Any thread, a signal handler included (a lock-free atomic store).
  void interrupt() { interrupt_.store(true, std::memory_order_release); }
  bool interrupted() const { return interrupt_.load(std::memory_order_acquire); }
  void clear_interrupt() { interrupt_.store(false, std::memory_order_release); }
  std::atomic<bool>& interrupt_flag() { return interrupt_; }
  // true (`ipusim run`): an interrupt ends the run at the current simulated time; false
  // (a host's device, the default): it only pauses the tiles for the host's command.
  void set_end_on_interrupt(bool end) { end_on_interrupt_ = end; }

  // The kernel's thread, during a run. Each returns the stop to request, if any.
  // The run starts (cycle 0): the cycle budget's stop.
  std::optional<StopRequest> start();
  // `tile` paused at one of the bounds: where it reached.
  void tile_paused(const tile::Tile& tile);
  // A compute batch ended; `total`: the instructions of every tile so far.
  std::optional<StopRequest> batch_ended(uint64_t total, uint64_t now);
  // Whether batch_ended needs the total (an instruction budget is set).
  bool counts_instructions() const { return limits_.max_instructions != 0; }
  // Whether batch_ended can ask for anything now (else its caller skips it).
  bool acts_after_batch() const { return counts_instructions() || (end_on_interrupt_ && interrupted()); }

  // The problem record of a stop this budget asked for (kind Budget or Interrupted):
  // code BUDGET or INTERRUPTED, the first running tile named, `running` counted; with no
  // tile running, the first `waiting` one named and up to 8 of them listed.
  Problem problem(const StopRequest& stop, const std::vector<RunningTile>& running, uint64_t instructions,
                  const std::vector<WaitingTile>& waiting = {}) const;

 private:
  RunLimits limits_;
  iss::RunBounds bounds_;
  std::atomic<bool> interrupt_{false};
  bool end_on_interrupt_ = false;
  std::optional<uint64_t> instruction_stop_;  // the cycle the instruction budget asked to stop at
  bool interrupt_requested_ = false;
  uint64_t reached_ = 0;  // the latest pause cycle of an instruction limit or interrupt
};

}  // namespace ipusim::platform
