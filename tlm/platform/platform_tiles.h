// Which tiles of each IPU a program is loaded onto: all of them, or a set given as
// "A-B" (inclusive range) or "A,B,C" (list; items may themselves be ranges, "0-3,8").
// The same tile indices are used in every IPU. `--itrace-ipus` / `--itrace-threads` use
// the same lists for IPUs and threads.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ipusim::platform {

class TileSelection {
 public:
  using Indices = std::vector<uint32_t>;
  TileSelection() = default;  // every tile
  // Throws std::invalid_argument naming the bad item, for syntax errors, reversed
  // ranges, and tiles >= tiles_per_ipu.
  static TileSelection parse(const std::string& text, uint32_t tiles_per_ipu);
  // The same syntax for any indices below `count` (IPUs, threads): errors name `option`
  // and say what is out of range, e.g. "--itrace-ipus: IPU 5 is out of range (the
  // system has 4 IPUs, 0-3)" for (option "--itrace-ipus", noun "IPU", owner "the system").
  static TileSelection parse(const std::string& text, uint32_t count, std::string_view option,
                             std::string_view noun, std::string_view owner);

  bool all() const { return all_; }
  bool contains(uint32_t index) const;
  // The selected tile indices of an IPU of `tiles_per_ipu` tiles, ascending, no repeats.
  std::vector<uint32_t> tiles(uint32_t tiles_per_ipu) const;
  std::string to_string() const;  // "all" or the normalised list "0-3,8"

 private:
  bool all_ = true;
  Indices tiles_;  // ascending, unique
};

}  // namespace ipusim::platform
