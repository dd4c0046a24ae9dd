// The one way the tests and the benchmarks run another program (ipusim, gdb, qemu, a
// shell): a command with its arguments, environment and working directory; each standard
// stream to /dev/null, a file, a capture or a pipe the caller holds; a timeout after which
// the child and everything it started are killed, so no child can hang a suite; how it
// ended (exit status, signal, timed out) with its CPU time and peak memory.
//
// The child runs in a process group of its own (so a timeout also ends what a shell
// started). Plain C++ and POSIX (fork, execve), usable from threads: the child calls
// nothing but async-signal-safe functions before exec.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace ipusim::proc {

// Where one standard stream of the child goes (or, for stdin, comes from).
struct Stream {
  enum class Kind {
    null,     // /dev/null
    inherit,  // this process's own
    capture,  // read into Outcome::out / err (stdout, stderr)
    file,     // the file `path` (created or truncated; stdin: read); a regular file is read back into Outcome
    pipe,     // stdin or stdout: a pipe whose other end the caller holds (Child::stdin_fd / stdout_fd)
  };
  Kind kind = Kind::null;
  std::string path;  // file

  static Stream null() { return {}; }
  static Stream inherit() { return {Kind::inherit, {}}; }
  static Stream capture() { return {Kind::capture, {}}; }
  static Stream file(std::string path) { return {Kind::file, std::move(path)}; }
  static Stream pipe() { return {Kind::pipe, {}}; }
};

struct Command {
  // argv[0]: a path, or a name looked up in PATH.
  std::vector<std::string> argv;
  // Set in the child's environment, over this process's (a name without '=' unsets it).
  std::vector<std::string> env;
  std::string cwd;  // empty: this process's
  Stream in = Stream::null();
  Stream out = Stream::capture();
  Stream err = Stream::capture();
  // From the start: then the process group is killed (SIGKILL) and the outcome is
  // `timed_out`. Every child has one.
  double timeout_seconds = 300;
  std::optional<uint64_t> address_space_bytes;  // RLIMIT_AS of the child

  // `argv` with the defaults above.
  static Command program(std::vector<std::string> argv);
  // `/bin/sh -c script` (the script may redirect and `exec`).
  static Command shell(const std::string& script);
};

struct Outcome {
  bool started = false;
  std::string start_error;  // why it did not start ("cannot start X: No such file ...")
  bool exited = false;      // ended by exit
  int exit_status = -1;     // if `exited`
  int signal = 0;           // the signal that ended it, if not `exited` (SIGKILL after a timeout)
  bool timed_out = false;   // killed at its timeout
  int wait_status = 0;      // as waitpid gave it (WIFEXITED, WTERMSIG, ...)
  std::string out, err;     // Stream::capture, or the Stream::file read back
  double wall_seconds = 0;
  double cpu_seconds = 0;   // user + system, of the child and what it waited for
  long max_rss_kib = 0;     // its peak resident memory

  // "exit status 3", "killed by signal 11", "timed out after 10 s (killed)", "not started: ..."
  std::string describe() const;
};

// A running child. The destructor kills (SIGKILL, the process group) and reaps a child
// still running: a failed test never leaves one behind.
class Child {
 public:
  explicit Child(Command command);
  ~Child();
  Child(const Child&) = delete;
  Child& operator=(const Child&) = delete;

  bool started() const { return pid_ > 0; }
  pid_t pid() const { return pid_; }
  // The caller's ends of Stream::pipe (-1 otherwise). close_stdin(): the child reads end of
  // file; close_stdout(): what it writes then fails (SIGPIPE, EPIPE).
  int stdin_fd() const { return in_fd_; }
  int stdout_fd() const { return out_pipe_fd_; }
  void close_stdin();
  void close_stdout();
  // Sends `sig` to the child (not its group). False if it has been reaped.
  bool send_signal(int sig);
  // Has it ended? Reaps it if so (wait() then returns at once).
  bool ended();
  // Whether it ends within `seconds` (polling ended(); captures are read by wait(), so a
  // child that fills one may not end before it).
  bool ended_within(double seconds);
  // Until it ends (reading the captures meanwhile) or its timeout; at most once.
  Outcome wait();

 private:
  void reap(bool block);
  void kill_group();

  Command command_;
  Outcome outcome_;
  pid_t pid_ = -1;
  bool reaped_ = false;
  int raw_status_ = 0;
  int in_fd_ = -1, out_pipe_fd_ = -1;
  int capture_fd_[2] = {-1, -1};  // stdout, stderr capture pipes (parent's read ends)
  int pid_fd_ = -1;               // pidfd of the child: readable when it ends
  double start_ = 0;
};

// Runs `command` to its end (or its timeout).
Outcome run(const Command& command);

}  // namespace ipusim::proc
