// The system configuration as plain, validated structs. configs/*.yaml are parsed once
// (config_loader.cpp, the only place that sees yaml-cpp) into these; models take the
// part they need in their constructor. Units are in the names.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace ipusim::config {

struct TileConfig {
  uint64_t sram_bytes = 0;                 // per tile
  uint32_t workers = 6;                    // worker contexts (the supervisor is extra)
  uint32_t exchange_in_bytes_per_cycle = 4;
  uint32_t exchange_out_bytes_per_cycle = 4;
  uint32_t amp_f16_macs_per_cycle = 0;     // AMP peak, f16 multiply-accumulates per cycle
  uint32_t amp_f32_macs_per_cycle = 0;
  uint32_t thread_quantum = 1024;          // ISS: instructions per thread quantum (docs/xipu.md)
};

struct LinkConfig {
  uint32_t count = 0;                      // IPU-Links per IPU
  double bytes_per_second = 0;             // each link, each direction
  double latency_ns = 0;
};

struct ChipConfig {
  std::string name;                        // e.g. "gc200"
  std::string source;                      // file it was read from
  uint32_t tiles = 0;                      // tiles per IPU
  double clock_hz = 0;                     // tile clock
  TileConfig tile;
  LinkConfig ipu_links;
  double published_f16_tflops = 0;         // vendor figure, checked against the model's peak

  // Derived figures.
  double peak_f16_flops() const { return 2.0 * tiles * tile.amp_f16_macs_per_cycle * clock_hz; }
  double peak_f32_flops() const { return 2.0 * tiles * tile.amp_f32_macs_per_cycle * clock_hz; }
  double exchange_bytes_per_second() const {
    return double(tiles) * tile.exchange_in_bytes_per_cycle * clock_hz;
  }
  uint64_t sram_bytes_total() const { return uint64_t(tiles) * tile.sram_bytes; }
};

struct BoardConfig {
  std::string name;                        // e.g. "m2000"; for a bare chip, the chip's name
  std::string source;
  uint32_t ipus = 1;
  ChipConfig chip;
  uint64_t streaming_memory_bytes = 0;     // board DRAM behind the gateway
  double streaming_memory_bytes_per_second = 0;
  double host_link_bytes_per_second = 0;   // PCIe-like host link
};

struct SystemConfig {
  std::string name;                        // e.g. "pod16"
  std::string source;                      // the file given on the command line
  std::string kind;                        // "chip", "board" or "system"
  uint32_t boards = 1;
  BoardConfig board;                       // every board of a system is alike
  std::string topology;                    // "single", "pair", "ladder", "torus2d"

  uint32_t total_ipus() const { return boards * board.ipus; }
  uint64_t total_tiles() const { return uint64_t(total_ipus()) * board.chip.tiles; }
};

// A configuration file that cannot be used. what() is "FILE:LINE: KEY: problem".
class ConfigError : public std::runtime_error {
 public:
  ConfigError(std::string file, int line, std::string key, const std::string& problem);
  const std::string& file() const { return file_; }
  int line() const { return line_; }
  const std::string& key() const { return key_; }

 private:
  std::string file_;
  int line_;
  std::string key_;
};

// Loads a chip, board or system file (references to other files resolved relative to
// the referring file) into a SystemConfig. A chip file gives one board of one IPU.
SystemConfig load_system(const std::string& path);

}  // namespace ipusim::config
