// How `ipusim run` ends a run and says how it ended: run budgets and interrupts
// (docs/platform.md "Run budgets and interrupts": the options, the timeout's watchdog and
// Ctrl-C), and the run's end (common/run_end.h) rendered as stderr lines, JSON keys and
// the exit status.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <mutex>
#include <string>
#include <thread>

#include <nlohmann/json.hpp>

#include "platform/platform.h"
#include "stop_options.h"

namespace ipusim::cli {

// Exit statuses: a fault, a failed exchange or a deadlock; a console (stdout) that could
// not be written. A run stopped short: a budget used up, the --timeout (as coreutils
// `timeout`), Ctrl-C (128 + SIGINT, as a shell reports it).
inline constexpr int kFaultStatus = 3;
// A model stopped the run (a MODEL problem: an RTL block's failed check), as any other
// error of ipusim itself or its input.
inline constexpr int kModelErrorStatus = 2;
inline constexpr int kConsoleErrorStatus = 5;
inline constexpr int kBudgetStatus = 4;
inline constexpr int kTimeoutStatus = 124;
inline constexpr int kInterruptStatus = 130;

// --timeout's seconds (0: none). Throws std::invalid_argument naming the option and the
// value for anything but a positive decimal number of seconds.
double timeout_seconds(const std::optional<std::string>& text);

// While alive: Ctrl-C and the timeout interrupt the platform's run (RunBudget::interrupt:
// its tiles pause, the run ends at the current simulated time). A second Ctrl-C kills the
// process (the handler is one-shot). The destructor stops the watchdog and restores
// SIGINT.
class RunInterrupts {
 public:
  RunInterrupts(platform::RunBudget& budget, double timeout_seconds);
  ~RunInterrupts();
  RunInterrupts(const RunInterrupts&) = delete;
  RunInterrupts& operator=(const RunInterrupts&) = delete;
  bool timed_out() const { return timed_out_.load(); }

 private:
  platform::RunBudget& budget_;
  std::atomic<bool> timed_out_{false};
  std::mutex mutex_;
  std::condition_variable cv_;
  bool done_ = false;
  std::thread watchdog_;
};

// While alive (the netlist's elaboration and the program's load): if `timeout_seconds`
// (0: none) pass first, the process ends with "ipusim: timeout: ..." naming `system` and
// status 124. SystemC cannot interrupt an elaboration, and one of an oversized system
// (thousands of IPUs) takes minutes: --timeout bounds it as it bounds the run (found by
// cli_fuzz_test). Nothing has run or been printed to stdout yet, so nothing is lost.
class ElaborationDeadline {
 public:
  ElaborationDeadline(double timeout_seconds, std::string system);
  ~ElaborationDeadline();
  ElaborationDeadline(const ElaborationDeadline&) = delete;
  ElaborationDeadline& operator=(const ElaborationDeadline&) = delete;

 private:
  std::mutex mutex_;
  std::condition_variable cv_;
  bool done_ = false;
  std::thread watchdog_;
};

// What stopped the run short, where the run's end (Budget, Interrupted) does not say it
// alone: the interrupt flag has three sources, and a console error wins over the stop.
enum class StopReason { None, Budget, Timeout, Interrupt, ConsoleError };

// The run's StopReason: None unless it ended on a budget or an interrupt; ConsoleError
// when the console could not be written (its status (5) and line win over the stop's).
StopReason stop_reason(const platform::RunResult& result, bool timed_out);
// The JSON `stop_reason`: "cycle budget" / "instruction budget" (the budget's kind),
// "timeout", "interrupt", "console error", or "" (None: null in the JSON).
std::string stop_reason_text(StopReason reason, const platform::RunResult& result);

// Prints how the run ended to `err` and returns the exit status: a fault ("ipusim: fault:
// ..." and its registers), every problem of a failed exchange ("ipusim: exchange error:
// ..."), a deadlock ("ipusim: fault: ...") exit 3; a console error 5 (its line is the
// caller's); a stop (report_stop); else the tiles' exit status (RunResult::exit_status).
// `reason`: stop_reason()'s.
int report_end(const platform::RunResult& result, StopReason reason, double timeout, std::FILE* err);

// Prints the stop and the tiles still running to `err` (a summary when there are many:
// tiles grouped by where they are) and returns the exit status.
int report_stop(const platform::RunResult& result, StopReason reason, double timeout, std::FILE* err);

// The JSON keys of the run's end: `fault`, `deadlock`, `exchange_errors` (texts as the CLI
// prints them), `error` (the problem that ended the run, as fields), then those of the
// stop: `stop_reason`, `limits`, `running` (every tile still running).
void add_end_json(nlohmann::ordered_json& j, const platform::RunResult& result, StopReason reason,
                  const StopOptions& options);

}  // namespace ipusim::cli
