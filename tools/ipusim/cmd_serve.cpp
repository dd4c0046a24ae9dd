// `ipusim serve --config FILE --socket PATH`: elaborates a one-board system (a chip or a
// board config) in this process and serves its host interface on a Unix socket (mode
// 0600) to one client at a time, until SIGINT or SIGTERM, which remove the socket. The
// driver's socket transport ("unix:PATH") is the client. The boards of a multi-board
// system run as one device (docs/host_if.md), which one board's socket cannot carry:
// such a config is refused. docs/host_driver.md, "ipusim serve".
// Exit status: 0 after a signal, 2 for bad input (config, socket path).
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
  if (system->board_count() != 1) {
    std::fprintf(stderr,
                 "ipusim: error: serve: %s has %zu boards; the boards of a system run as one device (a run starts on "
                 "every board at once), and the socket serves one board's host interface: serve a one-board system "
                 "(a chip or board config), or open this one in process (config:%s)\n",
                 o.config.c_str(), system->board_count(), o.config.c_str());
    return 2;
  }
  serve::ServerOptions options;
  options.board = 0;
  options.name = "ipusim serve " + o.config;
  options.handle_signals = true;
  options.log = o.quiet ? nullptr : &std::cerr;
  try {
    serve::DeviceServer server(system->board_link(0), o.socket, options);
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
  CLI::App* cmd = app.add_subcommand("serve", "Serve a one-board system's host interface on a Unix socket (for ipudrv)");
  cmd->add_option("--config", options->config, "System, board or chip YAML")->required();
  cmd->add_option("--socket", options->socket, "Unix socket path to create (mode 0600)")->required();
  cmd->add_flag("--quiet", options->quiet, "No session log on stderr");
  cmd->callback([options, &exit_code] { exit_code = run_serve(*options); });
}

}  // namespace ipusim::cli
