// The lifecycle of a run: boot, start, simulate, outcome, finish, reset, over and over in
// one elaboration (docs/platform.md "How a run proceeds"). Platform::run calls them once;
// the host interface (tlm/host_if) as the host's commands come, between simulate()s, on
// the kernel's thread. The whole system is one run domain.
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
    ++domain_.loaded;
  }
  set_tile_trace(tile, ipu, tile_index);
  tile.boot(std::move(program), *engine_, *this);
}

namespace {

uint32_t limit_of(std::span<const uint32_t> supersteps, uint32_t ipu) { return ipu < supersteps.size() ? supersteps[ipu] : 0; }

}  // namespace

void Platform::start_run(std::span<const uint32_t> supersteps, const std::string& trace_path) {
  // Cycle 0 is now: DMA before the run moved SystemC time on.
  Domain& dom = domain_;
  dom.epoch = sc_core::sc_time_stamp();
  dom.finished = false;
  dom.control->resume();
  if (!trace_path.empty()) {
    try {
      dom.timeline = std::make_unique<Timeline>(trace_path, config_.board.chip.clock_hz, options_.timeline_tracks_max);
      dom.timeline_is_hosts = true;
    } catch (const std::runtime_error& e) {
      // The host interface checked the path when the host set it; a directory that went
      // away since costs the trace only, not the run.
      std::fprintf(stderr, "ipusim: %s\n", e.what());
    }
  }
  for (auto& p : ipus_) {
    Ipu& ipu = *p;
    accounts_.clear(ipu.index());
    ipu.prepare_run();
    if (dom.timeline) add_timeline_ipu(*dom.timeline, ipu);
    ipu.sync_controller().set_superstep_limit(limit_of(supersteps, ipu.index()));
    for (uint32_t t = 0; t < ipu.tile_count(); ++t) ipu.tile(t).start();
  }
  // The sync group is the IPUs that run a program: its external sync gathers to their
  // centre over the links and releases back (docs/sync.md).
  std::vector<uint32_t> members;
  for (const auto& ipu : ipus_)
    if (ipu->loaded_tiles() > 0) members.push_back(ipu->index());
  dom.group->set_latency_cycles(
      members.empty() ? 0 : links::sync_group_path(topology_, members, config_.board.chip).latency_cycles);
  if (auto r = budget_.start()) dom.control->request(*r);  // the cycle budget's end
}

void Platform::finish_run() {
  Domain& dom = domain_;
  if (dom.finished) return;
  dom.finished = true;
  for (auto& ipu : ipus_) {
    for (uint32_t t = 0; t < ipu->tile_count(); ++t)
      if (ipu->tile(t).loaded() && ipu->tile(t).state() != tile::TileState::Halted) ipu->tile(t).end_accounting();
  }
  // The RTL AMP's waveform files are complete at the end of the run (the platform is never
  // destroyed by `ipusim run`): docs/xipu.md "The AMP as RTL".
  if (options_.waves && config_.cosim.amp == config::BlockModel::Rtl)
    for (auto& ipu : ipus_)
      for (uint32_t t = 0; t < ipu->tile_count(); ++t)
        if (iss::AmpDatapath* amp = ipu->tile(t).amp_datapath()) amp->end_of_run();
  // Every other RTL instance's too: a device's platform is never destroyed either, so its
  // files would stay unreadable (FST) or cut short (VCD). A waveform covers a platform's
  // first run (docs/cosim.md "Waveforms").
  if (options_.waves) {
    try {
      options_.waves->close();
    } catch (const std::exception& e) {
      std::fprintf(stderr, "ipusim: error: closing the waveforms: %s\n", e.what());
    }
  }
  if (!dom.timeline) return;
  // Dropped even if writing fails: the next run starts a trace of its own.
  std::unique_ptr<Timeline> timeline = std::move(dom.timeline);
  const bool hosts = std::exchange(dom.timeline_is_hosts, false);
  try {
    timeline->write();
  } catch (const std::runtime_error& e) {
    if (!hosts) throw;  // `ipusim run --trace`: a trace it cannot write is the run's error
    std::fprintf(stderr, "ipusim: %s\n", e.what());  // a host's: costs the trace
  }
}

void Platform::continue_run(std::span<const uint32_t> supersteps) {
  domain_.control->resume();
  for (auto& ipu : ipus_) ipu->sync_controller().continue_run(limit_of(supersteps, ipu->index()));
}

bool Platform::simulate() {
  sc_core::sc_start();
  return !sc_core::sc_pending_activity();
}

bool Platform::simulate_delta() {
  if (sc_core::sc_pending_activity_at_current_time()) sc_core::sc_start(sc_core::SC_ZERO_TIME);
  return sc_core::sc_pending_activity_at_current_time();
}

