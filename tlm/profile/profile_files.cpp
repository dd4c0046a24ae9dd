#include "profile/profile_files.h"

#include "profile/callgrind.h"
#include "profile/over_tiles.h"
#include "profile/pprof.h"

namespace ipusim::profile {

void write_profile_files(const std::string& path, const std::vector<const TileProfile*>& tiles,
                         const std::string& command, bool split) {
  const auto write = is_pprof_path(path) ? write_pprof : write_callgrind;
  write(path, tiles, command, split);
  write_over_tiles(path + ".tiles", tiles, command);
}

}  // namespace ipusim::profile
