// The lifecycle of a run domain: boot, start, simulate, outcome, finish, reset, over and
// over in one elaboration (docs/platform.md "How a run proceeds"). Platform::run calls
// them once for the whole system; the host interface (tlm/host_if) board by board,
// between simulate()s, on the kernel's thread.
#include <algorithm>
#include <cstdio>
#include <limits>
#include <stdexcept>
#include <utility>

#include <fmt/format.h>

#include "platform/platform.h"

namespace ipusim::platform {

void Platform::boot_tile(uint32_t ipu, uint32_t tile_index, std::shared_ptr<const iss::Program> program) {
  tile::Tile& tile = ipus_.at(ipu)->tile(tile_index);
  if (!tile.loaded()) {
    ++loaded_;
    ++domain_of(ipu).loaded;
  }
  tile.boot(std::move(program), *engine_, *this);
}

void Platform::start_domain(uint32_t board, uint32_t supersteps, const std::string& trace_path) {
  // Cycle 0 is now: DMA before the run moved SystemC time on.
  Domain& dom = *domains_.at(board);
  dom.epoch = sc_core::sc_time_stamp();
  dom.finished = false;
  if (!trace_path.empty()) {
    try {
      dom.timeline = std::make_unique<Timeline>(trace_path, config_.board.chip.clock_hz, options_.timeline_tracks_max);
      dom.timeline_is_hosts = true;
    } catch (const std::runtime_error& e) {
      // The host interface checked the path when the host set it; a directory that went
      // away since costs the trace only, not the run.
      std::fprintf(stderr, "ipusim: board %u: %s\n", board, e.what());
    }
  }
  for (const uint32_t i : domain_ipus(board)) {
    Ipu& ipu = *ipus_[i];
    accounts_.clear(i);
    ipu.prepare_run();
    if (dom.timeline) add_timeline_ipu(*dom.timeline, ipu);
    ipu.sync_controller().set_superstep_limit(supersteps);
    for (uint32_t t = 0; t < ipu.tile_count(); ++t) ipu.tile(t).start();
  }
  // The sync group is the domain's IPUs that run a program: its external sync gathers
  // to their centre over the links and releases back (docs/sync.md).
  std::vector<uint32_t> members;
  for (const uint32_t i : domain_ipus(board))
    if (ipus_[i]->loaded_tiles() > 0) members.push_back(i);
  dom.group->set_latency_cycles(
      members.empty() ? 0 : links::sync_group_path(topology_, members, config_.board.chip).latency_cycles);
}

void Platform::finish_domain(uint32_t board) {
  Domain& dom = *domains_.at(board);
  if (dom.finished) return;
  dom.finished = true;
  for (const uint32_t i : domain_ipus(board)) {
    Ipu& ipu = *ipus_[i];
    for (uint32_t t = 0; t < ipu.tile_count(); ++t)
      if (ipu.tile(t).loaded() && ipu.tile(t).state() != tile::TileState::Halted) ipu.tile(t).end_accounting();
  }
  if (!dom.timeline) return;
  // Dropped even if writing fails: the next run starts a trace of its own.
  std::unique_ptr<Timeline> timeline = std::move(dom.timeline);
  const bool hosts = std::exchange(dom.timeline_is_hosts, false);
  try {
    timeline->write();
  } catch (const std::runtime_error& e) {
    if (!hosts) throw;  // `ipusim run --trace`: a trace it cannot write is the run's error
    std::fprintf(stderr, "ipusim: board %u: %s\n", board, e.what());  // a host's: costs the trace
  }
}

void Platform::continue_domain(uint32_t board, uint32_t supersteps) {
  for (const uint32_t i : domain_ipus(board))
    ipus_[i]->sync_controller().continue_run(supersteps);
}

bool Platform::simulate() {
  sc_core::sc_start();
  return !sc_core::sc_pending_activity();
}

BoardOutcome Platform::domain_outcome(uint32_t board, bool starved) const {
  const Domain& dom = *domains_.at(board);
  BoardOutcome out;
  if (const auto& stop = dom.control->fired()) {
    out.stop = stop;
    out.problems = stop_problems(*stop);
    out.kind = stop->kind == StopRequest::Kind::Finished ? BoardOutcome::Kind::Halted : BoardOutcome::Kind::Error;
    return out;
  }
  const uint32_t first = board * ipus_per_domain_;
  if (!starved) {
    // Other boards keep the kernel busy: this one is paused all the same if each of its
    // IPUs holds a release or has no tile left (nothing of it can move until RUN).
    bool holds = false;
    for (const uint32_t i : domain_ipus(board)) {
      const sync::SyncController& sc = ipus_[i]->sync_controller();
      if (sc.holding())
        holds = true;
      else if (sc.departed() < sc.participants())
        return out;  // Running
    }
    if (holds) out.kind = BoardOutcome::Kind::Paused;
    return out;
  }
  // A copy waiting on a host stream comes first: its IPU cannot reach a sync until the
  // host serves the stream, whatever the others hold.
  if (auto wait = stream_wait(first, ipus_per_domain_)) {
    out.kind = BoardOutcome::Kind::StreamWait;
    out.stream = wait;
    return out;
  }
  for (const uint32_t i : domain_ipus(board))
    if (ipus_[i]->sync_controller().holding()) {
      out.kind = BoardOutcome::Kind::Paused;
      return out;
    }
  if (dom.halted == dom.loaded) {
    out.kind = BoardOutcome::Kind::Halted;
    return out;
  }
  out.kind = BoardOutcome::Kind::Error;
  out.problems = {describe_stuck(first, ipus_per_domain_)};
  return out;
}

void Platform::freeze_domain(uint32_t board) {
  for (const uint32_t i : domain_ipus(board)) engine_->set_frozen(i, true);
}

void Platform::reset_domain(uint32_t board) {
  finish_domain(board);  // a paused run's trace is written with what it did
  Domain& dom = *domains_.at(board);
  for (const uint32_t i : domain_ipus(board)) {
    Ipu& ipu = *ipus_[i];
    engine_->set_frozen(i, true);  // drops its ready tiles
    for (uint32_t t = 0; t < ipu.tile_count(); ++t) {
      tile::Tile& tile = ipu.tile(t);
      if (tile.loaded()) --loaded_;
      tile.unboot();
    }
    ipu.sync_controller().reset();
    ipu.exchange_fabric().reset();
    engine_->set_frozen(i, false);
  }
  console_.flush();
  dom.group->reset();
  dom.exchange->reset();
  dom.control->rearm();
  dom.loaded = dom.halted = 0;
  dom.last_halt_cycle = 0;
  for (const uint32_t i : domain_ipus(board)) accounts_.clear(i);
  dom.epoch = sc_core::sc_time_stamp();
}

BoardStats Platform::domain_stats(uint32_t board) const {
  const Domain& dom = *domains_.at(board);
  const auto& stop = dom.control->fired();
  const uint64_t end = stop ? stop->cycle : std::numeric_limits<uint64_t>::max();
  BoardStats s;
  bool counted_supersteps = false;
  for (const uint32_t i : domain_ipus(board)) {
    const Ipu& ipu = *ipus_[i];
    bool any = false;
    for (uint32_t t = 0; t < ipu.tile_count(); ++t) {
      const tile::Tile& tile = ipu.tile(t);
      if (!tile.loaded()) continue;
      any = true;
      ++s.booted;
      s.cycles = std::max(s.cycles, tile.cycles_at(end));
      s.instret += tile.instructions();
      if (s.exit_code == 0 && tile.state() == tile::TileState::Halted) s.exit_code = tile.exit_code();
    }
    if (any && !counted_supersteps) {
      s.supersteps = ipu.sync_controller().releases();
      counted_supersteps = true;
    }
    s.exchange_bytes += ipu.exchange_fabric().bytes();
  }
  const sc_core::sc_time now = sc_core::sc_time_stamp();
  s.sim_time_ps = now > dom.epoch ? uint64_t((now - dom.epoch).to_seconds() * 1e12 + 0.5) : 0;
  return s;
}

}  // namespace ipusim::platform
