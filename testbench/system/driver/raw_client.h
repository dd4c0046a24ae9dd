// A raw wire client of a DeviceServer for the server's tests: frames sent as they are,
// every message read back as the server sent it (ipusim_serve_test).
#pragma once

#include <gtest/gtest.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "fd_passing.h"
#include "wire_protocol.h"

namespace drvtest {

namespace wire = ipusim::wire;

class RawClient {
 public:
  explicit RawClient(const std::string& path) {
    fd_ = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_un a{};
    a.sun_family = AF_UNIX;
    std::strncpy(a.sun_path, path.c_str(), sizeof a.sun_path - 1);
    connected_ = ::connect(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
  }
  ~RawClient() { ::close(fd_); }
  bool connected() const { return connected_; }
  void send_bytes(const std::vector<uint8_t>& b, int fd = -1) { ASSERT_TRUE(wire::send_all(fd_, b, fd)); }
  void send(uint32_t seq, wire::Body body, int fd = -1) { send_bytes(wire::encode({seq, std::move(body)}), fd); }
  // The next message, or nullopt when the server closed the connection (or 5 s passed).
  std::optional<wire::Message> next() {
    for (;;) {
      auto d = wire::decode(buf_);
      if (d.status == wire::Decoded::Status::kMessage) {
        buf_.erase(buf_.begin(), buf_.begin() + long(d.consumed));
        return d.message;
      }
      if (d.status == wire::Decoded::Status::kInvalid) return std::nullopt;
      pollfd p{fd_, POLLIN, 0};
      if (::poll(&p, 1, 5000) <= 0) return std::nullopt;
      uint8_t chunk[4096];
      const ssize_t n = ::recv(fd_, chunk, sizeof chunk, 0);
      if (n <= 0) return std::nullopt;
      buf_.insert(buf_.end(), chunk, chunk + n);
    }
  }
  // The next reply, skipping INTERRUPT messages (counted: they are unsolicited and may
  // come before the reply to the write that caused them) and CONSOLE_PENDING (counted too).
  std::optional<wire::Message> reply() {
    for (;;) {
      auto m = next();
      if (m && std::holds_alternative<wire::ConsolePending>(m->body)) {
        ++console_pending_skipped_;
        continue;
      }
      if (!m || !std::holds_alternative<wire::Interrupt>(m->body)) return m;
      ++interrupts_skipped_;
    }
  }
  uint32_t console_pending_skipped() const { return console_pending_skipped_; }
  uint32_t interrupts_skipped() const { return interrupts_skipped_; }
  bool closed_by_server() { return !next().has_value(); }
  // Ends our side and waits for the server to close its side (its session is over).
  void finish() {
    ::shutdown(fd_, SHUT_WR);
    while (next().has_value()) {
    }
  }
  // Returns the board count the server announced (0 if it did not answer HELLO).
  uint32_t hello() {
    send(1, wire::Hello{wire::kVersionMajor, 0, "raw"});
    auto m = reply();
    EXPECT_TRUE(m && std::holds_alternative<wire::HelloReply>(m->body));
    return m && std::holds_alternative<wire::HelloReply>(m->body) ? std::get<wire::HelloReply>(m->body).boards : 0;
  }
  // Sends `body` and returns its reply (nullopt: the server closed the connection).
  std::optional<wire::Message> request(wire::Body body) {
    send(++seq_, std::move(body));
    return reply();
  }
  uint32_t read32(uint32_t off, uint32_t board = 0) {
    send(++seq_, wire::Read32{off, board});
    auto m = reply();
    EXPECT_TRUE(m && std::holds_alternative<wire::Read32Reply>(m->body));
    return m && std::holds_alternative<wire::Read32Reply>(m->body) ? std::get<wire::Read32Reply>(m->body).value : 0xDEAD;
  }
  void write32(uint32_t off, uint32_t v, uint32_t board = 0) {
    send(++seq_, wire::Write32{off, v, board});
    auto m = reply();
    EXPECT_TRUE(m && std::holds_alternative<wire::Ok>(m->body));
  }

 private:
  int fd_ = -1;
  bool connected_ = false;
  std::vector<uint8_t> buf_;
  uint32_t seq_ = 100;
  uint32_t interrupts_skipped_ = 0;
  uint32_t console_pending_skipped_ = 0;
};

}  // namespace drvtest
