// A tiny gdb stand-in for the stub's tests: a TCP client that frames, acknowledges and
// reads Remote Serial Protocol packets, every read bounded by a timeout; and a harness
// that runs a GdbServer over a FakeTarget on its own thread.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <future>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "debug/gdb_server.h"
#include "debug/rsp_packet.h"
#include "fake_target.h"

namespace ipusim::debug::testing {

using namespace std::chrono_literals;

class RspClient {
 public:
  explicit RspClient(uint16_t port) {
    fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(port);
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    connected_ = ::connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
    int one = 1;  // as gdb does: no Nagle delay between an ack and the next packet
    ::setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  }
  ~RspClient() { close(); }
  bool connected() const { return connected_; }
  void close() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }
  void set_no_ack() { no_ack_ = true; }

  bool send_raw(std::string_view bytes) {
    return ::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(bytes.size());
  }
  // Raw bytes as they arrive, until `timeout` passes with nothing more.
  std::string read_raw(std::chrono::milliseconds timeout) {
    std::string out;
    char buf[4096];
    for (;;) {
      pollfd p{fd_, POLLIN, 0};
      if (::poll(&p, 1, static_cast<int>(timeout.count())) <= 0) return out;
      ssize_t n = ::recv(fd_, buf, sizeof buf, 0);
      if (n <= 0) return out;
      out.append(buf, static_cast<size_t>(n));
    }
  }
  // True if the server closed the connection within `timeout`.
  bool peer_closed(std::chrono::milliseconds timeout) {
    auto deadline = std::chrono::steady_clock::now() + timeout;
    char buf[256];
    while (std::chrono::steady_clock::now() < deadline) {
      pollfd p{fd_, POLLIN, 0};
      if (::poll(&p, 1, 50) <= 0) continue;
      ssize_t n = ::recv(fd_, buf, sizeof buf, 0);
      if (n == 0) return true;
      if (n < 0) return true;
    }
    return false;
  }

  void send(std::string_view payload) { send_raw(rsp::frame(payload)); }

  // The next packet (acknowledged); nullopt after `timeout`.
  std::optional<std::string> receive(std::chrono::milliseconds timeout = 5000ms) {
    auto deadline = std::chrono::steady_clock::now() + timeout;
    for (;;) {
      for (size_t i = 0; i < events_.size(); ++i) {
        if (events_[i].kind == rsp::Event::Kind::Packet) {
          std::string p = events_[i].payload;
          events_.erase(events_.begin(), events_.begin() + static_cast<long>(i) + 1);
          if (!no_ack_) send_raw("+");
          return p;
        }
        if (events_[i].kind == rsp::Event::Kind::Ack) acks_++;
      }
      events_.clear();
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0) return std::nullopt;
      pollfd p{fd_, POLLIN, 0};
      if (::poll(&p, 1, static_cast<int>(std::min<long>(left.count(), 100))) <= 0) continue;
      char buf[4096];
      ssize_t n = ::recv(fd_, buf, sizeof buf, 0);
      if (n <= 0) return std::nullopt;
      parser_.feed(std::string_view(buf, static_cast<size_t>(n)), events_);
    }
  }

  // Sends and returns the reply ("<no reply>" on a timeout).
  std::string ask(std::string_view payload, std::chrono::milliseconds timeout = 5000ms) {
    send(payload);
    return receive(timeout).value_or("<no reply>");
  }
  int acks() const { return acks_; }

 private:
  int fd_ = -1;
  bool connected_ = false;
  bool no_ack_ = false;
  int acks_ = 0;
  rsp::Parser parser_;
  std::vector<rsp::Event> events_;
};

// A GdbServer over a FakeTarget, serving on its own thread from construction on; the
// destructor cancels it, so no test leaves a thread behind.
struct ServerHarness {
  FakeTarget target;
  std::atomic<bool> cancel{false};
  std::ostringstream log;
  GdbServer server;
  std::optional<std::string> listen_error;
  std::future<GdbServerResult> result;

  explicit ServerHarness(std::chrono::milliseconds accept_timeout = 10000ms, bool trace = false)
      : server(target, options(accept_timeout, trace)) {
    listen_error = server.listen();
    if (!listen_error) result = std::async(std::launch::async, [this] { return server.serve(); });
  }
  GdbServerOptions options(std::chrono::milliseconds accept_timeout, bool trace) {
    GdbServerOptions o;
    o.trace_packets = trace;
    o.port = 0;
    o.accept_timeout = accept_timeout;
    o.cancel = &cancel;
    o.log = &log;
    return o;
  }
  // How serve() ended; cancels it after `timeout` so a test fails rather than hangs.
  std::optional<GdbServerResult> finish(std::chrono::milliseconds timeout = 5000ms) {
    if (!result.valid()) return std::nullopt;
    bool ready = result.wait_for(timeout) == std::future_status::ready;
    if (!ready) cancel = true;
    GdbServerResult r = result.get();
    if (!ready) return std::nullopt;
    return r;
  }
  ~ServerHarness() {
    cancel = true;
    if (result.valid()) result.wait();
  }
};

}  // namespace ipusim::debug::testing
