// The profile over the tiles (docs/profiling.md "Over the tiles"): per program (the tiles
// that ran one ELF) and function, its exclusive and inclusive cycles and its exclusive
// instructions as the sum, minimum and maximum over those tiles and the tile holding the
// maximum; a tile's figure is its threads' summed. A tab-separated text file.
#pragma once

#include <string>
#include <vector>

#include "profile/tile_profile.h"

namespace ipusim::profile {

// Writes `path` (truncated); throws std::runtime_error naming it if that fails.
void write_over_tiles(const std::string& path, const std::vector<const TileProfile*>& tiles,
                      const std::string& command);

}  // namespace ipusim::profile
