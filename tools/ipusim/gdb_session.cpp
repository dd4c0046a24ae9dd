#include "gdb_session.h"

#include <stdexcept>

#include "debug/gdb_server.h"
#include "debug/platform_target.h"

namespace ipusim::cli {

void serve_gdb(platform::Platform& platform, uint16_t port) {
  platform.set_run_driver([&platform, port] {
    debug::PlatformTarget target(platform);
    debug::GdbServerOptions options;
    options.port = port;
    debug::GdbServer server(target, options);
    if (const auto error = server.listen()) throw std::runtime_error("--gdb: " + *error);
    const debug::GdbServerResult result = server.serve();
    using End = debug::GdbServerResult::End;
    if (result.end == End::Killed) throw KilledFromDebugger{};
    if (result.end == End::Error) throw std::runtime_error("--gdb: " + result.error);
    if (target.over()) return;
    // gdb has gone: the run goes on without it, at full speed.
    target.detach();
    platform.simulate();
  });
}

}  // namespace ipusim::cli
