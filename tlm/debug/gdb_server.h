// The gdb remote stub: serves one gdb over TCP (the Remote Serial Protocol) against a
// DebugTarget. `ipusim run --gdb PORT` makes one and calls serve() on the thread that
// drives the target (docs/debugging.md, "gdb remote protocol").
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <iostream>
#include <string>

#include "debug/debug_target.h"

namespace ipusim::debug {

class TcpListener;

struct GdbServerOptions {
  uint16_t port = 0;  // 0: the system picks a free one (port() says which)
  // How long serve() waits for gdb to connect; zero: until `cancel`.
  std::chrono::milliseconds accept_timeout{0};
  // Set from any thread to stop waiting for gdb, or, while gdb is connected, to stop the
  // target (as Ctrl-C does) and end the session. May be null.
  const std::atomic<bool>* cancel = nullptr;
  // Where "ipusim: gdb: listening on 127.0.0.1:PORT" and errors go; null: nowhere.
  std::ostream* log = &std::cerr;
  bool trace_packets = false;  // every packet in and out, to `log`
};

struct GdbServerResult {
  enum class End {
    Detached,      // gdb detached; the run then went on to its end (or a cancel)
    Killed,        // gdb killed the inferior (`kill`, vKill / k): end the run
    Disconnected,  // the connection dropped without a detach
    RunOver,       // the run ended (every IPU's exit was reported to gdb)
    TimedOut,      // no gdb connected within accept_timeout
    Cancelled,     // `cancel` was set
    Error,         // could not listen or accept: `error`
  };
  End end = End::Error;
  std::string error;
};

class GdbServer {
 public:
  GdbServer(DebugTarget& target, GdbServerOptions options);
  ~GdbServer();
  GdbServer(const GdbServer&) = delete;
  GdbServer& operator=(const GdbServer&) = delete;

  // Binds 127.0.0.1:port and logs the line above. nullopt on success, else the error
  // (e.g. "cannot listen on 127.0.0.1:1234: Address already in use"). serve() calls it
  // if it was not called; calling it first lets a caller learn port() before serving.
  std::optional<std::string> listen();
  uint16_t port() const;

  // Waits for one gdb, serves it until it detaches, kills, disconnects or the run is
  // over, and returns how it ended. Never throws for protocol or socket errors.
  GdbServerResult serve();

 private:
  DebugTarget& target_;
  GdbServerOptions options_;
  std::unique_ptr<TcpListener> listener_;
};

const char* to_string(GdbServerResult::End end);

}  // namespace ipusim::debug
