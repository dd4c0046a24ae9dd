// The tile engine's cycle-stepping mode (tile_engine.h, cycle_stepping.h): one cycle at a time, a
// check pass and an execute pass per cycle, never ahead of the next SystemC activity.
#include <algorithm>
#include <limits>
#include <tuple>

#include "tile/tile.h"
#include "tile/tile_engine.h"

namespace ipusim::tile {
namespace {

bool in_order(const Tile* a, const Tile* b) {
  return std::tie(a->identity().ipu, a->identity().tile) < std::tie(b->identity().ipu, b->identity().tile);
}

bool is_paused(const Tile& t) { return t.pause().reason == iss::StopReason::Paused; }

}  // namespace

void TileEngine::set_cycle_stepping(CycleStepControl* control) {
  cycle_stepping_ = control;
  if (control) return;
  // Back to batches: the stretches in progress go on from where they paused.
  for (Tile* t : stepping_) ready_.push_back(t);
  stepping_.clear();
}

// The kernel stops (sc_start returns to the debugger); this thread goes on from here when
// it is started again. False if cycle stepping was left meanwhile (gdb detached).
bool TileEngine::pause_in_cycle_stepping(const CycleStepControl& control) {
  sc_core::sc_pause();
  wait(sc_core::SC_ZERO_TIME);
  return cycle_stepping_ == &control;
}


// A compute in cycle stepping ended: paused before an instruction, the tile stays in the
// cycle stepping (its console lines delivered); stopped, its stretch ends as in a batch.
void TileEngine::stepping_settle(Tile& tile) {
  ++tiles_computed_;
  if (is_paused(tile)) {
    tile.deliver_console(stamp_of(tile));
    // stepping_ is kept in (ipu, tile) order: one binary search finds the tile or its place.
    const auto at = std::lower_bound(stepping_.begin(), stepping_.end(), &tile, in_order);
    if (at == stepping_.end() || *at != &tile) stepping_.insert(at, &tile);
    return;
  }
  std::erase(stepping_, &tile);
  tile.finish_compute(stamp_of(tile));
  cycle_stepping_->stretch_ended(tile);
}

// Console lines carry the number of the batch their stretch ran in (the collector orders
// by it); in cycle stepping a stretch's number is that of the tiles joining at the same
// simulated time, as the tiles one sync releases share a batch.
uint64_t TileEngine::stamp_of(const Tile& tile) const {
  const auto it = stamps_.find(&tile);
  return it == stamps_.end() ? batches_ : it->second;
}

void TileEngine::stepping_join(Tile& tile) {
  if (join_time_ != sc_core::sc_time_stamp() || batches_ == 0) {
    join_time_ = sc_core::sc_time_stamp();
    ++batches_;
  }
  stamps_[&tile] = batches_;
  // Up to the first instruction, issuing none; free, the whole stretch.
  cycle_stepping_->bounds().cycle_limit = cycle_stepping_->free_run() ? iss::RunBounds::kNone : 0;
  tile.compute();
  stepping_settle(tile);
}

void TileEngine::run_cycle_stepping() {
  CycleStepControl& control = *cycle_stepping_;
  iss::RunBounds& bounds = control.bounds();
  std::vector<Tile*> at_cycle;
  for (;;) {
    if (!ready_.empty()) {
      std::vector<Tile*> joining;
      joining.swap(ready_);
      wake_pending_ = false;
      std::sort(joining.begin(), joining.end(), in_order);
      for (Tile* t : joining) stepping_join(*t);
    }
    if (attention_ && attention_->load(std::memory_order_acquire)) {
      if (!pause_in_cycle_stepping(control)) return;
      continue;
    }
    if (stepping_.empty()) return;
    if (control.free_run()) {
      bounds.cycle_limit = iss::RunBounds::kNone;
      const std::vector<Tile*> running = stepping_;
      for (Tile* t : running) {
        t->compute();
        stepping_settle(*t);
      }
      if (control.stop_requested()) {
        if (!pause_in_cycle_stepping(control)) return;
      }
      continue;
    }

    // The next cycle any tile allowed to run issues at.
    const Tile* only = control.only_tile();
    uint64_t cycle = std::numeric_limits<uint64_t>::max();
    for (const Tile* t : stepping_)
      if (!only || t == only) cycle = std::min(cycle, t->pause().pause_cycle);
    if (cycle == std::numeric_limits<uint64_t>::max()) {  // the one tile that may run cannot
      control.only_tile_blocked();
      if (!control.only_tile()) continue;  // every tile runs on
      if (control.stop_requested()) {
        if (!pause_in_cycle_stepping(control)) return;
        continue;
      }
      return;
    }
    // What SystemC has due before that cycle (a release, a delivery) happens first; due
    // now, a few deltas are let run (not without bound: a process that itself waits for
    // the deltas to end, as RunControl's pause does, would wait with us for ever).
    if (!only && sc_core::sc_pending_activity()) {
      const sc_core::sc_time now = sc_core::sc_time_stamp();
      const sc_core::sc_time to_next = sc_core::sc_time_to_pending_activity();
      if (to_next == sc_core::SC_ZERO_TIME) {
        if (delta_waited_at_ != now) {
          delta_waited_at_ = now;
          delta_waits_ = 0;
        }
        if (delta_waits_ < kDeltaWaits) {
          ++delta_waits_;
          wait(sc_core::SC_ZERO_TIME);
          continue;
        }
      } else if (now + to_next <= stepping_.front()->clock().time_of(cycle)) {
        wait(to_next);
        continue;
      }
    }
    if (control.stop_requested()) {
      if (!pause_in_cycle_stepping(control)) return;
      continue;
    }
    at_cycle.clear();
    for (Tile* t : stepping_)
      if ((!only || t == only) && t->pause().pause_cycle == cycle) at_cycle.push_back(t);

    bounds.cycle_limit = cycle + 1;
    control.begin_pass(cycle, /*check=*/true);
    for (Tile* t : at_cycle) t->compute();  // each pauses before its first instruction
    if (control.stop_requested()) {
      if (!pause_in_cycle_stepping(control)) return;
      continue;  // the same cycle again: its instructions have not issued
    }
    control.begin_pass(cycle, /*check=*/false);
    for (Tile* t : at_cycle) {
      bounds.cycle_limit = cycle + 1;
      t->compute();
      stepping_settle(*t);
    }
    if (control.stop_requested()) {
      if (!pause_in_cycle_stepping(control)) return;
    }
  }
}

}  // namespace ipusim::tile
