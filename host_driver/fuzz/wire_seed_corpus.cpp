// Writes one valid frame of every message type (and a few pairs) into DIR: the seed
// corpus of the wire fuzzer.
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "wire_protocol.h"

namespace wire = ipusim::wire;

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s DIR\n", argv[0]);
    return 2;
  }
  const std::filesystem::path dir = argv[1];
  std::filesystem::create_directories(dir);
  const wire::Body bodies[] = {
      wire::Hello{1, 0, "ipudrv"},       wire::HelloReply{1, 0, 2, "ipusim serve"},
      wire::Read32{0x44},                wire::Read32Reply{0x49505553},
      wire::Write32{0x40, 2},            wire::Map{0x100000000, 0x10000, 0},
      wire::Unmap{0x100000000},          wire::Interrupt{7},
      wire::Ok{},                        wire::Error{wire::ErrorCode::kMalformed, "bad magic"},
      wire::Bye{},                       wire::SetTrace{"/tmp/run.trace.json"},
      wire::Supersteps{0, 0},            wire::SuperstepsReply{1, {{16, 4, 0, 0, 250, 3000, 400, 500, 9000, 1024}}}};
  int n = 0;
  std::vector<uint8_t> all;
  for (const auto& b : bodies) {
    const auto frame = wire::encode({uint32_t(n + 1), b});
    std::ofstream(dir / ("frame" + std::to_string(n++)), std::ios::binary)
        .write(reinterpret_cast<const char*>(frame.data()), long(frame.size()));
    all.insert(all.end(), frame.begin(), frame.end());
  }
  std::ofstream(dir / "all_frames", std::ios::binary).write(reinterpret_cast<const char*>(all.data()), long(all.size()));
  return 0;
}
