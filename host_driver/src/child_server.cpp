// start_child_server (child_server.h). The process is multithreaded (the model's threads,
// the program's), so the child is started with posix_spawn, never fork + exec of code
// that may take a lock another thread held. It gets:
//   - its own process group: a terminal's Ctrl-C reaches the program, which decides;
//   - standard input: the read end of a pipe whose write end only this process holds
//     (close-on-exec, so no other child inherits it), with --exit-with-parent: the
//     child ends when this process does, however it ends (PR_SET_PDEATHSIG would end it
//     when the *thread* that started it exits, e.g. a notebook's worker thread);
//   - standard error: a pipe this process reads on a thread of the child's, held while
//     the child starts (the error's text if it never serves), then copied to ours.
#include "child_server.h"

#include <fcntl.h>
#include <pthread.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/eventfd.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <regex>
#include <string>
#include <thread>
#include <vector>

#include "ipudrv/errors.h"
#include "ipusim_binary.h"
#include "transports/socket_transport.h"

extern char** environ;

namespace ipudrv::detail {
namespace {

// A child that neither serves nor ends within this is killed: a GC200 answers in under
// 0.1 s here, and this leaves the largest pods room on a loaded machine: a child still
// silent past it is hung.
constexpr auto kChildStartTimeout = std::chrono::seconds(300);
// SIGTERM ends a server at once whatever its session does (docs/host_driver.md "ipusim
// serve"); past this it is killed.
constexpr auto kChildStopTimeout = std::chrono::seconds(10);
constexpr size_t kHeldStderrBytes = 64 * 1024;  // the tail of a starting child's stderr

std::string errno_text(int e) { return std::strerror(e); }

// The write ends of the children's life pipes. A fork() without exec (Python's
// multiprocessing, os.fork) would copy them, and a child server lives until every copy is
// closed: the forked process closes its copies at once (pthread_atfork). Lock-free slots,
// because the handler runs in the forked child, where a mutex may be held by a thread
// that no longer exists; a pipe that finds no free slot stays open in forks.
constexpr size_t kLifeSlots = 256;
std::atomic<int> g_life_fds[kLifeSlots];

void close_life_fds_in_fork() {
  for (auto& slot : g_life_fds)
    if (const int fd = slot.exchange(-1); fd >= 0) ::close(fd);
}

void register_life_fd(int fd) {
  static std::once_flag installed;
  std::call_once(installed, [] {
    for (auto& slot : g_life_fds) slot.store(-1);
    ::pthread_atfork(nullptr, nullptr, close_life_fds_in_fork);
  });
  for (auto& slot : g_life_fds) {
    int free = -1;
    if (slot.compare_exchange_strong(free, fd)) return;
  }
}

void unregister_life_fd(int fd) {
  for (auto& slot : g_life_fds) {
    int mine = fd;
    if (slot.compare_exchange_strong(mine, -1)) return;
  }
}

// The child's stderr, read on a thread: held while it starts, then passed to ours.
class StderrRelay {
 public:
  explicit StderrRelay(int fd) : fd_(fd), wake_(::eventfd(0, EFD_CLOEXEC)) {
    if (wake_ < 0) {
      ::close(fd_);
      throw TransportError("ipusim serve child: eventfd: " + errno_text(errno));
    }
    thread_ = std::thread([this] { loop(); });
  }
  ~StderrRelay() {
    finish();
    ::close(fd_);
    ::close(wake_);
  }
  StderrRelay(const StderrRelay&) = delete;
  StderrRelay& operator=(const StderrRelay&) = delete;

  // What was held, and everything after it, to this process's stderr.
  void pass_through() {
    std::lock_guard lock(mutex_);
    write_stderr(held_);
    held_.clear();
    through_ = true;
  }
  std::string held() const {
    std::lock_guard lock(mutex_);
    return held_;
  }
  // The child has ended: what it wrote is in the pipe; read it, then stop.
  void finish() {
    if (!thread_.joinable()) return;
    const uint64_t one = 1;
    ssize_t ignored = ::write(wake_, &one, sizeof one);
    static_cast<void>(ignored);
    thread_.join();
  }

