// RunDomain (run_domain.h): the boards' shared STATE and command queue on the host side;
// on the model thread the commands (reset, boot, run, abort, doorbells, interrupts) and
// the classification of the run after each simulate(), reflected into every board.
#include "host_if/run_domain.h"

#include <cstdio>

#include "platform/core_dump.h"

#include <algorithm>

#include <fmt/format.h>

#include "host_if/host_interface.h"

namespace ipusim::host_if {

RunDomain::RunDomain(platform::Platform& platform, std::function<void()> wake)
    : platform_(platform), wake_(std::move(wake)) {}

void RunDomain::add_board(HostInterface& board) {
  boards_.push_back(&board);
  joined_.assign(boards_.size(), 0);
  joined_supersteps_.assign(boards_.size(), 0);
}

// ---- host side (mutex held) ------------------------------------------------------------

void RunDomain::queue(Command c) {
  queue_.push_back(std::move(c));
  if (wake_) wake_();
}

// The interrupt flag pauses every tile at its next quantum, from this (the host's)
// thread: a model thread inside a batch whose tile loops for ever gets out of it, and takes
// the RESET or ABORT queued here. The model clears the flag when it has acted on them.
void RunDomain::reset_locked() {
  platform_.budget().interrupt();
  ++reset_epoch;
  state = IPU_STATE_IDLE;
  std::fill(joined_.begin(), joined_.end(), 0);
  for (HostInterface* b : boards_) b->reset_mirror_locked();
  links_.clear();
  queue(Command{Command::Kind::Reset});
}

// A run starts when every board has written CTRL.RUN: until then the boards that did read
// RUNNING and nothing runs (a host driving one board of several waits for the others).
void RunDomain::run_locked(uint32_t board, uint32_t supersteps, const platform::RunLimits& limits) {
  const bool pending = state == IPU_STATE_RUNNING && std::ranges::any_of(joined_, [](uint8_t j) { return j != 0; });
  const bool resume = state == IPU_STATE_PAUSED || state == IPU_STATE_STREAM_WAIT;
  if (state != IPU_STATE_READY && !resume && !(pending && !joined_.at(board))) {
    Problem e;
    e.code = ProblemCode::State;
    e.detail = pending ? fmt::format("CTRL.RUN written twice to board {} before every board of the system wrote it", board)
                       : fmt::format("CTRL.RUN in state {}: RUN needs READY, PAUSED or STREAM_WAIT", state);
    HostInterface& b = *boards_.at(board);
    if (b.record_locked(e)) b.command_locked(Command{Command::Kind::Irq, IPU_IRQ_STATUS_ERROR_MASK});
    return;
  }
  if (!pending) {
    join_resumes_ = resume;
    joined_limits_ = {};
    state = IPU_STATE_RUNNING;
    for (HostInterface* b : boards_) b->stream_wait_ = {};  // meaningful in STREAM_WAIT only
  }
  joined_.at(board) = 1;
  joined_supersteps_.at(board) = supersteps;
  // The tightest budget of the boards' (0: none); the driver writes the same to each.
  const auto tighter = [](uint64_t a, uint64_t b) { return a == 0 ? b : b == 0 ? a : std::min(a, b); };
  joined_limits_.max_cycles = tighter(joined_limits_.max_cycles, limits.max_cycles);
  joined_limits_.max_instructions = tighter(joined_limits_.max_instructions, limits.max_instructions);
  if (!std::ranges::all_of(joined_, [](uint8_t j) { return j != 0; })) return;
  Command c{Command::Kind::Run};
  c.board = board;
  c.resume = join_resumes_;
  c.supersteps = joined_supersteps_;
  c.limits = joined_limits_;
  std::fill(joined_.begin(), joined_.end(), 0);
  queue(std::move(c));
}

void RunDomain::abort_locked(uint32_t board) {
  if (state == IPU_STATE_RUNNING && std::ranges::any_of(joined_, [](uint8_t j) { return j != 0; })) {
    // Nothing has started: the run ends here, on every board, as an aborted run does.
    std::fill(joined_.begin(), joined_.end(), 0);
    state = IPU_STATE_ERROR;
    Problem e;
    e.code = ProblemCode::State;
    e.detail = fmt::format("aborted: CTRL.ABORT (board {}) before every board wrote CTRL.RUN", board);
    for (HostInterface* b : boards_) {
      const bool first = b->record_locked(e);
      b->command_locked(Command{Command::Kind::Irq, IPU_IRQ_STATUS_RUN_DONE_MASK | (first ? IPU_IRQ_STATUS_ERROR_MASK : 0u)});
    }
    return;
  }
  platform_.budget().interrupt();  // see reset_locked
  Command c{Command::Kind::Abort};
  c.board = board;
  queue(std::move(c));
}

// ---- model thread ----------------------------------------------------------------------

bool RunDomain::dma_busy() {
  return std::ranges::any_of(boards_, [](HostInterface* b) { return b->dma_busy(); });
}

bool RunDomain::busy() { return (running() && !(hold_ && hold_->holding())) || dma_busy(); }

// One step of the kernel. Paused on a host stream, SystemC time must not move (the run
// would go on under the host's feet): only delta cycles at this time, until the DMA the
// host posted has retired (in zero time, dma_channel.cpp); drain_dma() steps again while
// any is left.
void RunDomain::step() {
  if (still()) {
    constexpr int kMaxDeltas = 1 << 20;  // a bound on one step
    for (int i = 0; i < kMaxDeltas && dma_busy(); ++i)
      if (!platform_.simulate_delta())
        for (HostInterface* b : boards_) b->kick_all();  // a channel asleep: look again
    return;
  }
  const bool starved = platform_.simulate();
  if (hold_ && hold_->after_simulate()) return;  // stopped in the debugger: held, not over
  after_simulate(starved);
}

// Lets the DMA the doorbells taken so far posted retire (the DMA written before this
// command); doorbells written after it wait in the queue.
void RunDomain::drain_dma() {
  while (dma_busy()) {
    for (HostInterface* b : boards_) b->kick_all();
    step();
  }
}

void RunDomain::take_commands() {
  for (;;) {
    Command c;
    {
      std::lock_guard<std::mutex> lock(mutex);
      if (queue_.empty()) return;
      c = std::move(queue_.front());
      queue_.pop_front();
    }
    apply(c);
  }
}

std::string RunDomain::trace_path() {
  for (HostInterface* b : boards_)
    if (std::string p = b->trace_path(); !p.empty()) return p;
  return {};
}

void RunDomain::apply(const Command& c) {
  HostInterface& board = *boards_.at(c.board);
  switch (c.kind) {
    case Command::Kind::Reset:
      if (hold_ && running()) hold_->run_ended();
      platform_.reset_run();
      platform_.budget().clear_interrupt();  // every tile it paused is unbooted
      ++model_epoch_;
      for (HostInterface* b : boards_) b->model_reset();
      return;
    case Command::Kind::Boot:
      drain_dma();  // the program's DMA first
      board.boot(c.boot);
      board.update_stats();
      board.raise(IPU_IRQ_STATUS_BOOT_DONE_MASK);  // after the stats: BOOTED_TILES counts them
      return;
    case Command::Kind::Run: {
      drain_dma();  // in zero time if the run is paused on a host stream
      std::vector<uint32_t> limits;  // by system IPU: its board's RUN_SUPERSTEPS
      const uint32_t per_board = platform_.config().board.ipus;
      for (uint32_t s : c.supersteps) limits.insert(limits.end(), per_board, s);
      if (c.resume) {
        for (HostInterface* b : boards_) b->gateway_.hold_streams(false);  // waiting copies look again
        platform_.continue_run(limits);
      } else {
        std::optional<links::FaultPlan> faults;
        {
          std::lock_guard<std::mutex> lock(mutex);
          faults.swap(next_faults_);
        }
        if (faults) platform_.set_link_faults(*faults);
        platform_.budget().set_limits(c.limits);  // for the whole program's run, pauses included
        platform_.start_run(limits, trace_path());
        if (hold_) hold_->run_started();
      }
      return;
    }
    case Command::Kind::Abort: {
      Problem e;
      e.code = ProblemCode::State;
      // Tiles paused by the interrupt stay paused: frozen below, or unbooted by a RESET.
      platform_.budget().clear_interrupt();
      if (!platform_.run_in_progress()) {
        e.detail = "CTRL.ABORT with no run in progress";
        board.record(e);
        return;
      }
      // Running, or paused (supersteps done, or a host stream to serve): ends either way.
      platform_.freeze();
      platform_.finish_run();
      platform_.flush_console();
      e.detail = fmt::format("aborted: CTRL.ABORT (board {}) during the run", c.board);
      end_run(RunEnd{.kind = RunEndKind::Aborted, .problems = {e}});
      return;
    }
    case Command::Kind::Kick:
      board.kick(c.a, c.doorbell);
      if (platform_.gave_up()) board.retire_without_kernel(c.a);  // no kernel runs the channel
      return;
    case Command::Kind::Irq:
      board.raise(c.a);
      return;
  }
}

void RunDomain::update_stats() {
  for (HostInterface* b : boards_) b->update_stats();
}

// Every board records it, naming the system's IPUs; its ERR_TEXT is rendered once, to fit
// the window with its NUL (lists summarised, not cut).
void RunDomain::record_all(const Problem& e) {
  const std::string text = to_text(e, IPU_ERR_TEXT_BYTES - 1);
  for (HostInterface* b : boards_) b->record(e, text);
}

void RunDomain::end_run(const RunEnd& end) {
  // The kernel stopped for good (a model's error): what the host posted retires now, and
  // so does all it posts from now on (apply's Kick), or its DMA would wait for ever.
  if (platform_.gave_up())
    for (HostInterface* b : boards_)
      for (unsigned ch = 0; ch < 2; ++ch) b->retire_without_kernel(ch);
  // A file the run was to write and could not (a waveform, the trace): the host's error
  // when the run had none of its own (else it is a line on stderr only).
  const std::optional<Problem> output = end.over() ? platform_.take_output_problem() : std::nullopt;
  if (const Problem* e = end.problem()) {
    record_all(*e);
    if (end.kind != RunEndKind::Aborted) write_cores(*e);  // the run's own problem, not the host's abort
  } else if (output) {
    record_all(*output);
  }
  // Paused (RUN_SUPERSTEPS) or waiting on a host stream, the run goes on later: gdb waits.
  if (hold_ && end.over()) hold_->run_ended();
  for (HostInterface* b : boards_) {
    b->update_stats();
    b->update_supersteps();
  }
  mirror_links();
  {
    std::lock_guard<std::mutex> lock(mutex);
    if (!current_locked()) return;
    state = output && !end.problem() ? IPU_STATE_ERROR : ipu_state(end.kind);
  }
  for (HostInterface* b : boards_) b->raise(IPU_IRQ_STATUS_RUN_DONE_MASK);
}

void RunDomain::after_simulate(bool starved) {
  // No run in progress: of the statistics only simulated time moves (the host's DMA takes
  // some); the tiles' counts stand still (a boot, a reset and a run's end update them
  // themselves), and recounting them visits every tile: 7 ms a DMA batch on a POD64,
  // 20 minutes for multi_ipu_demo's 188k reads of its results.
  if (!running()) {
    for (HostInterface* b : boards_) b->update_sim_time();
    return;
  }
  // A RESET or ABORT is queued and its interrupt paused the tiles: they say nothing about
  // the run (a kernel that starved for it is no deadlock); the command ends it.
  if (platform_.budget().interrupted()) return;
  const std::optional<RunEnd> end = platform_.outcome(starved);
  if (!end) {  // still running
    update_stats();
    return;
  }
  switch (end->kind) {
    case RunEndKind::Paused:
      platform_.hold_run(end->kind);
      platform_.flush_console();
      break;
    case RunEndKind::StreamWait: {
      // Held until CTRL.RUN: the host's DMA changes the FIFO levels, nothing else does,
      // and simulated time stands still (still()) while the host serves them.
      platform_.hold_run(end->kind);
      const auto streams = platform_.stream_waits();
      for (uint32_t b = 0; b < boards_.size(); ++b) {
        boards_[b]->gateway_.hold_streams(true);
        boards_[b]->set_stream_wait(b < streams.size() ? streams[b] : std::nullopt);
        boards_[b]->kick_all();  // a channel asleep on a later retirement retires now
      }
      platform_.flush_console();
      break;
    }
    case RunEndKind::Halted:
      platform_.finish_run();
      platform_.flush_console();
      break;
    default:  // a problem as found (the tile's fault, the exchange's first problem, the
              // deadlock, the budget), or the stuck state
      platform_.freeze();
      platform_.finish_run();
      platform_.flush_console();
      break;
  }
  end_run(*end);
}

void RunDomain::set_core_dir(std::string dir) { core_dir_ = std::move(dir); }

// A core that cannot be written costs the core (a line on stderr), not the run's end.
void RunDomain::write_cores(const Problem& reason) {
  if (core_dir_.empty()) return;
  try {
    for (const std::string& path : platform::write_cores(core_dir_, platform_, &reason, "device"))
      std::fprintf(stderr, "ipusim: core file %s\n", path.c_str());
  } catch (const std::exception& err) {
    std::fprintf(stderr, "ipusim: error: %s\n", err.what());
  }
}

void RunDomain::set_link_faults(const links::FaultPlan& plan) {
  std::lock_guard<std::mutex> lock(mutex);
  next_faults_ = plan;
}

std::vector<records::LinkStats> RunDomain::link_stats() {
  std::lock_guard<std::mutex> lock(mutex);
  return links_;
}

void RunDomain::mirror_links() {
  std::vector<records::LinkStats> figures;
  for (const platform::LinkResult& l : platform_.link_results())
    figures.push_back({.link = l.link,
                       .from_ipu = l.from_ipu,
                       .to_ipu = l.to_ipu,
                       .frames = l.frames,
                       .bytes = l.bytes,
                       .frames_replayed = l.layer.frames_replayed,
                       .crc_errors = l.layer.crc_errors,
                       .seq_errors = l.layer.seq_errors,
                       .replays = l.layer.replays,
                       .retrains = l.layer.retrains,
                       .cycles_lost = l.layer.cycles_lost});
  std::lock_guard<std::mutex> lock(mutex);
  if (current_locked()) links_ = std::move(figures);
}

}  // namespace ipusim::host_if
