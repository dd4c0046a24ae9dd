// How a run ended, or where it stopped for the host: one value, made where the platform
// finds the end (platform/platform.h Platform::outcome) and rendered at each edge without
// being derived again: `ipusim run`'s stderr lines, exit status and --json
// (tools/ipusim/run_stop.h report_end), the host interface's STATUS.STATE and ERR_*
// registers (tlm/host_if/run_domain.cpp), the debugger's stop (tlm/debug), and through
// the registers the driver's RunResult and exceptions (docs/host_driver.md).
//
// Plain C++ (no SystemC), beside the problem record it carries.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "common/problem.h"

namespace ipusim {

// Fault .. Interrupted are also the stops the platform's run control orders
// (platform/run_control.h): at one cycle the first of them in this order ends the run, so a
// run that ends otherwise at the cycle a budget runs out or an interrupt lands ended so.
enum class RunEndKind : uint8_t {
  Fault = 0,          // a tile faulted: problems = {the fault}
  ExchangeError = 1,  // an exchange (or a streaming-memory / host-stream copy) failed: every problem of it
  Deadlock = 2,       // a sync nobody completes, or tiles left waiting when nothing could move
                      // (a host stream nobody serves, tiles that never finish): problems = {it}
  Halted = 3,         // every booted tile halted (the exit code is the tiles', Platform::exit_status)
  Budget = 4,         // a cycle or instruction budget ran out: problems = {BUDGET}, running
  Interrupted = 5,    // the interrupt flag (Ctrl-C, --timeout, an unwritable console): {INTERRUPTED}, running
  Aborted = 6,        // the host's CTRL.ABORT, or the model gave the run up: problems = {STATE}
  Paused = 7,         // every IPU holds a sync release (RUN_SUPERSTEPS): a RUN continues the run
  StreamWait = 8,     // copies wait on host streams: a RUN continues it once the host served them
};

// "fault", "exchange error", "deadlock", "halted", "budget", "interrupted", "aborted",
// "paused", "stream wait".
const char* kind_name(RunEndKind kind);

// A tile still running where a budget or an interrupt stopped the run: where it stands.
struct RunningTile {
  uint32_t ipu = 0, tile = 0;
  uint32_t thread = 0;   // the thread that issues next (0 = supervisor)
  uint32_t pc = 0;
  uint64_t cycle = 0;    // the cycle that instruction would issue at (a cycle budget's: >= it)
  std::string function;  // the function pc lies in (iss::Program::locate), "" if unknown
  bool operator==(const RunningTile&) const = default;
};

struct RunEnd {
  RunEndKind kind = RunEndKind::Halted;
  // The run's last cycle where the run control stopped it (the stop's); none where the
  // simulation ran out of events (or paused) first.
  std::optional<uint64_t> cycle;
  // What ended it, the first being the one to report (empty for Halted, Paused, StreamWait).
  std::vector<Problem> problems;
  // Budget and Interrupted: every tile still running, (ipu, tile) order.
  std::vector<RunningTile> running;

  // No RUN continues it: every kind but Paused and StreamWait.
  bool over() const { return kind != RunEndKind::Paused && kind != RunEndKind::StreamWait; }
  // It ended on a problem: over and not Halted.
  bool failed() const { return over() && kind != RunEndKind::Halted; }
  // The problem that ended the run, or null.
  const Problem* problem() const { return failed() && !problems.empty() ? &problems.front() : nullptr; }
  // The problem when the run ended so, else null (empty).
  const Problem* fault() const { return kind == RunEndKind::Fault ? problem() : nullptr; }
  const Problem* deadlock() const { return kind == RunEndKind::Deadlock ? problem() : nullptr; }
  std::span<const Problem> exchange_errors() const {
    return kind == RunEndKind::ExchangeError ? std::span<const Problem>(problems) : std::span<const Problem>();
  }
  // A budget ran out or the run was interrupted: its BUDGET or INTERRUPTED problem.
  const Problem* stopped() const {
    return kind == RunEndKind::Budget || kind == RunEndKind::Interrupted ? problem() : nullptr;
  }

  bool operator==(const RunEnd&) const = default;
};

// STATUS.STATE after a run ended (or stopped) so: HALTED, PAUSED, STREAM_WAIT or ERROR.
uint32_t ipu_state(RunEndKind kind);

}  // namespace ipusim
