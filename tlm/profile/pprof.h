// The profiled tiles as pprof's profile.proto (docs/profiling.md "The pprof file";
// `go tool pprof` reads it): a sample per calling context and thread with the values
// cycles and instructions, its stack the context's call chain, each frame a location
// (the call's pc, or the function's entry for the innermost) with its function and line.
// `path` holds every profiled tile and thread summed; with `split`, each tile's thread
// also has a file of its own, path.ipuI.tileT.threadH.
#pragma once

#include <string>
#include <vector>

#include "profile/tile_profile.h"

namespace ipusim::profile {

// Whether --profile PATH asks for pprof's format: it ends in .pb.gz, .pb or .pprof
// (.pb uncompressed, the others gzipped as pprof writes them); else callgrind's.
bool is_pprof_path(const std::string& path);

// Writes `path` (truncated); throws std::runtime_error naming it if that fails.
// `command`: the run's command line, a comment in the file.
void write_pprof(const std::string& path, const std::vector<const TileProfile*>& tiles, const std::string& command,
                 bool split);

}  // namespace ipusim::profile
