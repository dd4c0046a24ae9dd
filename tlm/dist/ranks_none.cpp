// The ranks of a build without MPI: one process, and a clear error when a launcher started
// several (each would otherwise run the whole system alone).
#include <cstdio>
#include <cstdlib>

#include "dist/launcher.h"
#include "dist/ranks.h"

namespace ipusim::dist {

bool mpi_built() { return false; }

RankPlace start_ranks(int&, char**&) {
  if (const uint32_t size = launcher_world_size(); size > 1)
    throw RankError("this build of ipusim has no MPI (it was configured without IPUSIM_MPI: install openmpi-bin "
                    "and libopenmpi-dev, scripts/deps.sh, and configure again), but it was started as one of " +
                    std::to_string(size) + " ranks (" + launcher_variable() + "=" + std::to_string(size) +
                    "); run it without mpirun, or with -n 1");
  return {};
}

RankPlace rank_place() { return {}; }

void end_ranks() {}

void abort_ranks(const std::string& message, int exit_code) {
  std::fprintf(stderr, "ipusim: error: %s\n", message.c_str());
  std::fflush(stderr);
  std::_Exit(exit_code);
}

}  // namespace ipusim::dist
