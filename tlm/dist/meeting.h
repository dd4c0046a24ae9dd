// The ranks of a job meeting at a point every rank reaches (docs/distributed.md "Meetings"):
// each rank brings its figures, and leaves with what every rank brought, combined alike on
// every rank. No MPI in this header: a build with MPI implements it in meeting_mpi.cpp
// (library ipusim_dist_ranks_mpi), a build without it in meeting_none.cpp, and a process
// that is one rank alone (no launcher, `mpirun -n 1`) never calls MPI here: each meeting
// is its own figures back.
//
// Every rank must hold the same meetings in the same order (they are MPI collectives). A
// meeting waits for the other ranks with a way out: a rank that dies ends the job through
// the launcher (mpirun kills every rank when one ends abnormally), and a rank still alive
// but not coming ends it after the wait limit (set_meeting_limit), with an error naming
// the meeting and how long it waited.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace ipusim::dist {

enum class Combine { Max, Min, Sum };

// Element by element over the ranks: every rank brings `values` (the same length on every
// rank) and receives, in each element, the max / min / sum of every rank's. `what` names
// the meeting in the error of one that waited too long ("zone-2 sync 17").
std::vector<uint64_t> combine(std::span<const uint64_t> values, Combine how, std::string_view what);

// Every rank's bytes, in rank order, on every rank.
std::vector<std::string> gather_all(std::string_view bytes, std::string_view what);

// Rank 0 receives every rank's bytes in rank order; every other rank an empty list.
std::vector<std::string> gather_to_first(std::string_view bytes, std::string_view what);

// What this rank's meetings cost so far (host figures: they differ run by run).
struct MeetingFigures {
  uint64_t meetings = 0;
  double wait_seconds = 0;   // in meetings, from this rank's arrival to the last rank's
  uint64_t bytes_sent = 0;   // payload this rank gave other ranks, once for each receiver
};
MeetingFigures meeting_figures();

// How long a meeting waits for the other ranks before it ends the whole job
// (abort_ranks, exit status 3); 0: no limit (the default: a rank may compute for minutes
// between meetings, and a dead one ends the job through the launcher).
void set_meeting_limit(double seconds);

}  // namespace ipusim::dist
