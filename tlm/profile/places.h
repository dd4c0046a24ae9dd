// A profiled pc's function and source line, named as both file formats name them: the
// function by its symbol (its entry's, so that inlined code counts as its caller's) and
// its DWARF file, the line of the pc itself. Looked up once per Program and pc.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <utility>

#include "profile/tile_profile.h"

namespace ipusim::profile {

struct Place {
  std::string file, function;  // file "???" without DWARF; function "0x..." without a symbol
  uint32_t line = 0;           // 0: no line known
  uint32_t entry = 0;          // the function's entry pc
  bool operator<(const Place& o) const { return std::tie(file, function, line) < std::tie(o.file, o.function, o.line); }
};

class Places {
 public:
  const Place& of(const TileProfile& tile, uint32_t pc);

 private:
  std::map<std::pair<const iss::Program*, uint32_t>, Place> cache_;
};

}  // namespace ipusim::profile
