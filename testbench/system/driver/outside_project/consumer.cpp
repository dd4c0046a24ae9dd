// Links ipudrv from outside: a missing socket must be a TransportError naming it.
#include <ipudrv/device.h>

#include <cstdio>
#include <string>

int main() {
  try {
    ipudrv::enumerate("unix:/nonexistent/ipusim.sock");
  } catch (const ipudrv::TransportError& e) {
    const bool named = std::string(e.what()).find("/nonexistent/ipusim.sock") != std::string::npos;
    std::printf("consumer: %s\n", e.what());
    return named ? 0 : 1;
  }
  return 1;
}
