#include "platform/platform_tiles.h"

#include <algorithm>
#include <charconv>
#include <stdexcept>
#include <string_view>

namespace ipusim::platform {
namespace {

struct ListSyntax {
  std::string_view option, noun, owner;
};

uint32_t parse_index(std::string_view text, std::string_view item, uint32_t count, const ListSyntax& l) {
  uint32_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size())
    throw std::invalid_argument(std::string(l.option) + ": '" + std::string(item) + "' is not " +
                                (l.noun == "IPU" ? "an " : "a ") + std::string(l.noun) + " index or range");
  if (value >= count)
    throw std::invalid_argument(std::string(l.option) + ": " + std::string(l.noun) + " " + std::string(text) +
                                " is out of range (" + std::string(l.owner) + " has " + std::to_string(count) +
                                " " + std::string(l.noun) + "s, 0-" + std::to_string(count - 1) + ")");
  return value;
}

TileSelection::Indices parse_list(const std::string& text, uint32_t count, const ListSyntax& l) {
  TileSelection::Indices out;
  std::string_view rest(text);
  if (rest.empty()) throw std::invalid_argument(std::string(l.option) + ": empty " + std::string(l.noun) + " list");
  while (true) {
    const size_t comma = rest.find(',');
    const std::string_view item = rest.substr(0, comma);
    const size_t dash = item.find('-');
    if (dash == std::string_view::npos) {
      out.push_back(parse_index(item, item, count, l));
    } else {
      const uint32_t first = parse_index(item.substr(0, dash), item, count, l);
      const uint32_t last = parse_index(item.substr(dash + 1), item, count, l);
      if (last < first)
        throw std::invalid_argument(std::string(l.option) + ": range '" + std::string(item) +
                                    "' is reversed (write it " + std::to_string(last) + "-" +
                                    std::to_string(first) + ")");
      for (uint32_t t = first; t <= last; ++t) out.push_back(t);
    }
    if (comma == std::string_view::npos) break;
    rest.remove_prefix(comma + 1);
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

}  // namespace

TileSelection TileSelection::parse(const std::string& text, uint32_t tiles_per_ipu) {
  return parse(text, tiles_per_ipu, "--tiles", "tile", "the IPU");
}

TileSelection TileSelection::parse(const std::string& text, uint32_t count, std::string_view option,
                                   std::string_view noun, std::string_view owner) {
  TileSelection s;
  s.all_ = false;
  s.tiles_ = parse_list(text, count, ListSyntax{option, noun, owner});
  return s;
}

bool TileSelection::contains(uint32_t index) const {
  return all_ || std::binary_search(tiles_.begin(), tiles_.end(), index);
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
