#include "debug/gdb_server.h"

#include "debug/rsp_connection.h"
#include "debug/rsp_session.h"

namespace ipusim::debug {

GdbServer::GdbServer(DebugTarget& target, GdbServerOptions options)
    : target_(target), options_(options), listener_(std::make_unique<TcpListener>()) {}

GdbServer::~GdbServer() = default;

uint16_t GdbServer::port() const { return listener_->port(); }

std::optional<std::string> GdbServer::listen() {
  if (auto error = listener_->open(options_.port)) {
    if (options_.log) *options_.log << "ipusim: gdb: " << *error << "\n" << std::flush;
    return error;
  }
  if (options_.log) *options_.log << "ipusim: gdb: listening on 127.0.0.1:" << port() << "\n" << std::flush;
  return std::nullopt;
}

GdbServerResult GdbServer::serve() {
  using End = GdbServerResult::End;
  if (!listener_->is_open()) {
    if (auto error = listen()) return {End::Error, *error};
  }
  std::string error;
  int fd = listener_->accept(options_.accept_timeout, options_.cancel, &error);
  // One gdb per run: nobody else may connect while this one is served.
  listener_->close();
  if (fd < 0) {
    if (!error.empty()) return {End::Error, error};
    if (options_.cancel && options_.cancel->load()) return {End::Cancelled, {}};
    return {End::TimedOut, "no gdb connected within the timeout"};
  }
  RspConnection connection(fd, options_.cancel, options_.trace_packets ? options_.log : nullptr);
  RspSession session(target_, connection);
  End end = session.run();
  if (options_.log) *options_.log << "ipusim: gdb: session over: " << to_string(end) << "\n" << std::flush;
  return {end, {}};
}

const char* to_string(GdbServerResult::End end) {
  switch (end) {
    case GdbServerResult::End::Detached: return "detached";
    case GdbServerResult::End::Killed: return "killed";
    case GdbServerResult::End::Disconnected: return "disconnected";
    case GdbServerResult::End::RunOver: return "run over";
    case GdbServerResult::End::TimedOut: return "timed out";
    case GdbServerResult::End::Cancelled: return "cancelled";
    case GdbServerResult::End::Error: return "error";
  }
  return "?";
}

}  // namespace ipusim::debug
