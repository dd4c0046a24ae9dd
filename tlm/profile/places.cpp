#include "profile/places.h"

#include <fmt/format.h>

namespace ipusim::profile {

const Place& Places::of(const TileProfile& tile, uint32_t pc) {
  auto [it, fresh] = cache_.try_emplace({&tile.program(), pc});
  if (fresh) {
    Place& p = it->second;
    const iss::SourceLocation at = tile.program().locate(pc);
    p.file = at.file.empty() ? std::string("???") : at.file;
    p.line = at.line;
    p.entry = tile.function_of(pc);
    const auto sym = tile.program().code_symbols().locate(p.entry);
    p.function = sym ? std::string(sym->name) : fmt::format("0x{:08x}", p.entry);
  }
  return it->second;
}

}  // namespace ipusim::profile
