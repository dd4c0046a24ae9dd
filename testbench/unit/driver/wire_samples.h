// A sample of every wire message, edge cases included (empty and over-long texts, record
// lists past a reply's limit, a console reply that fills its payload, every error code and
// console route): wire_golden_test encodes them and compares the frames with the bytes
// protocol 2.2's hand-written codec produced for the same samples (wire_golden.hex).
// Append only: a line of wire_golden.hex belongs to the sample at its index.
#pragma once

#include <string>
#include <vector>

#include "wire_protocol.h"

namespace wire_samples {

namespace wire = ipusim::wire;

inline std::vector<wire::Body> all() {
  std::vector<wire::Body> s = {
      wire::Hello{wire::kVersionMajor, 2, "ipudrv"},
      wire::Hello{wire::kVersionMajor, 0, ""},
      wire::Hello{wire::kVersionMajor, 7, std::string(600, 'n')},  // truncated to a text's limit
      wire::HelloReply{wire::kVersionMajor, 2, 4, "ipusim serve"},
      wire::HelloReply{wire::kVersionMajor, 0, wire::kMaxBoards, ""},
      wire::Read32{0xFFC, 3},
      wire::Read32{0, 0},
      wire::Read32Reply{0x49505553},
      wire::Write32{0x40, 0xDEADBEEF, 1},
      wire::Map{0x100000000, 0x200000, 0x1000, 2},
      wire::Map{0, 4096, 0, 0},
      wire::Unmap{0x100000000, wire::kMaxBoards - 1},
      wire::Interrupt{~uint64_t{0}, 3},
      wire::Ok{},
      wire::Bye{},
      wire::SetTrace{"/tmp/run.trace.json", 1},
      wire::SetTrace{"", 0},
      wire::Supersteps{3, 14, 2},
      wire::SuperstepsReply{0, {}},
      wire::SuperstepsReply{40, {{16, 4, 0, 10, 250, 3000, 400, 500, 9000, 1024}, {16, 0, 1, 250, 900, 7000, 0, 0, 12000, 0}}},
      wire::SetLinkFaults{"ber=1e-6,seed=7; 3:burst=1000:16", 2},
      wire::SetLinkFaults{std::string(513, 'x'), 0},
      wire::LinkStatsRequest{13, 1},
      wire::LinkStatsReply{0, {}},
      wire::LinkStatsReply{76, {{5, 1, 2, 100, 6400, 3, 2, 1, 2, 0, 480}, {5, 2, 1, 0, 0, 0, 0, 0, 0, 0, 0}}},
      wire::ConsoleRead{2},
      wire::ConsolePending{0},
      wire::ConsoleLines{},
      wire::ConsoleLines{7, true, {{1, 3, 0, false, "hello"}, {1, 3, 2, true, "a long "}, {1, 3, 2, false, ""}}},
  };
  for (uint32_t code = 1; code <= 9; ++code) s.push_back(wire::Error{wire::ErrorCode(code), "code " + std::to_string(code)});
  s.push_back(wire::Error{wire::ErrorCode::kDevice, std::string(700, 'e')});
  for (uint32_t route = 0; route <= 2; ++route) s.push_back(wire::SetConsole{wire::ConsoleRoute(route), route});
  // Replies past their limit: the encoder keeps what fits.
  wire::SuperstepsReply steps{100, {}};
  for (uint32_t i = 0; i < 20; ++i) steps.records.push_back({i, i + 1, i + 2, ~uint64_t{0} - i, 1, 2, 3, 4, uint64_t{1} << 40, i});
  s.push_back(steps);
  wire::LinkStatsReply links{100, {}};
  for (uint32_t i = 0; i < 15; ++i) links.records.push_back({i, i + 1, i + 2, ~uint64_t{0} - i, 1, 2, 3, 4, 5, 6, uint64_t{1} << 40});
  s.push_back(links);
  wire::ConsoleLines big{3, false, {}};
  for (uint32_t i = 0; i < 3; ++i) big.records.push_back({i, i + 1, i % 7, i == 0, std::string(wire::kMaxText, char('a' + i))});
  s.push_back(big);
  wire::ConsoleLines many{0, true, {}};
  for (uint32_t i = 0; i < 80; ++i) many.records.push_back({i, 2 * i, i % 7, i % 3 == 0, std::string(i % 5, char('A' + i % 26))});
  s.push_back(many);
  wire::ConsoleLines over{1, false, {{0, 0, 0, false, std::string(600, 'o')}}};  // a text past the limit
  s.push_back(over);
  return s;
}

}  // namespace wire_samples
