// The lifecycle of a run: boot, start, simulate, outcome, hold / continue, finish, reset,
// over and over in one elaboration (docs/platform.md "How a run proceeds"), each step an
// event of the run's state machine (common/run_state.h). Platform::run calls them once;
// the host interface (tlm/host_if) as the host's commands come, between simulate()s, on
// the kernel's thread. The whole system runs as one.
#include <algorithm>
#include <cstdio>
#include <limits>
#include <stdexcept>
#include <utility>

#include <fmt/format.h>

#include "platform/platform.h"

#include "cosim/rtl_checks.h"

namespace ipusim::platform {

void Platform::boot_tile(uint32_t ipu, uint32_t tile_index, std::shared_ptr<const iss::Program> program) {
  tile::Tile& tile = ipus_.at(ipu)->tile(tile_index);
  run_.boot(tile.loaded() ? 0 : 1);
  set_tile_trace(tile, ipu, tile_index);
  tile.boot(std::move(program), *engine_, *this);
}

namespace {

uint32_t limit_of(std::span<const uint32_t> supersteps, uint32_t ipu) { return ipu < supersteps.size() ? supersteps[ipu] : 0; }

}  // namespace

void Platform::start_run(std::span<const uint32_t> supersteps, const std::string& trace_path) {
  run_.take(RunEvent::Start);
  output_problem_.reset();  // an earlier run's, never taken (a reset finished it)
  // Cycle 0 is now: DMA before the run moved SystemC time on.
  epoch_ = sc_core::sc_time_stamp();
  control_->resume();
  if (!trace_path.empty()) {
    try {
      timeline_ = std::make_unique<Timeline>(trace_path, config_.board.chip.clock_hz, options_.timeline_tracks_max);
      timeline_is_hosts_ = true;
    } catch (const std::runtime_error& e) {
      // The host interface checked the path when the host set it; a directory that went
      // away since costs the trace only, not the run.
      std::fprintf(stderr, "ipusim: %s\n", e.what());
    }
  }
  std::vector<bool> running;
  for (const auto& ipu : ipus_) running.push_back(ipu->loaded_tiles() > 0);
  accounts_.start(std::move(running), keep_tile_supersteps_ ? loaded_tiles() : 0);
  for (auto& p : ipus_) {
    Ipu& ipu = *p;
    ipu.prepare_run();
    if (timeline_) add_timeline_ipu(*timeline_, ipu);
    ipu.sync_controller().set_superstep_limit(limit_of(supersteps, ipu.index()));
    for (uint32_t t = 0; t < ipu.tile_count(); ++t) ipu.tile(t).start();
  }
  // The sync group is the IPUs that run a program: its external sync gathers to their
  // centre over the links and releases back (docs/sync.md).
  std::vector<uint32_t> members;
  for (const auto& ipu : ipus_)
    if (ipu->loaded_tiles() > 0) members.push_back(ipu->index());
  group_->set_latency_cycles(
      members.empty() ? 0 : links::sync_group_path(topology_, members, config_.board.chip).latency_cycles);
  if (auto r = budget_.start()) control_->request(*r);  // the cycle budget's end
}

void Platform::finish_run() {
  run_.take(RunEvent::End);
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
    const bool failed_before = options_.waves->write_error().has_value();
    try {
      options_.waves->close();
    } catch (const std::exception& e) {
      std::fprintf(stderr, "ipusim: error: closing the waveforms: %s\n", e.what());
    }
    // A full disk: named once, however the run went (`ipusim run` then exits 2; a host
    // sees an OUTPUT problem).
    if (!failed_before && options_.waves->write_error()) {
      std::fprintf(stderr, "ipusim: error: %s\n", options_.waves->write_error()->c_str());
      note_output_problem("waveform", *options_.waves->write_error());
    }
  }
  if (!timeline_) return;
  // Dropped even if writing fails: the next run starts a trace of its own.
  std::unique_ptr<Timeline> timeline = std::move(timeline_);
  const bool hosts = std::exchange(timeline_is_hosts_, false);
  try {
    timeline->write();
  } catch (const std::runtime_error& e) {
    if (!hosts) throw;  // `ipusim run --trace`: a trace it cannot write is the run's error
    std::fprintf(stderr, "ipusim: error: %s\n", e.what());
    note_output_problem("trace", e.what());
  }
}

void Platform::note_output_problem(const std::string& kind, const std::string& detail) {
  if (output_problem_) return;  // the first file is the one named
  Problem p;
  p.code = ProblemCode::Output;
  p.kind = kind;
  p.detail = detail;
  p.cycle = now_cycle();
  output_problem_ = std::move(p);
}

void Platform::hold_run(RunEndKind why) {
  if (why == RunEndKind::Paused)
    run_.take(RunEvent::Pause);
  else if (why == RunEndKind::StreamWait)
    run_.take(RunEvent::WaitStream);
  else
    throw std::logic_error(std::string("Platform::hold_run: a run does not stop for '") + kind_name(why) +
                           "' to go on (finish_run)");
}

