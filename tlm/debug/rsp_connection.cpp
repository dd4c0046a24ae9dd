#include "debug/rsp_connection.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <thread>
#include <vector>

namespace ipusim::debug {
namespace {

// Every blocking wait polls in slices this long, then looks at its way out.
constexpr std::chrono::milliseconds kSlice{50};

}  // namespace

TcpListener::~TcpListener() { close(); }

void TcpListener::close() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

std::optional<std::string> TcpListener::open(uint16_t port) {
  close();
  auto fail = [&](const char* what) {
    std::string text = std::string("cannot ") + what + " on 127.0.0.1:" + std::to_string(port) + ": " +
                       std::strerror(errno);
    close();
    return text;
  };
  fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd_ < 0) return fail("open a socket");
  // Lets a restarted simulator reuse a port still in TIME_WAIT; a port another process
  // listens on still fails with EADDRINUSE.
  int one = 1;
  ::setsockopt(fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port);
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::bind(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) < 0) return fail("listen");
  if (::listen(fd_, 1) < 0) return fail("listen");
  socklen_t len = sizeof addr;
  if (::getsockname(fd_, reinterpret_cast<sockaddr*>(&addr), &len) < 0) return fail("read the port");
  port_ = ntohs(addr.sin_port);
  return std::nullopt;
}

int TcpListener::accept(std::chrono::milliseconds timeout, const std::atomic<bool>* cancel, std::string* error) {
  if (fd_ < 0) {
    if (error) *error = "not listening";
    return -1;
  }
  auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    if (cancel && cancel->load()) return -1;
    if (timeout.count() > 0 && std::chrono::steady_clock::now() >= deadline) return -1;
    pollfd p{fd_, POLLIN, 0};
    int r = ::poll(&p, 1, static_cast<int>(kSlice.count()));
    if (r < 0 && errno != EINTR) {
      if (error) *error = std::string("poll: ") + std::strerror(errno);
      return -1;
    }
    if (r <= 0) continue;
    int fd = ::accept4(fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) {
      if (errno == EINTR || errno == EAGAIN || errno == ECONNABORTED) continue;
      if (error) *error = std::string("accept: ") + std::strerror(errno);
      return -1;
    }
    // Packets are small and request / reply: Nagle would add 40 ms to every one.
    int one = 1;
    ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    return fd;
  }
}

RspConnection::RspConnection(int fd, const std::atomic<bool>* cancel, std::ostream* trace)
    : fd_(fd), cancel_(cancel), trace_(trace) {}

RspConnection::~RspConnection() {
  if (fd_ >= 0) ::close(fd_);
}

void RspConnection::log(const char* dir, std::string_view text) {
  if (trace_) *trace_ << "ipusim: gdb: " << dir << " " << text << "\n" << std::flush;
}

bool RspConnection::write_all(std::string_view bytes) {
  while (!bytes.empty()) {
    ssize_t n = ::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      closed_ = true;
      return false;
    }
    bytes.remove_prefix(static_cast<size_t>(n));
  }
  return true;
}

bool RspConnection::send(std::string_view payload) {
  if (closed_) return false;
  log("->", payload);
  last_sent_ = rsp::frame(payload);
  return write_all(last_sent_);
}

bool RspConnection::read_some(std::chrono::milliseconds timeout) {
  pollfd p{fd_, POLLIN, 0};
  int r = ::poll(&p, 1, static_cast<int>(timeout.count()));
  if (r < 0) return errno == EINTR;
  if (r == 0) return true;
  char buf[4096];
  ssize_t n = ::recv(fd_, buf, sizeof buf, 0);
  if (n < 0 && (errno == EINTR || errno == EAGAIN)) return true;
  if (n <= 0) {
    closed_ = true;
    return false;
  }
  std::vector<rsp::Event> out;
  parser_.feed(std::string_view(buf, static_cast<size_t>(n)), out);
  for (auto& e : out) events_.push_back(std::move(e));
  return true;
}

std::optional<std::string> RspConnection::receive() {
  for (;;) {
    while (!events_.empty()) {
      rsp::Event e = std::move(events_.front());
      events_.pop_front();
      switch (e.kind) {
        case rsp::Event::Kind::Packet:
          if (!no_ack_ && !write_all("+")) return std::nullopt;
          log("<-", e.payload);
          return std::move(e.payload);
        case rsp::Event::Kind::BadPacket:
          log("<-", "(bad checksum)");
          if (!no_ack_ && !write_all("-")) return std::nullopt;
          break;
        case rsp::Event::Kind::Nack:
          if (!no_ack_ && !last_sent_.empty() && !write_all(last_sent_)) return std::nullopt;
          break;
        case rsp::Event::Kind::Ack:
        case rsp::Event::Kind::Interrupt:  // the system is stopped already: nothing to stop
          break;
      }
    }
    if (closed_ || cancelled()) return std::nullopt;
    if (!read_some(kSlice)) return std::nullopt;
  }
}

void RspConnection::watch_while(const std::function<void()>& work, const std::function<void()>& interrupt) {
  std::atomic<bool> done{false};
  // The watcher owns the socket's read side and the parser until `work` returns; the
  // calling thread only runs `work`, so they share nothing but `done`.
  std::thread watcher([&] {
    bool interrupted = false;
    while (!done.load()) {
      size_t before = events_.size();
      bool alive = read_some(kSlice);
      bool stop = !alive || cancelled();
      for (size_t i = before; i < events_.size(); ++i)
        if (events_[i].kind == rsp::Event::Kind::Interrupt) stop = true;
      if (stop && !interrupted) {
        interrupted = true;  // once: the target stops soon, a second call adds nothing
        interrupt();
      }
      if (!alive) {
        // Nothing more will come; keep the thread cheap until `work` returns.
        while (!done.load()) std::this_thread::sleep_for(kSlice);
      }
    }
  });
  work();
  done = true;
  watcher.join();
}

}  // namespace ipusim::debug
