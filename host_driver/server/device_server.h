// The server behind `ipusim serve`: one board's DeviceLink on a Unix socket, one client at
// a time, speaking the wire protocol (wire/wire_protocol.h). Every message is validated
// before it reaches the device; a bad one is answered with ERROR and the client is
// dropped. When a client leaves (BYE, disconnect, or a bad message) the device is reset
// (CTRL.RESET) and every host-memory mapping of the session is removed, so the next
// client finds it as after power-on. docs/host_driver.md, "ipusim serve".
#pragma once

#include <cstdint>
#include <memory>
#include <ostream>
#include <string>

#include "host_if/device_link.h"

namespace ipusim::serve {

struct ServerOptions {
  uint32_t board = 0;                 // reported in HELLO_REPLY
  std::string name = "ipusim serve";  // reported in HELLO_REPLY
  bool handle_signals = false;        // SIGINT / SIGTERM stop run()
  std::ostream* log = nullptr;        // one line per session event; null: quiet
};

class DeviceServer {
 public:
  // Listens on `socket_path` now (socket_path.h: 0600, refuses non-sockets); throws
  // SocketPathError.
  DeviceServer(host_if::DeviceLink& link, const std::string& socket_path, ServerOptions options = {});
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
