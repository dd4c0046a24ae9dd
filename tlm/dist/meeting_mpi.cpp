// Meetings of a build with MPI (dist/meeting.h): non-blocking collectives on
// MPI_COMM_WORLD, waited for by polling, so that a wait can end at its limit and an
// oversubscribed host (more ranks than cores) gives its cores to the ranks still computing
// instead of to ranks spinning in MPI. A job of one rank never calls MPI here.
#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <cstdio>
#include <cmath>
#include <thread>

#include "dist/meeting.h"
#include "dist/ranks.h"

namespace ipusim::dist {
namespace {

using Clock = std::chrono::steady_clock;

MeetingFigures g_figures;
double g_limit_seconds = 0;

// Waits for `request` with a way out (the limit), backing off from polling to sleeps of a
// millisecond: a meeting costs its wait, never a core.
void wait_for(MPI_Request& request, std::string_view what) {
  const Clock::time_point start = Clock::now();
  int done = 0;
  MPI_Test(&request, &done, MPI_STATUS_IGNORE);
  for (uint32_t round = 0; !done; ++round) {
    const double waited = std::chrono::duration<double>(Clock::now() - start).count();
    if (g_limit_seconds > 0 && waited > g_limit_seconds) {
      char seconds[32];
      std::snprintf(seconds, sizeof seconds, "%.1f", waited);
      abort_ranks(std::string("waited ") + seconds + " s for the other ranks at " + std::string(what) +
                      " (the meeting limit): a rank stopped coming to the job's meetings",
                  3);
    }
    if (round >= 64) std::this_thread::sleep_for(std::chrono::microseconds(std::min<uint32_t>(1000, round)));
    MPI_Test(&request, &done, MPI_STATUS_IGNORE);
  }
  g_figures.wait_seconds += std::chrono::duration<double>(Clock::now() - start).count();
}

bool alone() { return rank_place().size <= 1; }

MPI_Op op_of(Combine how) {
  switch (how) {
    case Combine::Max: return MPI_MAX;
    case Combine::Min: return MPI_MIN;
    case Combine::Sum: return MPI_SUM;
  }
  return MPI_MAX;
}

// MPI counts bytes in ints.
int byte_count(size_t bytes, std::string_view what) {
  if (bytes > size_t(INT_MAX))
    abort_ranks(std::string(what) + ": " + std::to_string(bytes) +
                    " bytes from one rank, more than one MPI message carries (2 GiB)",
                3);
  return int(bytes);
}

// Every rank's byte count: on every rank (all) or on rank 0.
std::vector<uint64_t> sizes_of(std::string_view bytes, bool all, std::string_view what) {
  const uint64_t mine = bytes.size();
  std::vector<uint64_t> sizes(rank_place().size);
  MPI_Request request;
  if (all)
    MPI_Iallgather(&mine, 1, MPI_UINT64_T, sizes.data(), 1, MPI_UINT64_T, MPI_COMM_WORLD, &request);
  else
    MPI_Igather(&mine, 1, MPI_UINT64_T, sizes.data(), 1, MPI_UINT64_T, 0, MPI_COMM_WORLD, &request);
  wait_for(request, what);
  return sizes;
}

std::vector<std::string> gather(std::string_view bytes, bool all, std::string_view what) {
  const RankPlace place = rank_place();
  ++g_figures.meetings;
  const int mine = byte_count(bytes.size(), what);
  const std::vector<uint64_t> sizes = sizes_of(bytes, all, what);
  const bool receives = all || place.rank == 0;
  std::vector<int> counts(place.size), offsets(place.size);
  std::string joined;
  if (receives) {
    uint64_t total = 0;
    for (uint32_t r = 0; r < place.size; ++r) {
      counts[r] = int(sizes[r]);
      offsets[r] = byte_count(total, what);
      total += sizes[r];
    }
    byte_count(total, what);
    joined.resize(total);
  }
  MPI_Request request;
  if (all)
    MPI_Iallgatherv(bytes.data(), mine, MPI_BYTE, joined.data(), counts.data(), offsets.data(), MPI_BYTE,
                    MPI_COMM_WORLD, &request);
  else
    MPI_Igatherv(bytes.data(), mine, MPI_BYTE, joined.data(), counts.data(), offsets.data(), MPI_BYTE, 0,
                 MPI_COMM_WORLD, &request);
  wait_for(request, what);
  g_figures.bytes_sent += all ? uint64_t(mine) * (place.size - 1) : (place.rank == 0 ? 0 : uint64_t(mine));
  std::vector<std::string> out;
  if (!receives) return out;
  for (uint32_t r = 0; r < place.size; ++r) out.push_back(joined.substr(size_t(offsets[r]), size_t(counts[r])));
  return out;
}

}  // namespace

std::vector<uint64_t> combine(std::span<const uint64_t> values, Combine how, std::string_view what) {
  std::vector<uint64_t> out(values.begin(), values.end());
  if (alone()) return out;
  ++g_figures.meetings;
  MPI_Request request;
  MPI_Iallreduce(values.data(), out.data(), byte_count(values.size(), what), MPI_UINT64_T, op_of(how),
                 MPI_COMM_WORLD, &request);
  wait_for(request, what);
  g_figures.bytes_sent += values.size() * sizeof(uint64_t) * (rank_place().size - 1);
  return out;
}

std::vector<std::string> gather_all(std::string_view bytes, std::string_view what) {
  if (alone()) return {std::string(bytes)};
  return gather(bytes, true, what);
}

std::vector<std::string> gather_to_first(std::string_view bytes, std::string_view what) {
  if (alone()) return {std::string(bytes)};
  return gather(bytes, false, what);
}

MeetingFigures meeting_figures() { return g_figures; }

void set_meeting_limit(double seconds) { g_limit_seconds = std::max(0.0, seconds); }

}  // namespace ipusim::dist
