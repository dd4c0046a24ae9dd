// `ranks` of a system file: which boards each MPI rank runs (docs/distributed.md "The
// partition"). load_system() checks the key with everything else (every board on exactly
// one rank, every rank with a board); the partition reads it with load_ranks() when it is
// made. It is not a member of SystemConfig, which every model includes, and so the
// effective config (`to_yaml`) does not carry it: it chooses how a job is run, not what is
// simulated.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace ipusim::config {

struct RanksConfig {
  std::vector<std::vector<uint32_t>> boards;  // rank by rank, each ascending; empty: not given
  std::string file;                           // where it was given, for the errors found later
  int line = 0;                               // (the job's rank count is known only at the run)

  bool given() const { return !boards.empty(); }
};

// The `ranks` of the file `path` (not given for a chip or board file), after the checks of
// load_system(). Throws ConfigError.
RanksConfig load_ranks(const std::string& path);

}  // namespace ipusim::config
