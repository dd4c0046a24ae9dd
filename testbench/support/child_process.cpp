#include "child_process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

extern char** environ;

namespace ipusim::proc {
namespace {

double now_seconds() {
  timespec t{};
  clock_gettime(CLOCK_MONOTONIC, &t);
  return double(t.tv_sec) + double(t.tv_nsec) * 1e-9;
}

// A regular file's bytes; nothing for a device (/dev/full reads zeros for ever).
std::string read_whole_file(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return {};
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// argv[0] as execve takes it: a path as given, a name found in PATH; empty if none.
std::string executable_path(const std::string& name) {
  if (name.find('/') != std::string::npos) return name;
  const char* path = std::getenv("PATH");
  std::string dirs = path ? path : "/usr/local/bin:/usr/bin:/bin";
  size_t begin = 0;
  while (begin <= dirs.size()) {
    const size_t end = std::min(dirs.find(':', begin), dirs.size());
    const std::string dir = end > begin ? dirs.substr(begin, end - begin) : ".";
    const std::string candidate = dir + "/" + name;
    struct stat st {};
    if (::stat(candidate.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(candidate.c_str(), X_OK) == 0)
      return candidate;
    begin = end + 1;
  }
  return {};
}

// This process's environment with `changes` ("NAME=value" sets, "NAME" unsets).
std::vector<std::string> child_environment(const std::vector<std::string>& changes) {
  std::vector<std::string> env;
  for (char** e = environ; *e; ++e) env.emplace_back(*e);
  for (const std::string& change : changes) {
    const std::string name = change.substr(0, change.find('='));
    std::erase_if(env, [&](const std::string& v) { return v.compare(0, name.size() + 1, name + "=") == 0; });
    if (change.find('=') != std::string::npos) env.push_back(change);
  }
  return env;
}

std::vector<char*> c_strings(std::vector<std::string>& strings) {
  std::vector<char*> out;
  for (std::string& s : strings) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

// The descriptor the child gets for `stream` as fd `target` (0, 1, 2), opened here; for a
// pipe or a capture, `parent_end` is this process's end. -1 for inherit; -2 on error.
int open_for_child(const Stream& stream, int target, int& parent_end, std::string& error) {
  switch (stream.kind) {
    case Stream::Kind::inherit:
      return -1;
    case Stream::Kind::null:
    case Stream::Kind::file: {
      const std::string path = stream.kind == Stream::Kind::null ? "/dev/null" : stream.path;
      const int flags = target == 0 ? O_RDONLY : O_WRONLY | O_CREAT | O_TRUNC;
      const int fd = ::open(path.c_str(), flags | O_CLOEXEC, 0644);
      if (fd < 0) error = "cannot open " + path + ": " + std::strerror(errno);
      return fd < 0 ? -2 : fd;
    }
    case Stream::Kind::capture:
    case Stream::Kind::pipe: {
      int fds[2];
      if (::pipe2(fds, O_CLOEXEC) != 0) {
        error = std::string("pipe: ") + std::strerror(errno);
        return -2;
      }
      // stdin: the child reads fds[0]; stdout / stderr: it writes fds[1].
      parent_end = target == 0 ? fds[1] : fds[0];
      return target == 0 ? fds[0] : fds[1];
    }
  }
  return -1;
}

void close_fd(int& fd) {
  if (fd >= 0) ::close(fd);
  fd = -1;
}

}  // namespace

Command Command::program(std::vector<std::string> argv) {
  Command c;
  c.argv = std::move(argv);
  return c;
}

Command Command::shell(const std::string& script) { return program({"/bin/sh", "-c", script}); }

std::string Outcome::describe() const {
  if (!started) return "not started: " + start_error;
  if (timed_out) return "timed out after " + std::to_string(int(std::lround(wall_seconds))) + " s (killed)";
  if (exited) return "exit status " + std::to_string(exit_status);
  return "killed by signal " + std::to_string(signal);
}

Child::Child(Command command) : command_(std::move(command)) {
  start_ = now_seconds();
  std::string& error = outcome_.start_error;
  const std::string path = command_.argv.empty() ? std::string() : executable_path(command_.argv[0]);
  if (path.empty()) {
    error = "cannot start " + (command_.argv.empty() ? std::string("(no command)") : command_.argv[0]) +
            ": not found";
    return;
  }
  std::vector<std::string> args = command_.argv, env = child_environment(command_.env);
  std::vector<char*> argv = c_strings(args), envp = c_strings(env);
  int child_fd[3] = {-1, -1, -1};
  int capture_out = -1, capture_err = -1;
  const Stream* streams[3] = {&command_.in, &command_.out, &command_.err};
  int* parent_ends[3] = {&in_fd_, &capture_out, &capture_err};
  bool ok = true;
  for (int i = 0; i < 3 && ok; ++i) {
    child_fd[i] = open_for_child(*streams[i], i, *parent_ends[i], error);
    ok = child_fd[i] != -2;
  }
  int exec_error[2] = {-1, -1};  // the child writes errno here if it cannot exec
  if (ok && ::pipe2(exec_error, O_CLOEXEC) != 0) {
    error = std::string("pipe: ") + std::strerror(errno);
    ok = false;
  }
  rlimit limit{};
  if (command_.address_space_bytes) limit.rlim_cur = limit.rlim_max = rlim_t(*command_.address_space_bytes);
  const char* cwd = command_.cwd.empty() ? nullptr : command_.cwd.c_str();
  if (ok) {
    pid_ = ::fork();
    if (pid_ == 0) {
      // Async-signal-safe calls only, up to exec.
      ::setpgid(0, 0);
      for (int i = 0; i < 3; ++i)
        if (child_fd[i] >= 0 && ::dup2(child_fd[i], i) < 0) break;
      int failure = 0;
      if (cwd && ::chdir(cwd) != 0) failure = errno;
      if (!failure && command_.address_space_bytes && ::setrlimit(RLIMIT_AS, &limit) != 0) failure = errno;
      if (!failure) {
        ::execve(path.c_str(), argv.data(), envp.data());
        failure = errno;
      }
      [[maybe_unused]] const ssize_t n = ::write(exec_error[1], &failure, sizeof failure);
      ::_exit(127);
    }
    if (pid_ < 0) error = std::string("fork: ") + std::strerror(errno);
  }
  for (int& fd : child_fd)
    if (fd >= 0) ::close(fd);
  if (pid_ > 0) {
    ::setpgid(pid_, pid_);  // as the child does: whichever runs first
    close_fd(exec_error[1]);
    int failure = 0;
    ssize_t n;
    while ((n = ::read(exec_error[0], &failure, sizeof failure)) < 0 && errno == EINTR) {
    }
    close_fd(exec_error[0]);
    if (n == ssize_t(sizeof failure)) {
      error = "cannot start " + command_.argv[0] + (cwd ? " in " + command_.cwd : "") + ": " + std::strerror(failure);
      reap(true);
      pid_ = -1;
    }
  } else {
    close_fd(exec_error[0]);
    close_fd(exec_error[1]);
  }
  if (pid_ <= 0) {
    close_fd(in_fd_);
    close_fd(capture_out);
    close_fd(capture_err);
    return;
  }
  outcome_.started = true;
  // Readable when the child ends: wait() wakes at once (Linux 5.3; else it polls).
  pid_fd_ = int(::syscall(SYS_pidfd_open, pid_, 0));
  // A pipe the caller reads is theirs; a capture is read by wait().
  if (command_.out.kind == Stream::Kind::pipe) std::swap(out_pipe_fd_, capture_out);
  if (command_.err.kind == Stream::Kind::pipe) close_fd(capture_err);  // not offered: stderr goes to a file or a capture
  capture_fd_[0] = capture_out;
  capture_fd_[1] = capture_err;
}

Child::~Child() {
  if (pid_ > 0 && !reaped_) {
    kill_group();
    reap(true);
  }
  close_fd(in_fd_);
  close_fd(out_pipe_fd_);
  close_fd(capture_fd_[0]);
  close_fd(capture_fd_[1]);
  close_fd(pid_fd_);
}

void Child::close_stdin() { close_fd(in_fd_); }

void Child::close_stdout() { close_fd(out_pipe_fd_); }

bool Child::send_signal(int sig) { return pid_ > 0 && !reaped_ && ::kill(pid_, sig) == 0; }

void Child::kill_group() {
  if (pid_ > 0 && !reaped_) ::kill(-pid_, SIGKILL);
}

void Child::reap(bool block) {
  if (reaped_ || pid_ <= 0) return;
  rusage usage{};
  int status = 0;
  pid_t done;
  while ((done = ::wait4(pid_, &status, block ? 0 : WNOHANG, &usage)) < 0 && errno == EINTR) {
  }
  if (done != pid_) return;
  reaped_ = true;
  raw_status_ = status;
  outcome_.cpu_seconds = double(usage.ru_utime.tv_sec) + usage.ru_utime.tv_usec * 1e-6 +
                         double(usage.ru_stime.tv_sec) + usage.ru_stime.tv_usec * 1e-6;
  outcome_.max_rss_kib = usage.ru_maxrss;
}

bool Child::ended() {
  reap(false);
  return reaped_;
}

bool Child::ended_within(double seconds) {
  const double until = now_seconds() + seconds;
  while (!ended() && now_seconds() < until) ::usleep(5000);
  return ended();
}

Outcome Child::wait() {
  if (pid_ <= 0) return outcome_;
  std::string* sinks[2] = {&outcome_.out, &outcome_.err};
  const double deadline = start_ + command_.timeout_seconds;
  // Past the deadline (the group killed if the child still ran), the captures are read
  // for one more second: a descendant that left the group may hold one open.
  double drain_until = 0;
  for (;;) {
    reap(false);
    const bool open = capture_fd_[0] >= 0 || capture_fd_[1] >= 0;
    if (reaped_ && !open) break;
    const double now = now_seconds();
    if (now >= deadline) {
      if (!reaped_) {
        outcome_.timed_out = true;
        kill_group();
        reap(true);
      }
      if (drain_until == 0) drain_until = now + 1;
    }
    if (drain_until > 0 && now >= drain_until) break;
    pollfd fds[3];
    nfds_t n = 0;
    for (int fd : capture_fd_)
      if (fd >= 0) fds[n++] = {fd, POLLIN, 0};
    if (!reaped_ && pid_fd_ >= 0) fds[n++] = {pid_fd_, POLLIN, 0};
    const double until = drain_until > 0 ? drain_until : deadline;
    int wait_ms = int(std::ceil(std::max(0.0, until - now) * 1000));
    if (!reaped_ && pid_fd_ < 0) wait_ms = std::min(wait_ms, 5);  // no pidfd: poll for the end
    if (n == 0) {
      ::usleep(useconds_t(wait_ms) * 1000);
      continue;
    }
    if (::poll(fds, n, wait_ms) <= 0) continue;
    for (int s = 0; s < 2; ++s) {
      int& fd = capture_fd_[s];
      if (fd < 0) continue;
      for (nfds_t i = 0; i < n; ++i) {
        if (fds[i].fd != fd || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
        char buf[65536];
        const ssize_t got = ::read(fd, buf, sizeof buf);
        if (got > 0)
          sinks[s]->append(buf, size_t(got));
        else if (got == 0 || errno != EINTR)
          close_fd(fd);
      }
    }
  }
  close_fd(capture_fd_[0]);
  close_fd(capture_fd_[1]);
  outcome_.wall_seconds = now_seconds() - start_;
  outcome_.wait_status = raw_status_;
  outcome_.exited = WIFEXITED(raw_status_);
  outcome_.exit_status = outcome_.exited ? WEXITSTATUS(raw_status_) : -1;
  outcome_.signal = WIFSIGNALED(raw_status_) ? WTERMSIG(raw_status_) : 0;
  if (command_.out.kind == Stream::Kind::file) outcome_.out = read_whole_file(command_.out.path);
  if (command_.err.kind == Stream::Kind::file) outcome_.err = read_whole_file(command_.err.path);
  return outcome_;
}

Outcome run(const Command& command) {
  Child child(command);
  return child.wait();
}

}  // namespace ipusim::proc
