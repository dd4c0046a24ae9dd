// Runs the real `ipusim` binary for the CLI tests: `ipusim ARGS` in a child with its
// stdout and stderr in per-test temporary files, its exit status and its peak RSS.
#pragma once

#include <gtest/gtest.h>

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <sstream>
#include <string>

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
// the binary, so wait4's peak RSS is the simulator's.
inline CliResult run_command(const std::string& bin, const std::string& prefix, const std::string& args) {
  const std::string out = temp_path(prefix, "stdout"), err = temp_path(prefix, "stderr");
  const std::string cmd = "exec " + bin + " " + args + " >" + out + " 2>" + err;
  const pid_t pid = fork();
  if (pid == 0) {
    execl("/bin/sh", "sh", "-c", cmd.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  int raw = 0;
  rusage usage{};
  CliResult r;
  if (pid > 0 && wait4(pid, &raw, 0, &usage) == pid) {
    r.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
    r.max_rss_kib = usage.ru_maxrss;
  }
  r.out = read_file(out);
  r.err = read_file(err);
  return r;
}

// `bin run ARGS`.
inline CliResult run_cli(const std::string& bin, const std::string& prefix, const std::string& args) {
  return run_command(bin, prefix, "run " + args);
}

}  // namespace ipusim::test
