// Runs a program to completion with its stdout and stderr captured in files, for the
// firmware tests that drive qemu-riscv32 and `ipusim run` as separate processes.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace ipusim::fwtest {

struct ProcessResult {
  bool exited = false;   // ended by exit (not by a signal)
  int exit_status = -1;  // exit status if `exited`
  int signal = 0;        // terminating signal if not `exited`
  std::string out;       // everything it wrote to stdout
  std::string err;       // everything it wrote to stderr

  std::string describe() const;  // "exit status 3" / "killed by signal 11"
};

// Runs argv[0] (a path) with argv, stdout and stderr going to `stdout_file` and
// `stderr_file` (kept for inspection), and waits for it (proc::run: killed after its
// timeout). Throws std::runtime_error if it cannot be started.
ProcessResult run_process(const std::vector<std::string>& argv,
                          const std::filesystem::path& stdout_file,
                          const std::filesystem::path& stderr_file);

std::string read_file(const std::filesystem::path& path);

}  // namespace ipusim::fwtest
