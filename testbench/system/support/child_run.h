// Runs a command in a child process with a hard deadline of the harness's own, for the
// tests that feed ipusim and the driver hostile inputs (cli_fuzz_test, config_property_test):
// stdout goes to /dev/null, stderr to a file, and a child still running at the deadline is
// killed (SIGKILL) and reported as hung, so no input can stop the suite.
#pragma once

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

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
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  const auto start = std::chrono::steady_clock::now();
  const pid_t pid = fork();
  if (pid == 0) {
    const int out = open("/dev/null", O_WRONLY);
    const int err = open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (out < 0 || err < 0) _exit(126);
    dup2(out, 1);
    dup2(err, 2);
    execv(args[0], args.data());
    _exit(127);
  }
  ChildOutcome r;
  if (pid < 0) return r;
  int raw = 0;
  auto pause = std::chrono::milliseconds(1);
  for (;;) {
    const pid_t done = waitpid(pid, &raw, WNOHANG);
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (done == pid) break;
    if (r.seconds > deadline_s) {
      kill(pid, SIGKILL);
      waitpid(pid, &raw, 0);
      r.end = ChildOutcome::End::kHung;
      std::ifstream in(err_path);
      std::stringstream s;
      s << in.rdbuf();
      r.err = s.str();
      return r;
    }
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, std::chrono::milliseconds(20));
  }
  if (WIFSIGNALED(raw)) {
    r.end = ChildOutcome::End::kSignalled;
    r.signal = WTERMSIG(raw);
  } else {
    r.end = ChildOutcome::End::kExited;
    r.code = WEXITSTATUS(raw);
  }
  std::ifstream in(err_path);
  std::stringstream s;
  s << in.rdbuf();
  r.err = s.str();
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
