// Helpers for platform tests: small systems built in code (no YAML), a console captured
// in memory, and programs from test_program.h as iss::Program.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>

#include "iss/program.h"
#include "common/config.h"
#include "platform/platform.h"
#include "test_program.h"

namespace ipusim::test {

// `ipus` IPUs on one board, linked as a chain (IPU i port 1 to IPU i+1 port 0), so every
// IPU reaches every other as a run needs; the external sync is ideal (sync_hop_ns 0).
inline config::SystemConfig small_system(uint32_t tiles, uint32_t ipus = 1,
                                         uint64_t sram_bytes = 64 * 1024,
                                         double clock_hz = 1.325e9) {
  config::SystemConfig s;
  s.source = "(in memory)";
  s.kind = ipus == 1 ? "chip" : "board";
  s.board.name = "test" + std::to_string(tiles) + "x" + std::to_string(ipus);
  s.board.ipus = ipus;
  s.board.topology = ipus == 1 ? "single" : "";
  for (uint32_t i = 0; i + 1 < ipus; ++i) s.board.links.push_back({i, 1, i + 1, 0});
  s.board.chip.name = "testchip";
  s.board.chip.tiles = tiles;
  s.board.chip.clock_hz = clock_hz;
  s.board.chip.tile.sram_bytes = sram_bytes;
  s.board.chip.tile.workers = 6;
  s.board.chip.tile.thread_quantum = 64;
  return s;
}

// Options for a platform test that reads results, not the console.
inline platform::PlatformOptions quiet_options() {
  platform::PlatformOptions o;
  o.console_out = nullptr;
  return o;
}

inline std::shared_ptr<const iss::Program> program(const Asm& a, const std::string& name = "test.elf") {
  return iss::Program::from_bytes(a.elf(), name);
}

// A FILE* whose bytes end up in a string (open_memstream).
class CapturedFile {
 public:
  CapturedFile() : file_(open_memstream(&buffer_, &size_)) {}
  ~CapturedFile() {
    if (file_) std::fclose(file_);
    std::free(buffer_);
  }
  std::FILE* file() { return file_; }
  std::string text() {
    std::fflush(file_);
    return std::string(buffer_, size_);
  }

 private:
  char* buffer_ = nullptr;
  size_t size_ = 0;
  std::FILE* file_;
};

}  // namespace ipusim::test
