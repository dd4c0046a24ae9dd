// The ranks of a build with MPI (with meeting_mpi.cpp, the only files that call MPI;
// docs/distributed.md). MPI is initialised only under a launcher, so a process started on
// its own never pays for it nor needs a launcher's daemons.
#include <mpi.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>

#include "dist/launcher.h"
#include "dist/ranks.h"

namespace ipusim::dist {
namespace {

// How long a rank other than 0 waits before reporting an error and aborting: time for rank
// 0, if it found the same error, to report it once and end the job.
constexpr std::chrono::milliseconds kAbortGrace{1500};

RankPlace g_place;
bool g_started = false;

std::string mpi_error_text(int code) {
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  if (MPI_Error_string(code, text, &length) != MPI_SUCCESS) return "MPI error " + std::to_string(code);
  return std::string(text, size_t(length));
}

}  // namespace

bool mpi_built() { return true; }

RankPlace start_ranks(int& argc, char**& argv) {
  if (g_started) return g_place;
  g_started = true;
  if (launcher_world_size() == 0) return g_place;  // one process, no launcher
  // Only the main thread calls MPI (the tile engine's host threads never do).
  int provided = 0;
  if (const int rc = MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided); rc != MPI_SUCCESS)
    throw RankError("MPI_Init failed: " + mpi_error_text(rc));
  // An MPI error anywhere ends the job (the default, made explicit): no rank is left
  // waiting on one that failed.
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  g_place = {uint32_t(rank), uint32_t(size), true};
  return g_place;
}

RankPlace rank_place() { return g_place; }

void end_ranks() {
  if (!g_place.mpi) return;
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized) MPI_Finalize();
}

void abort_ranks(const std::string& message, int exit_code) {
  std::fflush(stdout);
  if (g_place.distributed() && g_place.rank > 0) {
    // An error every rank finds alike (a config, a refusal) is reported once, by rank 0,
    // whose MPI_Abort ends this rank within the grace; an error of this rank alone is
    // reported by it after the grace, and ends the job all the same.
    std::this_thread::sleep_for(kAbortGrace);
  }
  if (g_place.distributed())
    std::fprintf(stderr, "ipusim: error: rank %u of %u: %s\n", g_place.rank, g_place.size, message.c_str());
  else
    std::fprintf(stderr, "ipusim: error: %s\n", message.c_str());
  std::fflush(stderr);
  if (g_place.mpi) MPI_Abort(MPI_COMM_WORLD, exit_code);
  std::_Exit(exit_code);
}

}  // namespace ipusim::dist
