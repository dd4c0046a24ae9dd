// The profiled tiles as callgrind's format (docs/profiling.md "The callgrind file"): events Cycles
// and Instructions, each function's exclusive costs at its first line and its calls
// (calls= lines) with the callee's inclusive costs at the call's line, functions named by
// file and name. `path` holds every profiled tile and thread summed; with `split`, each
// tile's thread also has a file of its own, path.ipuI.tileT.threadH.
#pragma once

#include <string>
#include <vector>

#include "profile/tile_profile.h"

namespace ipusim::profile {

// Writes `path` (truncated); throws std::runtime_error naming it if that fails.
// `command`: the run's command line, for the file's header.
void write_callgrind(const std::string& path, const std::vector<const TileProfile*>& tiles, const std::string& command,
                     bool split);

}  // namespace ipusim::profile
