// fake_serve SOCKET [--exit-with-parent]: the server of `ipusim serve` (DeviceServer with
// signal handling; with --exit-with-parent, ending at its standard input's end of file)
// on a fake board, so that tests can run it as a child process and signal it.
#include <cstdio>
#include <cstring>
#include <iostream>

#include "device_server.h"
#include "fake_device.h"
#include "socket_path.h"

int main(int argc, char** argv) {
  const bool exit_with_parent = argc == 3 && std::strcmp(argv[2], "--exit-with-parent") == 0;
  if (argc != 2 && !exit_with_parent) {
    std::fprintf(stderr, "usage: %s SOCKET [--exit-with-parent]\n", argv[0]);
    return 2;
  }
  fakedev::FakeDevice device;
  ipusim::serve::ServerOptions options;
  options.handle_signals = true;
  options.log = &std::cerr;
  if (exit_with_parent) options.parent_fd = 0;
  try {
    ipusim::serve::DeviceServer server(device, argv[1], options);
    server.run();
  } catch (const ipusim::serve::SocketPathError& e) {
    std::fprintf(stderr, "fake_serve: error: %s\n", e.what());
    return 2;
  }
  return 0;
}
