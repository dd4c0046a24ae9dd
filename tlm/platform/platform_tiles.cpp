#include "platform/platform_tiles.h"

#include <algorithm>
#include <charconv>
#include <stdexcept>
#include <string_view>

namespace ipusim::platform {
namespace {

uint32_t parse_index(std::string_view text, std::string_view item, uint32_t tiles_per_ipu) {
  uint32_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size())
    throw std::invalid_argument("--tiles: '" + std::string(item) + "' is not a tile index or range");
  if (value >= tiles_per_ipu)
    throw std::invalid_argument("--tiles: tile " + std::string(text) + " is out of range (the IPU has " +
                                std::to_string(tiles_per_ipu) + " tiles, 0-" +
                                std::to_string(tiles_per_ipu - 1) + ")");
  return value;
}

}  // namespace

TileSelection TileSelection::parse(const std::string& text, uint32_t tiles_per_ipu) {
  TileSelection s;
  s.all_ = false;
  std::string_view rest(text);
  if (rest.empty()) throw std::invalid_argument("--tiles: empty tile list");
  while (true) {
    const size_t comma = rest.find(',');
    const std::string_view item = rest.substr(0, comma);
    const size_t dash = item.find('-');
    if (dash == std::string_view::npos) {
      s.tiles_.push_back(parse_index(item, item, tiles_per_ipu));
    } else {
      const uint32_t first = parse_index(item.substr(0, dash), item, tiles_per_ipu);
      const uint32_t last = parse_index(item.substr(dash + 1), item, tiles_per_ipu);
      if (last < first)
        throw std::invalid_argument("--tiles: range '" + std::string(item) + "' is reversed");
      for (uint32_t t = first; t <= last; ++t) s.tiles_.push_back(t);
    }
    if (comma == std::string_view::npos) break;
    rest.remove_prefix(comma + 1);
  }
  std::sort(s.tiles_.begin(), s.tiles_.end());
  s.tiles_.erase(std::unique(s.tiles_.begin(), s.tiles_.end()), s.tiles_.end());
  return s;
}

std::vector<uint32_t> TileSelection::tiles(uint32_t tiles_per_ipu) const {
  if (!all_) {
    std::vector<uint32_t> in_range;
    for (uint32_t t : tiles_)
      if (t < tiles_per_ipu) in_range.push_back(t);
    return in_range;
  }
  std::vector<uint32_t> every(tiles_per_ipu);
  for (uint32_t t = 0; t < tiles_per_ipu; ++t) every[t] = t;
  return every;
}

std::string TileSelection::to_string() const {
  if (all_) return "all";
  std::string out;
  for (size_t i = 0; i < tiles_.size();) {
    size_t j = i;
    while (j + 1 < tiles_.size() && tiles_[j + 1] == tiles_[j] + 1) ++j;
    if (!out.empty()) out += ',';
    out += std::to_string(tiles_[i]);
    if (j > i) out += '-' + std::to_string(tiles_[j]);
    i = j + 1;
  }
  return out;
}

}  // namespace ipusim::platform
