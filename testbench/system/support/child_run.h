// Runs a command in a child process with a hard deadline of the harness's own, for the
// tests that feed ipusim and the driver hostile inputs (cli_fuzz_test, config_property_test):
// stdout goes to /dev/null, stderr to a file, and a child still running at the deadline is
// killed (SIGKILL, with what it started: proc::Command's timeout) and reported as hung, so
// no input can stop the suite.
#pragma once

#include <atomic>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "child_process.h"

namespace ipusim::test {

struct ChildOutcome {
  enum class End { kExited, kSignalled, kHung };
  End end = End::kHung;
  int code = -1;    // exit status (kExited)
  int signal = 0;   // terminating signal (kSignalled)
  std::string err;  // stderr
  double seconds = 0;
};

// `argv` (argv[0] a path) with stderr into `err_path`; killed after `deadline_s` seconds.
inline ChildOutcome run_child(const std::vector<std::string>& argv, const std::string& err_path, double deadline_s) {
  proc::Command command = proc::Command::program(argv);
  command.out = proc::Stream::null();
  command.err = proc::Stream::file(err_path);
  command.timeout_seconds = deadline_s;
  const proc::Outcome o = proc::run(command);
  ChildOutcome r;
  r.err = o.err;
  r.seconds = o.wall_seconds;
  if (!o.started || o.timed_out) {
    r.end = o.started ? ChildOutcome::End::kHung : ChildOutcome::End::kExited;
    r.code = o.started ? -1 : 127;  // as the exec that failed in the child used to exit
    return r;
  }
  r.end = o.exited ? ChildOutcome::End::kExited : ChildOutcome::End::kSignalled;
  r.code = o.exit_status;
  r.signal = o.signal;
  return r;
}

// Calls `job(i)` for i in [0, count) on `workers` threads (each job runs its own children).
inline void run_parallel(size_t count, unsigned workers, const std::function<void(size_t)>& job) {
  std::atomic<size_t> next{0};
  std::vector<std::thread> threads;
  for (unsigned w = 0; w < workers; ++w)
    threads.emplace_back([&] {
      for (size_t i; (i = next.fetch_add(1)) < count;) job(i);
    });
  for (auto& t : threads) t.join();
}

}  // namespace ipusim::test
