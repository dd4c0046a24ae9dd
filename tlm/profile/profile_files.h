// What `--profile FILE` writes when the run ends (docs/profiling.md): FILE in pprof's
// format if its extension asks for it (profile/pprof.h) else callgrind's, FILE.tiles (the
// functions over the tiles, profile/over_tiles.h), and with `split` a file per tile and
// thread.
#pragma once

#include <string>
#include <vector>

#include "profile/tile_profile.h"

namespace ipusim::profile {

// Throws std::runtime_error naming the file that could not be written.
void write_profile_files(const std::string& path, const std::vector<const TileProfile*>& tiles,
                         const std::string& command, bool split);

}  // namespace ipusim::profile
