// Which tiles of each IPU a program is loaded onto: all of them, or a set given as
// "A-B" (inclusive range) or "A,B,C" (list; items may themselves be ranges, "0-3,8").
// The same tile indices are used in every IPU.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace ipusim::platform {

class TileSelection {
 public:
  TileSelection() = default;  // every tile
  // Throws std::invalid_argument naming the bad item, for syntax errors, reversed
  // ranges, and tiles >= tiles_per_ipu.
  static TileSelection parse(const std::string& text, uint32_t tiles_per_ipu);

  bool all() const { return all_; }
  // The selected tile indices of an IPU of `tiles_per_ipu` tiles, ascending, no repeats.
  std::vector<uint32_t> tiles(uint32_t tiles_per_ipu) const;
  std::string to_string() const;  // "all" or the normalised list "0-3,8"

 private:
  bool all_ = true;
  std::vector<uint32_t> tiles_;  // ascending, unique
};

}  // namespace ipusim::platform
