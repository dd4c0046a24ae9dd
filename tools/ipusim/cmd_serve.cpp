// `ipusim serve --config FILE --socket PATH [--board N]`: elaborates the system in this
// process and serves one board's host interface on a Unix socket (mode 0600) to one
// client at a time, until SIGINT or SIGTERM, which remove the socket. The driver's socket
// transport ("unix:PATH") is the client. docs/host_driver.md, "ipusim serve".
// Exit status: 0 after a signal, 2 for bad input (config, board, socket path).
#include <cstdio>
#include <iostream>
#include <memory>
#include <string>

#include "commands.h"
#include "system_backend.h"
#include "device_server.h"
#include "ipudrv/errors.h"
#include "socket_path.h"

namespace ipusim::cli {
namespace {

struct ServeOptions {
  std::string config;
  std::string socket;
  uint32_t board = 0;
  bool quiet = false;
};

int run_serve(const ServeOptions& o) {
  std::shared_ptr<ipudrv::detail::SystemBackend> system;
  try {
    system = ipudrv::detail::open_system_backend(o.config);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ipusim: error: %s\n", e.what());
    return 2;
  }
  if (o.board >= system->board_count()) {
    std::fprintf(stderr, "ipusim: error: --board %u: %s has %zu board(s)\n", o.board, o.config.c_str(),
                 system->board_count());
    return 2;
  }
  serve::ServerOptions options;
  options.board = o.board;
  options.name = "ipusim serve " + o.config + " board " + std::to_string(o.board);
  options.handle_signals = true;
  options.log = o.quiet ? nullptr : &std::cerr;
  try {
    serve::DeviceServer server(system->board_link(o.board), o.socket, options);
    if (!o.quiet) std::cerr << "ipusim serve: listening on " << o.socket << std::endl;
    server.run();
  } catch (const serve::SocketPathError& e) {
    std::fprintf(stderr, "ipusim: error: %s\n", e.what());
    return 2;
  }
  return 0;
}

}  // namespace

void add_serve_command(CLI::App& app, int& exit_code) {
  auto options = std::make_shared<ServeOptions>();
  CLI::App* cmd = app.add_subcommand("serve", "Serve one board's host interface on a Unix socket (for ipudrv)");
  cmd->add_option("--config", options->config, "System, board or chip YAML")->required();
  cmd->add_option("--socket", options->socket, "Unix socket path to create (mode 0600)")->required();
  cmd->add_option("--board", options->board, "Board of the system to serve")->default_val(0);
  cmd->add_flag("--quiet", options->quiet, "No session log on stderr");
  cmd->callback([options, &exit_code] { exit_code = run_serve(*options); });
}

}  // namespace ipusim::cli