RunOutcome Platform::outcome(bool starved) const {
  const Domain& dom = domain_;
  RunOutcome out;
  if (const auto& stop = dom.control->fired()) {
    out.stop = stop;
    if (stop->kind == StopRequest::Kind::Budget || stop->kind == StopRequest::Kind::Interrupted)
      out.running = running_tiles(stop->cycle);
    out.problems = stop_problems(*stop, out.running);
    for (Problem& p : out.problems) locate(p);
    out.kind = stop->kind == StopRequest::Kind::Finished ? RunOutcome::Kind::Halted : RunOutcome::Kind::Error;
    return out;
  }
  // A copy waiting on a host stream comes first: its IPU cannot reach a sync until the
  // host serves the stream, whatever the others hold. The run paused at the end of the
  // time the first copy began to wait (RunControl::request_pause), so every copy that
  // waits by then is named.
  if (dom.control->paused() || starved) {
    out.streams = stream_waits();
    if (!out.streams.empty()) {
      out.kind = RunOutcome::Kind::StreamWait;
      return out;
    }
  }
  if (!starved) {
    // Something else keeps the kernel busy (DMA): the run is paused all the same if each
    // IPU holds a release or has no tile left (nothing of it can move until RUN).
    bool holds = false;
    for (const auto& ipu : ipus_) {
      const sync::SyncController& sc = ipu->sync_controller();
      if (sc.holding())
        holds = true;
      else if (sc.departed() < sc.participants())
        return out;  // Running
    }
    if (holds) out.kind = RunOutcome::Kind::Paused;
    return out;
  }
  for (const auto& ipu : ipus_)
    if (ipu->sync_controller().holding()) {
      out.kind = RunOutcome::Kind::Paused;
      return out;
    }
  if (dom.halted == dom.loaded) {
    out.kind = RunOutcome::Kind::Halted;
    return out;
  }
  out.kind = RunOutcome::Kind::Error;
  out.problems = {describe_stuck()};
  locate(out.problems.front());
  return out;
}

void Platform::freeze() {
  for (auto& ipu : ipus_) engine_->set_frozen(ipu->index(), true);
}

void Platform::reset_run() {
  finish_run();  // a paused run's trace is written with what it did
  Domain& dom = domain_;
  for (auto& p : ipus_) {
    Ipu& ipu = *p;
    engine_->set_frozen(ipu.index(), true);  // drops its ready tiles
    for (uint32_t t = 0; t < ipu.tile_count(); ++t) {
      tile::Tile& tile = ipu.tile(t);
      if (tile.loaded()) --loaded_;
      tile.unboot();
    }
    ipu.sync_controller().reset();
    ipu.exchange_fabric().reset();
    engine_->set_frozen(ipu.index(), false);
  }
  console_.flush();
  dom.group->reset();
  dom.exchange->reset();
  dom.control->rearm();
  dom.loaded = dom.halted = 0;
  dom.last_halt_cycle = 0;
  for (auto& ipu : ipus_) accounts_.clear(ipu->index());
  dom.epoch = sc_core::sc_time_stamp();
}

BoardStats Platform::board_stats(uint32_t board) const {
  const Domain& dom = domain_;
  const auto& stop = dom.control->fired();
  // Where simulated time has reached: tiles compute ahead of it, and a run paused (a host
  // stream, the ticker) must not count cycles the kernel has not got to.
  TileClock clock(config_.board.chip.clock_hz);
  clock.set_epoch(&dom.epoch);
  const uint64_t end = stop ? stop->cycle : clock.cycle_at(sc_core::sc_time_stamp());
  BoardStats s;
  bool counted_supersteps = false;
  for (const uint32_t i : board_ipus(board)) {
    const Ipu& ipu = *ipus_.at(i);
    bool any = false;
    for (uint32_t t = 0; t < ipu.tile_count(); ++t) {
      const tile::Tile& tile = ipu.tile(t);
      if (!tile.loaded()) continue;
      any = true;
      ++s.booted;
      s.cycles = std::max(s.cycles, cycles_reached(tile, end));
      s.instret += tile.instructions();
      if (s.exit_code == 0 && tile.state() == tile::TileState::Halted) s.exit_code = tile.exit_code();
    }
    if (any && !counted_supersteps) {
      s.supersteps = ipu.sync_controller().releases();
      counted_supersteps = true;
    }
    s.exchange_bytes += ipu.exchange_fabric().bytes();
  }
  s.sim_time_ps = sim_time_ps();
  return s;
}

uint64_t Platform::sim_time_ps() const {
  const sc_core::sc_time now = sc_core::sc_time_stamp();
  return now > domain_.epoch ? uint64_t((now - domain_.epoch).to_seconds() * 1e12 + 0.5) : 0;
}

}  // namespace ipusim::platform
