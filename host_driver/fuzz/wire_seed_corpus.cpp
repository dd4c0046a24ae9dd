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
  // Major 2: the requests that address a board carry its index (some board 0, some not, so
  // that mutations of the field start from both); HELLO_REPLY the board count.
  const wire::Body bodies[] = {
      wire::Hello{wire::kVersionMajor, 0, "ipudrv"},
      wire::HelloReply{wire::kVersionMajor, 0, 4, "ipusim serve"},
      wire::Read32{0x44},
      wire::Read32{0x44, 3},
      wire::Read32Reply{0x49505553},
      wire::Write32{0x40, 2},
      wire::Write32{0x40, 2, 1},
      wire::Map{0x100000000, 0x10000, 0},
      wire::Map{0x100000000, 0x10000, 0x1000, 2},
      wire::Unmap{0x100000000, 2},
      wire::Interrupt{7, 3},
      wire::Ok{},
      wire::Error{wire::ErrorCode::kMalformed, "bad magic"},
      wire::Error{wire::ErrorCode::kNoBoard, "READ32: board 4, the system has 4 board(s)"},
      wire::Bye{},
      wire::SetTrace{"/tmp/run.trace.json"},
      wire::SetTrace{"", 1},
      wire::Supersteps{0, 0},
      wire::Supersteps{3, 14, 3},
      wire::SuperstepsReply{1, {{16, 4, 0, 0, 250, 3000, 400, 500, 9000, 1024}}},
      wire::SetLinkFaults{"ber=1e-6,seed=7; 3:burst=1000:16", 1},
      wire::LinkStatsRequest{0},
      wire::LinkStatsRequest{13, 2},
      wire::LinkStatsReply{2, {{5, 1, 2, 100, 6400, 3, 2, 1, 2, 0, 480}, {5, 2, 1, 0, 0, 0, 0, 0, 0, 0, 0}}},
      wire::SetConsole{wire::ConsoleRoute::kClient, 1},
      wire::ConsoleRead{0},
      wire::ConsoleLines{2, true, {{0, 3, 0, false, "hello"}, {1, 0, 4, true, "part"}}},
      wire::ConsolePending{0}};
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
