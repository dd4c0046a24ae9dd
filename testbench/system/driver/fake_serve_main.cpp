// fake_serve SOCKET: the server of `ipusim serve` (DeviceServer with signal handling) on
// a fake board, so that tests can run it as a child process and signal it.
#include <cstdio>
#include <iostream>

#include "device_server.h"
#include "fake_device.h"
#include "socket_path.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s SOCKET\n", argv[0]);
    return 2;
  }
  fakedev::FakeDevice device;
  ipusim::serve::ServerOptions options;
  options.handle_signals = true;
  options.log = &std::cerr;
  try {
    ipusim::serve::DeviceServer server(device, argv[1], options);
    server.run();
  } catch (const ipusim::serve::SocketPathError& e) {
    std::fprintf(stderr, "fake_serve: error: %s\n", e.what());
    return 2;
  }
  return 0;
}