 private:
  static void write_stderr(const std::string& text) {
    for (size_t at = 0; at < text.size();) {
      const ssize_t n = ::write(2, text.data() + at, text.size() - at);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return;
      at += size_t(n);
    }
  }
  void take(const char* data, size_t n) {
    std::lock_guard lock(mutex_);
    if (through_) {
      write_stderr(std::string(data, n));
      return;
    }
    held_.append(data, n);
    if (held_.size() > kHeldStderrBytes) held_.erase(0, held_.size() - kHeldStderrBytes);
  }
  // Reads until end of file (every writer gone) or, once woken, until the pipe is empty.
  void loop() {
    char buf[4096];
    bool woken = false;
    for (;;) {
      pollfd p[2] = {{fd_, POLLIN, 0}, {wake_, POLLIN, 0}};
      if (!woken && ::poll(p, 2, -1) < 0) {
        if (errno == EINTR) continue;
        return;
      }
      if (!woken && (p[1].revents & POLLIN)) {
        woken = true;
        ::fcntl(fd_, F_SETFL, ::fcntl(fd_, F_GETFL) | O_NONBLOCK);
      }
      if (woken || (p[0].revents & (POLLIN | POLLHUP | POLLERR))) {
        const ssize_t n = ::read(fd_, buf, sizeof buf);
        if (n > 0) {
          take(buf, size_t(n));
          continue;
        }
        if (n < 0 && errno == EINTR) continue;
        return;  // end of file, or nothing left once woken
      }
    }
  }

  int fd_;
  int wake_;
  std::thread thread_;
  mutable std::mutex mutex_;
  std::string held_;
  bool through_ = false;
};

// A private directory for the socket: $TMPDIR's (else /tmp's) ipudrv-XXXXXX, mode 0700.
std::string make_private_dir() {
  std::string base = "/tmp";
  if (const char* t = std::getenv("TMPDIR"); t && *t) base = t;
  // The socket path must fit sockaddr_un.
  if (base.size() + sizeof("/ipudrv-XXXXXX/serve.sock") > sizeof(sockaddr_un::sun_path)) base = "/tmp";
  std::string dir = base + "/ipudrv-XXXXXX";
  if (!::mkdtemp(dir.data()))
    throw TransportError("ipusim serve child: cannot make a directory for its socket in " + base + ": " +
                         errno_text(errno));
  return dir;
}

// One `ipusim serve` child: started here, ended (SIGTERM, then SIGKILL past
// kChildStopTimeout; always reaped) and its directory removed when the last transport of
// its device lets go of it.
class ChildServer {
 public:
  ChildServer(const std::string& binary, const std::string& config_path, const ChildOptions& options)
      : dir_(make_private_dir()), socket_(dir_ + "/serve.sock") {
    std::vector<std::string> args = {binary,  "serve",          "--config", config_path,       "--socket",
                                     socket_, "--idle-timeout", "0",        "--exit-with-parent", "--quiet"};
    if (options.max_memory) args.insert(args.end(), {"--max-memory", std::to_string(*options.max_memory)});
    if (options.gdb_port) args.insert(args.end(), {"--gdb", std::to_string(*options.gdb_port)});
    if (!options.core_dir.empty()) args.insert(args.end(), {"--core", options.core_dir});
    if (options.rtl) args.insert(args.end(), {"--rtl", *options.rtl});
    if (!options.waves.empty()) args.insert(args.end(), {"--waves", options.waves});
    if (options.iss) args.insert(args.end(), {"--iss", *options.iss});
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);

    int life[2] = {-1, -1}, err[2] = {-1, -1};
    if (::pipe2(life, O_CLOEXEC) != 0 || ::pipe2(err, O_CLOEXEC) != 0) {
      const int e = errno;
      for (int fd : {life[0], life[1]})
        if (fd >= 0) ::close(fd);
      remove_dir();
      throw TransportError("ipusim serve child: pipe: " + errno_text(e));
    }
    // In a program that closed its standard streams a pipe may be fd 0 .. 2, where the
    // child's dup2 onto itself would keep close-on-exec: move such ends above them.
    for (int* fd : {&life[0], &life[1], &err[0], &err[1]}) {
      if (*fd > 2) continue;
      const int moved = ::fcntl(*fd, F_DUPFD_CLOEXEC, 3);
      if (moved >= 0) {
        ::close(*fd);
        *fd = moved;
      }
    }
    // Reading before the child exists: nothing it prints is lost, and a relay that cannot
    // start leaves no child behind.
    try {
      relay_ = std::make_unique<StderrRelay>(err[0]);
    } catch (...) {
      for (int fd : {life[0], life[1], err[1]}) ::close(fd);
      remove_dir();
      throw;
    }
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, life[0], 0);  // dup2 clears close-on-exec
    posix_spawn_file_actions_adddup2(&actions, err[1], 2);
    posix_spawnattr_t attr;
    posix_spawnattr_init(&attr);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
    posix_spawnattr_setpgroup(&attr, 0);
    sigset_t none, defaults;
    sigemptyset(&none);
    posix_spawnattr_setsigmask(&attr, &none);
    sigemptyset(&defaults);
    for (int sig : {SIGINT, SIGTERM, SIGPIPE, SIGHUP}) sigaddset(&defaults, sig);
    posix_spawnattr_setsigdefault(&attr, &defaults);
    const int rc = ::posix_spawn(&pid_, argv[0], &actions, &attr, argv.data(), environ);
    posix_spawnattr_destroy(&attr);
    posix_spawn_file_actions_destroy(&actions);
    ::close(life[0]);
    ::close(err[1]);
    if (rc != 0) {
      pid_ = -1;
      ::close(life[1]);
      relay_.reset();  // every writer is gone: it ends
      remove_dir();
      throw TransportError("ipusim serve child: cannot start " + binary + ": " + errno_text(rc));
    }
    life_ = life[1];
    register_life_fd(life_);
  }

