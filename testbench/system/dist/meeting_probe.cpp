// A program of ranks meeting (dist/meeting.h), started by dist_meeting_test under mpirun:
//   meeting_probe check DIR   every meeting kind, checked on every rank against what each
//                             rank brought (exit 1 naming a mismatch); rank 0 prints
//                             "meetings ok: N ranks"; every rank writes its pid to DIR
//   meeting_probe kill DIR    rank 1 kills itself (SIGKILL) before the first meeting
//   meeting_probe late DIR    a meeting limit of 1 s, and rank 1 comes 30 s late
// Each rank writes DIR/rank<R>.pid first, so the test can see that none is left running.
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "dist/meeting.h"
#include "dist/ranks.h"

namespace {

using namespace ipusim::dist;

int failures = 0;

void expect(bool ok, const std::string& what) {
  if (ok) return;
  std::fprintf(stderr, "rank %u: %s\n", rank_place().rank, what.c_str());
  ++failures;
}

void check(uint32_t rank, uint32_t size) {
  const std::vector<uint64_t> mine = {rank, 100 - rank, rank + 1};
  expect(combine(mine, Combine::Max, "max") == std::vector<uint64_t>{size - 1, 100, size}, "max");
  expect(combine(mine, Combine::Min, "min") == std::vector<uint64_t>{0, 100 - (size - 1), 1}, "min");
  uint64_t sum_ranks = uint64_t(size) * (size - 1) / 2;
  expect(combine(mine, Combine::Sum, "sum") == std::vector<uint64_t>{sum_ranks, 100 * size - sum_ranks, sum_ranks + size},
         "sum");
  // Rank r brings r + 1 letters ('a' + r), rank 1 none: sizes differ, one is empty.
  auto bytes_of = [](uint32_t r) { return r == 1 ? std::string() : std::string(r + 1, char('a' + r)); };
  const std::vector<std::string> all = gather_all(bytes_of(rank), "gather_all");
  expect(all.size() == size, "gather_all: " + std::to_string(all.size()) + " parts");
  for (uint32_t r = 0; r < all.size(); ++r) expect(all[r] == bytes_of(r), "gather_all: rank " + std::to_string(r));
  const std::vector<std::string> first = gather_to_first("rank " + std::to_string(rank), "gather_to_first");
  if (rank == 0) {
    expect(first.size() == size, "gather_to_first: " + std::to_string(first.size()) + " parts");
    for (uint32_t r = 0; r < first.size(); ++r)
      expect(first[r] == "rank " + std::to_string(r), "gather_to_first: rank " + std::to_string(r));
  } else {
    expect(first.empty(), "gather_to_first: a part on rank " + std::to_string(rank));
  }
  // Figures: one rank alone never meets; otherwise 5 meetings and exactly the payload given
  // to the others (3 numbers to each, 3 times; its letters to each; its name to rank 0).
  const MeetingFigures f = meeting_figures();
  const uint64_t others = size - 1;
  const uint64_t sent = size == 1 ? 0
                                  : 3 * 3 * 8 * others + bytes_of(rank).size() * others +
                                        (rank == 0 ? 0 : ("rank " + std::to_string(rank)).size());
  expect(f.meetings == (size == 1 ? 0 : 5), "meetings: " + std::to_string(f.meetings));
  expect(f.bytes_sent == sent, "bytes sent: " + std::to_string(f.bytes_sent) + ", expected " + std::to_string(sent));
  expect(f.wait_seconds >= 0, "wait seconds");
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: meeting_probe check|kill|late DIR\n");
    return 2;
  }
  const std::string mode = argv[1], dir = argv[2];
  const RankPlace place = start_ranks(argc, argv);
  std::ofstream(dir + "/rank" + std::to_string(place.rank) + ".pid") << getpid() << "\n";
  if (mode == "check") {
    check(place.rank, place.size);
    if (place.rank == 0 && failures == 0) std::printf("meetings ok: %u ranks\n", place.size);
  } else if (mode == "kill") {
    if (place.rank == 1) raise(SIGKILL);
    combine(std::vector<uint64_t>{1}, Combine::Max, "the meeting rank 1 never reaches");
  } else if (mode == "late") {
    set_meeting_limit(1.0);
    if (place.rank == 1) std::this_thread::sleep_for(std::chrono::seconds(30));
    combine(std::vector<uint64_t>{1}, Combine::Max, "the late meeting");
  } else {
    std::fprintf(stderr, "meeting_probe: unknown mode '%s'\n", mode.c_str());
    return 2;
  }
  std::fflush(stdout);
  end_ranks();
  return failures == 0 ? 0 : 1;
}
