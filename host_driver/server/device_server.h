// The server behind `ipusim serve`: a system's boards (one DeviceLink each, the boards of
// one device) on one Unix socket, one client at a time, speaking the wire protocol
// (wire/wire_protocol.h). Every message is validated before it reaches the device; a bad
// one is answered with ERROR and the client is dropped (a board index past the system's
// is answered with ERROR NO_BOARD and the session goes on). When a client leaves (BYE,
// disconnect, or a bad message) every board is reset (CTRL.RESET), every host-memory
// mapping of the session is removed and the IPU-Links' faults are the config's again, so
// the next client finds the system as after power-on. docs/host_driver.md, "ipusim serve".
#pragma once

#include <cstdint>
#include <memory>
#include <ostream>
#include <chrono>
#include <string>
#include <vector>

#include "host_if/device_link.h"

namespace ipusim::serve {

struct ServerOptions {
  std::string name = "ipusim serve";  // reported in HELLO_REPLY
  // The IPU-Link fault items every session starts with (the config's `link_faults`, as
  // DeviceLink::set_link_faults takes them): a session that set others has them
  // restored when it ends.
  std::string initial_link_faults = "none";
  bool handle_signals = false;        // SIGINT / SIGTERM stop run()
  // A descriptor (the read end of a pipe whose write end only the parent process holds)
  // whose end of file or hang-up stops run() as a signal does: the server ends with the
  // parent, however the parent ends. The server reads and ignores what arrives on it.
  // -1: none.
  int parent_fd = -1;
  // A client that has not sent HELLO this long after connecting is refused (ERROR
  // NOT_HELLO) and dropped, so a silent connection cannot hold the server.
  std::chrono::milliseconds hello_timeout{10000};
  // A client past HELLO that sends nothing this long while no run is in progress (no
  // board RUNNING, PAUSED or in STREAM_WAIT: a client waiting on a long run, or doing
  // its own work between run(supersteps) calls or in a stream callback, is not idle) is
  // told so (ERROR IDLE) and dropped, and every board is reset for the next client.
  // Zero: never.
  std::chrono::milliseconds idle_timeout{600000};
  std::ostream* log = nullptr;        // one line per session event; null: quiet
};

class DeviceServer {
 public:
  // Serves `boards` (board i = boards[i], at least one; they outlive the server).
  // Listens on `socket_path` now (socket_path.h: 0600, refuses non-sockets); throws
  // SocketPathError.
  DeviceServer(std::vector<host_if::DeviceLink*> boards, const std::string& socket_path, ServerOptions options = {});
  // A one-board system.
  DeviceServer(host_if::DeviceLink& link, const std::string& socket_path, ServerOptions options = {})
      : DeviceServer(std::vector<host_if::DeviceLink*>{&link}, socket_path, std::move(options)) {}
  ~DeviceServer();  // removes the socket file
  DeviceServer(const DeviceServer&) = delete;
  DeviceServer& operator=(const DeviceServer&) = delete;

  void run();   // serves until stop() or a handled signal
  void stop();  // from any thread
  uint64_t sessions() const;  // clients served so far

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace ipusim::serve
