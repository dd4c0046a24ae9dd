#include "serve_child.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>
#include <vector>

#include "ipudrv/device.h"

extern char** environ;

namespace devapi {
namespace {

// Ready when the server answers a driver's probe (HELLO, the ID registers, BYE). A bare
// connect-and-close would not do: the server may see the next client before it has
// noticed the probe's hang-up, and refuse it as a second client.
bool answers(const std::string& path) {
  try {
    return ipudrv::enumerate("unix:" + path).size() == 1;
  } catch (const ipudrv::TransportError&) {
    return false;
  }
}

}  // namespace

ServeChild::ServeChild(const std::string& config, const std::string& socket, const std::string& extra_args,
                       const std::string& stdout_path)
    : socket_(socket), stderr_path_(socket + ".stderr") {
  std::vector<std::string> args = {IPUSIM_BIN, "serve", "--config", config, "--socket", socket, "--quiet"};
  std::istringstream extra(extra_args);
  for (std::string a; extra >> a;) args.push_back(a);
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);

  // The child's environment: this one's, with the firmware console off and one host
  // thread (the CI machine has two cores and other tests running).
  std::vector<std::string> env_text;
  for (char** e = environ; *e; ++e) {
    if (std::strncmp(*e, "IPUSIM_CONSOLE=", 15) && std::strncmp(*e, "IPUSIM_THREADS=", 15)) env_text.push_back(*e);
  }
  env_text.push_back(stdout_path.empty() ? "IPUSIM_CONSOLE=none" : "IPUSIM_CONSOLE=stdout");
  env_text.push_back("IPUSIM_THREADS=1");
  std::vector<char*> envp;
  for (auto& e : env_text) envp.push_back(e.data());
  envp.push_back(nullptr);

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 2, stderr_path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  if (stdout_path.empty())
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
  else
    posix_spawn_file_actions_addopen(&actions, 1, stdout_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  const int rc = posix_spawn(&pid_, argv[0], &actions, nullptr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) throw std::runtime_error(std::string("spawn ") + IPUSIM_BIN + ": " + std::strerror(rc));

  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (!answers(socket_)) {
    int status = 0;
    if (::waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = -1;
      throw std::runtime_error("ipusim serve exited (status " + std::to_string(status) + ") before listening: " +
                               stderr_text());
    }
    if (std::chrono::steady_clock::now() > deadline) {
      kill_now();
      throw std::runtime_error("ipusim serve did not listen on " + socket_ + " within 20 s: " + stderr_text());
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

ServeChild::~ServeChild() {
  if (pid_ > 0) kill_now();
  ::unlink(stderr_path_.c_str());
}

int ServeChild::wait_for_exit() {
  if (pid_ <= 0) return -1;
  int status = 0;
  while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
  }
  pid_ = -1;
  return status;
}

int ServeChild::stop() {
  if (pid_ <= 0) return -1;
  ::kill(pid_, SIGTERM);
  // A server that ignores SIGTERM is a failure the caller sees (killed by SIGKILL).
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (std::chrono::steady_clock::now() < deadline) {
    int status = 0;
    if (::waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = -1;
      return status;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return kill_now();
}

int ServeChild::kill_now() {
  if (pid_ > 0) ::kill(pid_, SIGKILL);
  return wait_for_exit();
}

std::string ServeChild::stderr_text() const {
  std::ifstream in(stderr_path_);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace devapi
