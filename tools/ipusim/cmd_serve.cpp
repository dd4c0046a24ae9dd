// `ipusim serve --config FILE --socket PATH`: elaborates a system (a chip, a board or a
// pod of boards) in this process and serves the host interfaces of all its boards on one
// Unix socket (mode 0600) to one client at a time, until SIGINT or SIGTERM, which remove
// the socket (promptly, whatever the session is doing: a run in progress, a host stream
// waiting, a client half-way through a message, gdb attached). A client that sends no
// HELLO within 10 s, or that holds the device idle for --idle-timeout, is dropped. With
// --exit-with-parent it also ends when its standard input reaches end of file (the
// parent that holds the pipe's write end is gone: ipudrv's own children). A
// system whose memory estimate exceeds --max-memory (or the machine's memory) is refused
// before it is elaborated. The boards run as one device (docs/host_if.md), so one socket carries them
// all and the driver's socket transport ("unix:PATH") opens the same device as
// "config:FILE". docs/host_driver.md, "ipusim serve".
// Exit status: 0 after a signal, 2 for bad input (config, socket path, a system too large)
// and a failed elaboration (ended with _Exit: nothing was served).
#include <fcntl.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "commands.h"
#include "memory_option.h"
#include "gdb_session.h"
#include "config/config_loader.h"
#include "dist/ranks.h"
#include "system_backend.h"
#include "device_server.h"
#include "ipudrv/errors.h"
#include "socket_path.h"

namespace ipusim::cli {
namespace {

// The config's `link_faults` as DeviceLink::set_link_faults items (the spec of every link,
// then "LINK:SPEC" for the links set apart): what a session that changed them leaves
// behind for the next.
std::string link_fault_items(const config::LinkFaultsConfig& f) {
  std::string items = f.every;
  for (const auto& [link, spec] : f.links) items += ";" + std::to_string(link) + ":" + spec;
  return items;
}

}  // namespace

int run_serve(const ServeOptions& o) {
  // One server is the whole system's (docs/distributed.md "What is refused").
  if (const dist::RankPlace place = dist::rank_place(); place.distributed())
    throw std::invalid_argument("mpirun -n " + std::to_string(place.size) +
                                ": ipusim serve over several ranks is refused: a device is served by one process "
                                "(mpirun -n 1, or no mpirun)");
  // Checked before anything opens a descriptor, which would take the number 0.
  if (o.exit_with_parent && ::fcntl(0, F_GETFD) < 0) {
    std::fprintf(stderr, "ipusim: error: --exit-with-parent: no standard input to watch\n");
    return 2;
  }
  std::shared_ptr<ipudrv::detail::SystemBackend> system;
  std::string initial_link_faults;
  try {
    system = ipudrv::detail::open_system_backend(o.config, max_memory_bytes(o.max_memory), "--max-memory", o.rtl,
                                                 o.waves, o.iss);
    initial_link_faults = link_fault_items(config::load_system(o.config).link_faults);
    if (o.gdb_port) system->serve_gdb(*o.gdb_port);  // prints the port it listens on
    if (!o.core_dir.empty()) system->set_core_dir(o.core_dir);
  } catch (const std::exception& e) {
    // Nothing was served. An elaboration that failed (out of memory) left a netlist that
    // exit() would spend minutes tearing down in SystemC: end at once.
    std::fprintf(stderr, "ipusim: error: %s\n", e.what());
    std::fflush(stderr);
    std::_Exit(2);
  }
  std::vector<host_if::DeviceLink*> boards;
  for (size_t b = 0; b < system->board_count(); ++b) boards.push_back(&system->board_link(b));
  serve::ServerOptions options;
  options.name = "ipusim serve " + o.config;
  options.initial_link_faults = initial_link_faults;
  options.handle_signals = true;
  // 0 turns the timeout off; any other value is at least a millisecond.
  options.idle_timeout = std::chrono::milliseconds(
      o.idle_timeout > 0 ? std::max<int64_t>(1, int64_t(o.idle_timeout * 1000)) : 0);
  options.log = o.quiet ? nullptr : &std::cerr;
  if (o.exit_with_parent) options.parent_fd = 0;
  try {
    serve::DeviceServer server(boards, o.socket, options);
    if (!o.quiet)
      std::cerr << "ipusim serve: listening on " << o.socket << " (" << boards.size() << " board(s))" << std::endl;
    server.run();
  } catch (const serve::SocketPathError& e) {
    std::fprintf(stderr, "ipusim: error: %s\n", e.what());
    return 2;
  }
  return 0;
}

}  // namespace ipusim::cli
