// One gdb connection over TCP (POSIX sockets): listening on 127.0.0.1, accepting with a
// way out, and moving packets with the acknowledgement rules of the Remote Serial
// Protocol. Every wait polls in short slices so a cancel flag or a deadline ends it.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>

#include "debug/rsp_packet.h"

namespace ipusim::debug {

// A listening socket on 127.0.0.1 only (a debugger port must not be reachable from
// other hosts: anything connected can read and write the simulated memory).
class TcpListener {
 public:
  TcpListener() = default;
  ~TcpListener();
  TcpListener(const TcpListener&) = delete;
  TcpListener& operator=(const TcpListener&) = delete;

  // Port 0 picks a free port. Returns an error text (e.g. "cannot listen on
  // 127.0.0.1:1234: Address already in use") or nullopt on success.
  std::optional<std::string> open(uint16_t port);
  uint16_t port() const { return port_; }
  bool is_open() const { return fd_ >= 0; }
  // Waits for one connection: its socket, or -1 on timeout (zero timeout: none),
  // cancel, or error (`error` says which, if it was an error).
  int accept(std::chrono::milliseconds timeout, const std::atomic<bool>* cancel, std::string* error);
  void close();

 private:
  int fd_ = -1;
  uint16_t port_ = 0;
};

class RspConnection {
 public:
  // Takes ownership of the connected socket `fd`. `trace`: every packet in and out.
  RspConnection(int fd, const std::atomic<bool>* cancel, std::ostream* trace);
  ~RspConnection();
  RspConnection(const RspConnection&) = delete;
  RspConnection& operator=(const RspConnection&) = delete;

  // Frames and sends; false if the peer is gone.
  bool send(std::string_view payload);
  // The next packet's payload (acknowledged unless no-ack mode is on); nullopt when the
  // peer closed, the socket failed or `cancel` was set.
  std::optional<std::string> receive();
  // After the OK to QStartNoAckMode: no '+' / '-' from here on.
  void set_no_ack() { no_ack_ = true; }
  bool closed() const { return closed_; }
  bool cancelled() const { return cancel_ && cancel_->load(); }

  // Runs `work` (a blocking resume) while a second thread watches the socket: a 0x03
  // byte, the peer closing, or `cancel` calls `interrupt` (from that thread). Packets
  // that arrive meanwhile are kept for receive().
  void watch_while(const std::function<void()>& work, const std::function<void()>& interrupt);

 private:
  // Reads what is there within `timeout`; false when the peer closed or failed.
  bool read_some(std::chrono::milliseconds timeout);
  bool write_all(std::string_view bytes);
  void log(const char* dir, std::string_view text);

  int fd_;
  const std::atomic<bool>* cancel_;
  std::ostream* trace_;
  bool no_ack_ = false;
  bool closed_ = false;
  rsp::Parser parser_;
  std::deque<rsp::Event> events_;
  std::string last_sent_;  // for a '-' from gdb
};

}  // namespace ipusim::debug
