// The socket transport: a client of `ipusim serve` over a Unix stream socket
// (wire/wire_protocol.h). One connection serves every board of the system; each board's
// transport is a view of it. Host memory is a memfd mapped here and, passed with
// SCM_RIGHTS, in the server into one board's host interface (as the in-process transport
// maps it into one board's DeviceLink), so that board's DMA touches this process's memory
// with no copies. Interrupts arrive as INTERRUPT messages, naming the board, on a reader
// thread.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "transport.h"

namespace ipudrv::detail {

struct SocketHello {
  uint32_t boards = 1;  // the boards the server serves
  std::string server_name;
};

struct SocketOptions {
  std::string name;             // the device in messages (empty: "unix:PATH")
  // Held by the connection until it has closed (BYE said, reader joined): the
  // `ipusim serve` child a config: device runs in (child_server.h) ends after its session.
  std::shared_ptr<void> owner;
};

// Connects and says HELLO; the device behind the socket: one transport per board the
// server serves, in board order, sharing the connection (which goes with the last of
// them). Throws TransportError (no server, refused) or ProtocolError.
std::vector<std::unique_ptr<Transport>> make_socket_transports(const std::string& socket_path,
                                                                SocketHello* hello = nullptr,
                                                                SocketOptions options = {});

}  // namespace ipudrv::detail