void Platform::continue_run(std::span<const uint32_t> supersteps) {
  run_.take(RunEvent::Resume);
  control_->resume();
  for (auto& ipu : ipus_) ipu->sync_controller().continue_run(limit_of(supersteps, ipu->index()));
}

bool Platform::simulate() {
  if (gave_up_) return true;
  try {
    sc_core::sc_start();
  } catch (const std::exception& e) {
    give_up(e);
    return true;
  }
  return !sc_core::sc_pending_activity();
}

bool Platform::simulate_delta() {
  if (gave_up_) return false;
  try {
    if (sc_core::sc_pending_activity_at_current_time()) sc_core::sc_start(sc_core::SC_ZERO_TIME);
  } catch (const std::exception& e) {
    give_up(e);
    return false;
  }
  return sc_core::sc_pending_activity_at_current_time();
}

// SystemC hands a process's exception back as an sc_report (sc_core's "uncaught
// exception"): its message is the exception's what(), its type is gone, hence
// take_rtl_failure(). The tile cycle is where simulated time had got to (a tile computes
// ahead of it; the RTL block's own cycle is in the text).
void Platform::give_up(const std::exception& error) {
  const auto* report = dynamic_cast<const sc_core::sc_report*>(&error);
  const std::string message = report ? report->get_msg() : error.what();
  Problem p;
  p.code = ProblemCode::Model;
  if (std::optional<cosim::RtlCheckFailure> failure = cosim::take_rtl_failure(message)) {
    p.kind = "RTL assertion";
    p.detail = cosim::to_text(*failure);
  } else {
    p.kind = "model error";
    p.detail = "the model stopped the run: " + message;
  }
  p.cycle = now_cycle();
  gave_up_ = std::move(p);
}

std::optional<RunEnd> Platform::outcome(bool starved) const {
  if (gave_up_) return RunEnd{.kind = RunEndKind::Aborted, .cycle = gave_up_->cycle, .problems = {*gave_up_}};
  if (const auto& stop = control_->fired()) {
    RunEnd end{.kind = stop->kind, .cycle = stop->cycle};
    if (stop->kind == RunEndKind::Budget || stop->kind == RunEndKind::Interrupted)
      end.running = running_tiles(stop->cycle);
    end.problems = stop_problems(*stop, end.running);
    for (Problem& p : end.problems) locate(p);
    return end;
  }
  // A copy waiting on a host stream comes first: its IPU cannot reach a sync until the
  // host serves the stream, whatever the others hold. The run paused at the end of the
  // time the first copy began to wait (RunControl::request_pause), so every copy that
  // waits by then is named.
  if ((control_->paused() || starved) && !stream_waits().empty()) return RunEnd{.kind = RunEndKind::StreamWait};
  if (!starved) {
    // Something else keeps the kernel busy (DMA): the run is paused all the same if each
    // IPU holds a release or has no tile left (nothing of it can move until RUN).
    bool holds = false;
    for (const auto& ipu : ipus_) {
      const sync::SyncController& sc = ipu->sync_controller();
      if (sc.holding())
        holds = true;
      else if (sc.departed() < sc.participants())
        return std::nullopt;  // running
    }
    if (holds) return RunEnd{.kind = RunEndKind::Paused};
    return std::nullopt;
  }
  for (const auto& ipu : ipus_)
    if (ipu->sync_controller().holding()) return RunEnd{.kind = RunEndKind::Paused};
  if (halted_ == run_.booted()) return RunEnd{.kind = RunEndKind::Halted};
  RunEnd end{.kind = RunEndKind::Deadlock, .problems = {describe_stuck()}};
  locate(end.problems.front());
  return end;
}

void Platform::freeze() {
  for (auto& ipu : ipus_) engine_->set_frozen(ipu->index(), true);
}

void Platform::reset_run() {
  if (run_.in_run()) finish_run();  // a paused run's trace is written with what it did
  for (auto& p : ipus_) {
    Ipu& ipu = *p;
    engine_->set_frozen(ipu.index(), true);  // drops its ready tiles
    for (uint32_t t = 0; t < ipu.tile_count(); ++t) ipu.tile(t).unboot();
    ipu.sync_controller().reset();
    ipu.exchange_fabric().reset();
    engine_->set_frozen(ipu.index(), false);
  }
  console_.flush();
  group_->reset();
  exchange_group_->reset();
  control_->rearm();
  run_.take(RunEvent::Reset);  // no tile booted
  halted_ = 0;
  last_halt_cycle_ = 0;
  accounts_.clear();
  epoch_ = sc_core::sc_time_stamp();
}

BoardStats Platform::board_stats(uint32_t board) const {
  const auto& stop = control_->fired();
  // Where simulated time has reached: tiles compute ahead of it, and a run paused (a host
  // stream, the ticker) must not count cycles the kernel has not got to.
  TileClock clock(config_.board.chip.clock_hz);
  clock.set_epoch(&epoch_);
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
  return now > epoch_ ? uint64_t((now - epoch_).to_seconds() * 1e12 + 0.5) : 0;
}

}  // namespace ipusim::platform
