#include "serve_child.h"

#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>
#include <vector>

#include "ipudrv/device.h"

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
  using ipusim::proc::Stream;
  ipusim::proc::Command command =
      ipusim::proc::Command::program({IPUSIM_BIN, "serve", "--config", config, "--socket", socket, "--quiet"});
  std::istringstream extra(extra_args);
  for (std::string a; extra >> a;) command.argv.push_back(a);
  // The firmware console off and one host thread (the CI machine has two cores and other
  // tests running).
  command.env = {stdout_path.empty() ? "IPUSIM_CONSOLE=none" : "IPUSIM_CONSOLE=stdout", "IPUSIM_THREADS=1"};
  command.out = stdout_path.empty() ? Stream::null() : Stream::file(stdout_path);
  command.err = Stream::file(stderr_path_);
  command.timeout_seconds = 3600;  // a server lives as long as its test; the destructor ends it
  child_ = std::make_unique<ipusim::proc::Child>(command);
  if (!child_->started()) throw std::runtime_error(child_->wait().start_error);

  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (!answers(socket_)) {
    if (child_->ended()) {
      const ipusim::proc::Outcome o = child_->wait();
      child_.reset();
      throw std::runtime_error("ipusim serve exited (" + o.describe() + ") before listening: " + stderr_text());
    }
    if (std::chrono::steady_clock::now() > deadline) {
      kill_now();
      throw std::runtime_error("ipusim serve did not listen on " + socket_ + " within 20 s: " + stderr_text());
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

ServeChild::~ServeChild() {
  child_.reset();  // kills and reaps a server still running
  ::unlink(stderr_path_.c_str());
}

int ServeChild::reap() {
  const int status = child_->wait().wait_status;
  child_.reset();
  return status;
}

int ServeChild::stop() {
  if (!child_) return -1;
  child_->send_signal(SIGTERM);
  // A server that ignores SIGTERM is a failure the caller sees (killed by SIGKILL).
  if (child_->ended_within(10)) return reap();
  return kill_now();
}

int ServeChild::kill_now() {
  if (!child_) return -1;
  child_->send_signal(SIGKILL);
  return reap();
}

std::string ServeChild::stderr_text() const {
  std::ifstream in(stderr_path_);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace devapi
