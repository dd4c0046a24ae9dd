// This process's place in a job of MPI ranks (docs/distributed.md): started once, before
// anything else of a run, and ended once. No MPI in this header: a build with MPI links
// ranks_mpi.cpp (with meeting_mpi.cpp, the only files that call MPI; library
// ipusim_dist_ranks_mpi), a build without it ranks_none.cpp, and both give the same
// interface.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

namespace ipusim::dist {

// Why the job's ranks cannot start (a build without MPI under mpirun; MPI_Init failed).
class RankError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct RankPlace {
  uint32_t rank = 0;   // this process, 0 .. size - 1
  uint32_t size = 1;   // ranks in the job; 1 for a process started by no launcher
  bool mpi = false;    // MPI is initialised (the process was started by a launcher)

  bool distributed() const { return size > 1; }
};

// True in a build that links MPI (IPUSIM_MPI).
bool mpi_built();

// Starts this process's rank: under a launcher (dist/launcher.h) a build with MPI
// initialises it once and takes rank and size from MPI_COMM_WORLD; started by no
// launcher, a process of one rank without MPI. A build without MPI started as one of
// several ranks throws RankError saying so. A second call returns the first's place.
RankPlace start_ranks(int& argc, char**& argv);

// The place start_ranks() gave ({0, 1, false} before it).
RankPlace rank_place();

// Ends this process's rank normally (MPI_Finalize, which waits for the other ranks);
// nothing without MPI. Called once, at the end of main.
void end_ranks();

// Ends the whole job because of `message` (on stderr as "ipusim: error: rank R of N:
// message"): MPI_Abort ends every rank with `exit_code`, so no rank waits for one that
// stopped. Rank 0 reports and aborts at once; another rank first gives rank 0 a grace of
// 1.5 s, so an error every rank finds alike is reported once. Without MPI it prints
// "ipusim: error: message" and exits this process with `exit_code`.
[[noreturn]] void abort_ranks(const std::string& message, int exit_code);

}  // namespace ipusim::dist
