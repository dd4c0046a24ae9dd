// Per-tile BSP accounting: where each superstep's cycles went (plain C++, no SystemC).
//
// Superstep k of a tile is its k-th compute / sync / exchange round (k from 0):
//
//   begin ── compute ──> sync arrival ── sync wait ──> release ── compute ──> xwait ── exchange ──> end
//                                                      (posting the messages)
//
// It begins where superstep k-1 ended (cycle 0 for k = 0) and ends when the exchange
// phase opened by its sync closes: at the exchange's completion if the tile posted
// messages (its `xwait`, or the implicit one of a sync / halt with postings pending), or
// at the sync's release if the tile posted nothing (an empty exchange costs nothing; the
// compute after such a release belongs to superstep k+1). The tile's last superstep ends
// at its `halt` and has no sync. So compute + sync + exchange = end - begin, and a tile
// that halts normally has syncs + 1 supersteps.
#pragma once

#include <cstdint>
#include <functional>

namespace ipusim::tile {

struct SuperstepRecord {
  uint32_t index = 0;            // 0, 1, ... per tile
  uint64_t begin = 0;            // tile cycles
  uint64_t sync_arrival = 0;     // the `sync` (== end when there is none: the last superstep)
  uint64_t sync_release = 0;     // (== sync_arrival when there is no sync)
  uint64_t exchange_start = 0;   // the `xwait` (== end when the tile posted nothing)
  uint64_t end = 0;
  uint64_t compute_cycles = 0;   // begin..sync_arrival plus sync_release..exchange_start
  uint64_t sync_cycles = 0;      // sync_arrival..sync_release
  uint64_t exchange_cycles = 0;  // exchange_start..end
  uint64_t instructions = 0;     // retired by all the tile's threads in the superstep
  uint64_t bytes_out = 0;        // sent in its exchange (a multicast counts once)
  uint64_t bytes_in = 0;         // received in its exchange
  uint32_t sync_zone = 0;        // 1 = IPU, 2 = group; 0 = none (last superstep)
  bool exchanged = false;        // the tile posted messages (an exchange took place)
  bool complete = true;          // false: closed early because the run ended inside it
};

// Follows one tile through its stops and hands each superstep to `sink` when it closes.
// Call the on_* functions in the order the events happen to the tile.
class SuperstepTracker {
 public:
  using Sink = std::function<void(const SuperstepRecord&)>;
  explicit SuperstepTracker(Sink sink) : sink_(std::move(sink)) {}

  void on_sync_arrival(uint64_t cycle, uint64_t instret, uint32_t zone);
  void on_sync_release(uint64_t cycle);
  void on_exchange_start(uint64_t cycle, uint64_t instret);  // posted: xwait reached
  void on_exchange_done(uint64_t cycle, uint64_t bytes_out = 0, uint64_t bytes_in = 0);
  void on_halt(uint64_t cycle, uint64_t instret);
  // The run ended with the tile inside a superstep (fault, deadlock, another tile's
  // error): closes it, incomplete, with the cycles attributed so far (up to `cycle`, the
  // tile's last stop) and the instructions retired so far.
  void on_run_end(uint64_t cycle, uint64_t instret);

  uint32_t closed() const { return next_index_; }

  // Where the tracker stands, for a checkpoint (docs/checkpoints.md); set_state() puts a
  // saved one back (false, nothing changed: a phase that does not exist).
  struct State {
    uint8_t phase = 0;
    SuperstepRecord cur;
    uint32_t next_index = 0;
    uint64_t instret_begin = 0, instret_arrival = 0;
  };
  State state() const {
    return State{uint8_t(phase_), cur_, next_index_, instret_begin_, instret_arrival_};
  }
  bool set_state(const State& s) {
    if (s.phase > uint8_t(Phase::Done)) return false;
    phase_ = Phase(s.phase);
    cur_ = s.cur;
    next_index_ = s.next_index;
    instret_begin_ = s.instret_begin;
    instret_arrival_ = s.instret_arrival;
    return true;
  }

 private:
  enum class Phase { Compute, AtSync, Released, AtExchange, Done };
  void close(uint64_t end, uint64_t instret_at_end, bool complete = true);
  void close_empty_exchange_phase();

  Sink sink_;
  Phase phase_ = Phase::Compute;
  SuperstepRecord cur_;
  uint32_t next_index_ = 0;
  uint64_t instret_begin_ = 0;    // at cur_.begin
  uint64_t instret_arrival_ = 0;  // at cur_.sync_arrival (nothing retires until the release)
};

}  // namespace ipusim::tile
