// `--trace FILE`: the run's supersteps as a Chrome trace-event / Perfetto JSON file (the
// legacy JSON trace event format), for ui.perfetto.dev or chrome://tracing.
//
//   pid = IPU ("ipu I"), tid = track: one per tile ("tile T") when the IPU runs at most
//   `tracks_max` tiles, else consecutive tiles grouped so that there are at most
//   `tracks_max` tracks ("tiles A-B"); tid = the track's first tile.
//   Per track and superstep, "X" (complete) events with ts / dur in microseconds of
//   simulated time (6 decimals: exact picoseconds):
//     "superstep K"   the superstep, args: tiles, compute/sync/exchange cycles (sums over
//                     the track's tiles), instructions
//       "compute"     begin .. sync arrival
//       "sync"        sync arrival .. release
//       "compute"     release .. xwait (posting the messages), if any
//       "exchange"    xwait .. exchange complete, if the tile(s) exchanged
//   A grouped track shows the group's critical path: each phase ends when the group's
//   last tile ends it (latest arrival, latest release, latest xwait, latest end); a
//   superstep starts at the group's earliest begin, but not before the previous one ended
//   on the track (events on a track must nest).
//
// The file is written as the run goes: the metadata events at the first record, and a
// track's superstep k once no tile can add to it (once a tile of its IPU has closed
// superstep k + 2: platform_supersteps.h says why), so memory holds only the last few
// supersteps of each track however long the run. Past kPendingMax supersteps still open on
// a track (a tile of its group far behind the others, which sync cannot allow) the oldest
// is written anyway.
#pragma once

#include <cstdint>
#include <cstdio>
#include <deque>
#include <string>
#include <vector>

#include "tile/superstep.h"

namespace ipusim::platform {

class Timeline {
 public:
  // Opens (truncates) `path`; throws std::runtime_error naming it if that fails.
  Timeline(const std::string& path, double clock_hz, uint32_t tracks_max);
  ~Timeline();
  Timeline(const Timeline&) = delete;
  Timeline& operator=(const Timeline&) = delete;

  // Before the run: the loaded tiles of IPU `ipu`, ascending (`tiles_per_ipu` bounds them).
  void add_ipu(uint32_t ipu, uint32_t tiles_per_ipu, const std::vector<uint32_t>& tiles);
  void add(uint32_t ipu, uint32_t tile, const tile::SuperstepRecord& r);
  // Writes what is still open and closes the file; throws std::runtime_error naming the
  // file and the OS error if writing failed.
  void write();

  static constexpr size_t kPendingMax = 4096;

 private:
  struct Step {
    uint32_t tiles = 0;
    uint64_t begin = UINT64_MAX, arrival = 0, release = 0, exchange_start = 0, end = 0;
    uint64_t compute = 0, sync = 0, exchange = 0, instructions = 0;
  };
  struct Track {
    uint32_t ipu = 0, first = 0, last = 0;
    std::deque<Step> steps;       // from superstep `base` on, not yet written
    uint64_t base = 0;
    uint64_t previous_end = 0;    // where the last superstep written ended
  };
  struct Ipu {
    uint32_t index = 0;
    std::vector<int32_t> track_of;  // per tile of the IPU: index into tracks_, -1 = none
    std::vector<uint32_t> tracks;   // its tracks
    uint64_t count = 0;             // supersteps its tiles closed (highest index + 1)
  };
  std::string us(uint64_t cycle) const;       // cycle -> "123.456789" microseconds
  std::string us_span(uint64_t from, uint64_t to) const;
  void event(const std::string& json);
  void write_header();
  void write_front(Track& track);  // the track's oldest open superstep
  void flush_final(Ipu& ipu);      // its tracks' supersteps no tile can add to

  bool header_written_ = false;
  bool first_event_ = true;

  std::string path_;
  std::FILE* file_ = nullptr;
  uint64_t hz_;
  uint32_t tracks_max_;
  std::vector<Ipu> ipus_;
  std::vector<Track> tracks_;
};

}  // namespace ipusim::platform
