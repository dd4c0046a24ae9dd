// Per-superstep figures of a run: each IPU's totals over its tiles, and the records of
// the tiles kept one by one (few tiles: PlatformOptions::per_tile_supersteps_max), built
// from the tiles' superstep records (tile/superstep.h) as they close. Index = superstep
// number; a tile's k-th record adds to row k.
//
// Memory is bounded by the system's size, not the run's length: the accounts hold a
// window of the latest rows (window_rows(): at most 4096, fewer for a big system) and
// hand each older row, once final, to the sink (the CLI's `--json` writes it as it goes),
// keeping only the count of supersteps. A row is final when no tile can add to it any
// more: within an IPU every live tile arrives at sync k+1 after closing superstep k, so
// once a tile of the IPU has closed superstep k+2 (sync k+1 was released), row k is
// complete for that IPU. Rows wait for the slowest IPU that still runs; past a second
// window of such waiting rows (IPUs that halted, or sync only within themselves at very
// different rates) the oldest leaves anyway, and a record for a row already gone is
// counted in late_records() rather than kept.
#pragma once

#include <cstdint>
#include <span>
#include <functional>
#include <limits>
#include <vector>

#include "tile/superstep.h"

namespace ipusim::platform {

struct SuperstepTotals {
  uint32_t tiles = 0;                 // tiles that recorded this superstep
  uint32_t exchanging_tiles = 0;      // of which posted messages
  uint32_t incomplete_tiles = 0;      // of which the run ended inside it
  uint64_t compute_cycles = 0;        // sums over the tiles
  uint64_t sync_cycles = 0;
  uint64_t exchange_cycles = 0;
  uint64_t instructions = 0;
  uint64_t exchange_bytes = 0;        // received in the exchange (sum over the tiles)
  uint64_t begin_cycle = std::numeric_limits<uint64_t>::max();  // earliest tile begin
  uint64_t end_cycle = 0;                                       // latest tile end

  void add(const tile::SuperstepRecord& r);
};

// One kept tile's record of a superstep.
struct TileSuperstep {
  uint32_t ipu = 0, tile = 0;
  tile::SuperstepRecord record;
};

// Superstep `index` of the system.
struct SuperstepRow {
  uint64_t index = 0;
  std::vector<SuperstepTotals> ipus;  // by IPU; tiles == 0: the IPU ran none of it
  std::vector<TileSuperstep> tiles;   // the kept tiles' records; (ipu, tile) order once final
};

class SuperstepAccounts {
 public:
  // Where rows go when they leave the window, oldest first, each once, final.
  using Sink = std::function<void(const SuperstepRow&)>;
  // The entries (IPUs + kept tiles) the window holds at most, and its bounds in rows.
  static constexpr uint64_t kWindowEntries = 65536;
  static constexpr uint64_t kWindowRowsMax = 4096;
  static constexpr uint64_t kWindowRowsMin = 16;
  static uint64_t window_rows_for(uint32_t ipus, uint32_t kept_tiles);

  explicit SuperstepAccounts(uint32_t ipus) : ipus_(ipus), counts_(ipus, 0), running_(ipus, false) {}
  void set_sink(Sink sink) { sink_ = std::move(sink); }
  // A new run (a device's RUN from READY, its reset, `ipusim run`): no supersteps yet;
  // `running[i]`: IPU i has tiles that will record (the others never hold a row back);
  // `kept_tiles`: how many tiles' own records the rows keep (0: none).
  void start(std::vector<bool> running, uint32_t kept_tiles);
  void clear() { start(std::vector<bool>(ipus_, false), 0); }
  void add(uint32_t ipu, uint32_t tile, const tile::SuperstepRecord& r);

  uint64_t window_rows() const { return window_; }
  // Index of the oldest row held; rows before it went to the sink.
  uint64_t first() const { return first_; }
  // Supersteps IPU `i` recorded (its highest index + 1), and the most of any IPU.
  uint64_t count(uint32_t i) const { return counts_.at(i); }
  uint64_t count() const;
  // The rows held, oldest first (their tiles in (ipu, tile) order).
  std::span<const SuperstepRow> rows();
  // IPU `i`'s totals of the rows held, up to its own count: entry j is superstep first() + j.
  std::vector<SuperstepTotals> ipu(uint32_t i) const;
  // Records that came for a row already gone (see the top of the file); 0 in every run
  // whose IPUs sync together.
  uint64_t late_records() const { return late_; }
  uint32_t ipus() const { return ipus_; }

  // What a checkpoint keeps of the accounts (docs/checkpoints.md): the rows held, the
  // counts, the first row held; restore() after start() puts them back.
  struct Saved {
    uint64_t first = 0, late = 0;
    std::vector<uint64_t> counts;
    std::vector<SuperstepRow> rows;
  };
  Saved saved() const {
    return Saved{first_, late_, counts_, std::vector<SuperstepRow>(rows_.begin() + std::ptrdiff_t(head_), rows_.end())};
  }
  void restore(Saved s) {
    first_ = s.first;
    late_ = s.late;
    counts_ = std::move(s.counts);
    counts_.resize(ipus_, 0);
    rows_ = std::move(s.rows);
    head_ = 0;
  }

 private:
  bool final(const SuperstepRow& row) const;
  void settle();  // rows past the window leave, when final (or past the waiting bound)
  void sort_tiles(SuperstepRow& row);
  size_t held() const { return rows_.size() - head_; }
  SuperstepRow& row(size_t i) { return rows_[head_ + i]; }

  uint32_t ipus_;
  Sink sink_;
  // rows_[head_ ..] are held; the ones before head_ left and are dropped in batches (a
  // vector, not a deque: nothing is allocated before the first superstep).
  std::vector<SuperstepRow> rows_;
  size_t head_ = 0;
  uint64_t first_ = 0;
  uint64_t window_ = kWindowRowsMax;
  std::vector<uint64_t> counts_;
  std::vector<bool> running_;
  bool keep_tiles_ = false;
  uint64_t late_ = 0;
};

}  // namespace ipusim::platform
