// The socket transport: a client of `ipusim serve` over a Unix stream socket
// (wire/wire_protocol.h). Host memory is a memfd mapped here and, passed with SCM_RIGHTS,
// in the server, so the device's DMA touches this process's memory with no copies.
// Interrupts arrive as INTERRUPT messages on a reader thread.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "transport.h"

namespace ipudrv::detail {

struct SocketHello {
  uint32_t board = 0;
  std::string server_name;
};

// Connects and says HELLO. Throws TransportError (no server, refused) or ProtocolError.
std::unique_ptr<Transport> make_socket_transport(const std::string& socket_path, SocketHello* hello = nullptr);
// The device behind the socket: one transport per board the server serves.
std::vector<std::unique_ptr<Transport>> make_socket_transports(const std::string& socket_path);

}  // namespace ipudrv::detail