  ~ChildServer() {
    if (life_ >= 0) unregister_life_fd(life_);
    // Reaped already (a program that reaps children itself): its pid may be another's now.
    if (pid_ > 0 && !reaped()) {
      ::kill(pid_, SIGTERM);
      ::close(life_);
      life_ = -1;
      const auto deadline = std::chrono::steady_clock::now() + kChildStopTimeout;
      auto pause = std::chrono::milliseconds(1);
      while (!reaped() && std::chrono::steady_clock::now() < deadline) {
        std::this_thread::sleep_for(pause);
        pause = std::min(pause * 2, std::chrono::milliseconds(20));
      }
      if (pid_ > 0) {
        ::kill(pid_, SIGKILL);
        int status = 0;
        while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
        }
        pid_ = -1;
      }
    }
    if (life_ >= 0) ::close(life_);
    relay_.reset();
    remove_dir();
  }
  ChildServer(const ChildServer&) = delete;
  ChildServer& operator=(const ChildServer&) = delete;

  pid_t pid() const { return pid_; }
  const std::string& socket() const { return socket_; }
  StderrRelay& relay() { return *relay_; }
  // True once the child has ended and been reaped (its wait status in status()).
  bool reaped() {
    if (pid_ <= 0) return true;
    int status = 0;
    const pid_t r = ::waitpid(pid_, &status, WNOHANG);
    if (r == pid_ || (r < 0 && errno == ECHILD)) {  // ECHILD: the program reaps children itself
      status_ = r == pid_ ? status : -1;
      pid_ = -1;
      return true;
    }
    return false;
  }
  int status() const { return status_; }

 private:
  void remove_dir() {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }

  std::string dir_, socket_;
  pid_t pid_ = -1;
  int status_ = -1;
  int life_ = -1;  // the write end of the child's standard input
  std::unique_ptr<StderrRelay> relay_;
};

std::string status_text(int status) {
  if (status == -1) return "an unknown status";
  if (WIFEXITED(status)) return "exit status " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status)) return std::string("signal ") + ::strsignal(WTERMSIG(status));
  return "wait status " + std::to_string(status);
}

std::string trimmed(std::string text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  return text.empty() ? "(it printed nothing on stderr)" : text;
}

}  // namespace

std::vector<std::unique_ptr<Transport>> start_child_server(const std::string& config_path, const ChildOptions& options,
                                                           const std::string& reason) {
  const std::string locator = "config:" + config_path;
  const std::string binary = find_ipusim_binary(locator + " needs an `ipusim serve` child (" + reason + ")");
  auto child = std::make_shared<ChildServer>(binary, config_path, options);
  const std::string name = locator + " (ipusim serve child " + std::to_string(child->pid()) + ")";
  const auto deadline = std::chrono::steady_clock::now() + kChildStartTimeout;
  auto pause = std::chrono::milliseconds(2);
  for (;;) {
    if (child->reaped()) {
      child->relay().finish();
      const std::string what = name + ", " + binary + ", ended with " + status_text(child->status()) +
                               " before serving: " + trimmed(child->relay().held());
      // Exit 2: it refused the config or an option, as the in-process model would have.
      if (child->status() != -1 && WIFEXITED(child->status()) && WEXITSTATUS(child->status()) == 2)
        throw UsageError(what);
      throw TransportError(what);
    }
    std::error_code ec;
    if (std::filesystem::exists(child->socket(), ec)) {
      try {
        auto boards = make_socket_transports(child->socket(), nullptr, SocketOptions{name, child});
        const std::string held = child->relay().held();
        child->relay().pass_through();
        std::smatch port;
        if (options.gdb_port && std::regex_search(held, port, std::regex("listening on 127\\.0\\.0\\.1:([0-9]+)")))
          std::fprintf(stderr, "ipudrv: gdb: every run of %s waits for gdb on 127.0.0.1:%s\n", name.c_str(),
                       port[1].str().c_str());
        return boards;
      } catch (const ProtocolError& e) {
        throw ProtocolError(name + ": " + binary + " speaks another protocol: " + e.what());
      } catch (const TransportError&) {
        // Bound but not listening yet: try again.
      }
    }
    if (std::chrono::steady_clock::now() > deadline)
      throw TimeoutError(name + ": not serving within " + std::to_string(kChildStartTimeout.count()) +
                         " s; killed: " + trimmed(child->relay().held()));
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, std::chrono::milliseconds(50));
  }
}

}  // namespace ipudrv::detail
