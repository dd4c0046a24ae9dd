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

void add_debug_options(CLI::App* cmd, std::optional<uint16_t>& gdb_port, std::string& core_dir,
                       const std::string& runs, const std::string& core_when) {
  cmd->add_option("--gdb", gdb_port,
                  runs + " waits for gdb on 127.0.0.1:PORT (0: any free port, printed on stderr), which stops, "
                         "steps and inspects any tile thread (docs/debugging.md)")
      ->check(CLI::Range(0, 65535));
  cmd->add_option("--core", core_dir,
                  core_when + ", write one ELF core per IPU to DIR/ipu<N>.core for gdb (docs/debugging.md)");
}

}  // namespace ipusim::cli
