// An `ipusim serve` child process for the device-API tests: spawned on a scratch socket,
// waited for until the socket accepts a connection, stopped with SIGTERM and reaped at
// the end (its exit status is the test's business: a clean stop is exit 0).
#pragma once

#include <sys/types.h>

#include <memory>
#include <string>

#include "child_process.h"

namespace devapi {

class ServeChild {
 public:
  // Starts `ipusim serve --config <config> --socket <socket> --quiet` (firmware console
  // off) and returns once a client can connect; throws std::runtime_error with the
  // child's stderr if it exits or does not listen within a few seconds. With a
  // `stdout_path`, the server's own console is on (IPUSIM_CONSOLE=stdout) and its stdout
  // goes to that file.
  ServeChild(const std::string& config, const std::string& socket, const std::string& extra_args = "",
             const std::string& stdout_path = "");
  ~ServeChild();  // kills (SIGKILL) and reaps a child still running
  ServeChild(const ServeChild&) = delete;
  ServeChild& operator=(const ServeChild&) = delete;

  const std::string& socket() const { return socket_; }
  pid_t pid() const { return child_ ? child_->pid() : -1; }
  // SIGTERM, then waits; the raw wait status (-1 if the child was already reaped).
  int stop();
  // SIGKILL, then waits: the server vanishes mid-session.
  int kill_now();
  std::string stderr_text() const;

 private:
  std::string socket_;
  std::string stderr_path_;
  int reap();  // the raw wait status; the child is gone after it
  std::unique_ptr<ipusim::proc::Child> child_;
};

}  // namespace devapi
