// Runs a benchmarked program as a child process and measures it: the benchmarks time
// qemu-riscv32 and ipusim from outside, with the child's own CPU time and peak memory.
#pragma once

#include <string>
#include <vector>

namespace ipusim::bench {

struct ChildRun {
  bool started = false;     // false: the program could not be started
  int exit_status = -1;     // the exit code, or -1 if it died of a signal
  double wall_seconds = 0;
  double cpu_seconds = 0;   // user + system, of the child
  long max_rss_kib = 0;
};

// Runs argv (argv[0] is looked up in PATH unless it holds a '/') with stdout discarded,
// and stderr too if `discard_stderr`; waits for it.
ChildRun run_child(const std::vector<std::string>& argv, bool discard_stderr);

}  // namespace ipusim::bench
