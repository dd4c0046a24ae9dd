// Runs the real `ipusim` binary for the CLI tests: `ipusim ARGS` in a child with its
// stdout and stderr in per-test temporary files, its exit status and its peak RSS.
#pragma once

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "child_process.h"

namespace ipusim::test {

struct CliResult {
  int status = -1;
  std::string out;  // stdout: the console
  std::string err;  // stderr: summary and errors
  long max_rss_kib = 0;
};

inline std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// A file name of the running test's own: `prefix` + test name + `name` ("Case/param" of a
// parameterised test becomes "Case_param").
inline std::string temp_path(const std::string& prefix, const std::string& name) {
  std::string test = ::testing::UnitTest::GetInstance()->current_test_info()->name();
  for (char& c : test)
    if (c == '/') c = '_';
  return ::testing::TempDir() + prefix + test + "_" + name;
}

// `bin ARGS` (ARGS are shell words; the tests' paths have no spaces). The shell execs
// the binary, so the peak RSS is the simulator's.
inline CliResult run_command(const std::string& bin, const std::string& prefix, const std::string& args) {
  proc::Command command = proc::Command::shell("exec " + bin + " " + args);
  command.out = proc::Stream::file(temp_path(prefix, "stdout"));
  command.err = proc::Stream::file(temp_path(prefix, "stderr"));
  const proc::Outcome o = proc::run(command);
  CliResult r;
  r.status = o.exited ? o.exit_status : -1;
  r.max_rss_kib = o.max_rss_kib;
  r.out = o.out;
  r.err = o.err;
  return r;
}

// `bin run ARGS`.
inline CliResult run_cli(const std::string& bin, const std::string& prefix, const std::string& args) {
  return run_command(bin, prefix, "run " + args);
}

}  // namespace ipusim::test
