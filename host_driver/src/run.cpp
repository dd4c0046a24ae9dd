// The run loop: RUN_SUPERSTEPS + CTRL.RUN on every board, wait for RUN_DONE (interrupt or
// polling), serve STREAM_WAIT stops of any board from its connected host streams and
// continue, drain what the tiles left in device-to-host FIFOs, and turn an ERROR stop
// into the typed exception. The tiles' console is delivered while the run goes on
// (console.cpp) and drained before run() returns.
#include <ipu/hostif_regs.h>

#include <algorithm>
#include <thread>
#include <utility>

#include "device_impl.h"

namespace ipudrv {

// Each board counts its own tiles: the device's cycles are the latest board's, its
// instructions, bytes and tiles the sums.
RunStats DeviceImpl::read_stats() {
  RunStats s;
  for (auto& b : boards) {
    detail::Transport& t = *b->t;
    auto u64 = [&](uint32_t lo, uint32_t hi) { return detail::read64(t, lo, hi); };
    s.cycles = std::max(s.cycles, u64(IPU_REG_CYCLES_LO, IPU_REG_CYCLES_HI));
    s.instructions += u64(IPU_REG_INSTRET_LO, IPU_REG_INSTRET_HI);
    s.exchange_bytes += u64(IPU_REG_EXCHANGE_BYTES_LO, IPU_REG_EXCHANGE_BYTES_HI);
    s.sim_time_ns = std::max(s.sim_time_ns, u64(IPU_REG_SIM_TIME_NS_LO, IPU_REG_SIM_TIME_NS_HI));
    s.booted_tiles += t.read32(IPU_REG_BOOTED_TILES);
  }
  s.supersteps = boards.at(superstep_board())->t->read32(IPU_REG_SUPERSTEPS);
  return s;
}

// SUPERSTEPS counts the releases of a board's first IPU with booted tiles: the device's
// are the first such board's.
uint32_t DeviceImpl::superstep_board() {
  for (uint32_t b = 0; b < boards.size(); ++b)
    if (boards[b]->t->read32(IPU_REG_BOOTED_TILES) > 0) return b;
  return 0;
}

std::vector<std::vector<SuperstepStats>> DeviceImpl::read_supersteps() {
  std::vector<std::vector<SuperstepStats>> out;
  for (auto& b : boards)
    for (uint32_t ipu = 0; ipu < info.ipus_per_board; ++ipu) out.push_back(b->t->supersteps(ipu));
  return out;
}

uint32_t DeviceImpl::read_state() {
  return (boards.front()->t->read32(IPU_REG_STATUS) & IPU_STATUS_STATE_MASK) >> IPU_STATUS_STATE_SHIFT;
}

// CTRL.RUN takes effect when the model next can, so STATUS read right after it may still
// say READY: the run is over when every board's IRQ_STATUS shows RUN_DONE (cleared before
// the RUN; the boards' run ends together, each raising its own).
uint32_t DeviceImpl::wait_run_done(std::chrono::steady_clock::time_point deadline, const std::function<bool()>& stop) {
  const detail::PollPolicy poll{options.use_interrupts};
  for (int round = 0;; ++round) {
    const uint64_t gen = irq.generation();
    deliver_console(false);
    bool done = true, error = false;
    for (auto& b : boards) {
      const uint32_t raised = b->t->read32(IPU_REG_IRQ_STATUS);
      error = error || (raised & IPU_IRQ_STATUS_ERROR_MASK);
      done = done && (raised & IPU_IRQ_STATUS_RUN_DONE_MASK);
    }
    // A refused RUN raises ERROR without a run. STATE is the domain's: one read.
    if (error && read_state() == IPU_STATE_ERROR) return IPU_STATE_ERROR;
    if (done) {
      const uint32_t state = read_state();
      if (state != IPU_STATE_RUNNING) return state;
    }
    if (std::chrono::steady_clock::now() > deadline) throw TimeoutError("run: not finished within the timeout (still running)");
    if (stop && stop()) throw StopRequested{};
    irq.wait(gen, poll.next(round));
  }
}

// One board's STREAM_WAIT registers: the oldest copy of the board that waits (none:
// STREAM_WAIT_BYTES 0, another board's copy stopped the run). Returns 1 if it was served.
uint32_t DeviceImpl::serve_stream_wait(uint32_t board) {
  BoardSession& b = *boards.at(board);
  detail::Transport& t = *b.t;
  const uint32_t bytes = t.read32(IPU_REG_STREAM_WAIT_BYTES);
  if (bytes == 0) return 0;
  const uint32_t id = t.read32(IPU_REG_STREAM_WAIT_ID);
  const bool d2h = (t.read32(IPU_REG_STREAM_WAIT_DIR) & IPU_STREAM_WAIT_DIR_D2H_MASK) != 0;
  if (id >= IPU_STREAMS)
    throw ProtocolError("STREAM_WAIT names stream " + std::to_string(id) + ", beyond the " + std::to_string(IPU_STREAMS) + " ids");
  const std::string where = boards.size() > 1 ? " of board " + std::to_string(board) : "";
  detail::DmaRequest q;
  q.target = IPU_DMA_TARGET_STREAM;
  q.ipu = id;
  if (!d2h) {
    const uint32_t level = t.read32(IPU_WIN_STREAM_H2D_LEVEL + 4 * id);
    const uint32_t room = info.stream_fifo_bytes > level ? info.stream_fifo_bytes - level : 0;
    if (room == 0) throw ProtocolError("STREAM_WAIT on stream " + std::to_string(id) + " with its host-to-device FIFO full");
    auto data = b.streams.take_h2d(id, std::min(bytes, room), room);
    q.host = data;
    b.dma[0]->transfer({&q, 1});
    return 1;
  }
  if (!b.streams.has_d2h(id))
    throw StreamError("host stream " + std::to_string(id) + where + " (device to host): the tiles wrote " + std::to_string(bytes) +
                      " bytes to it, but it is not connected");
  std::vector<std::byte> data(bytes);
  q.host = data;
  const uint64_t got = b.dma[1]->transfer({&q, 1}).at(0);
  b.streams.give_d2h(id, std::span<const std::byte>(data).first(got));
  return 1;
}

void DeviceImpl::drain_d2h_streams() {
  for (auto& b : boards)
    for (uint32_t id : b->streams.d2h_ids()) {
      const uint32_t level = b->t->read32(IPU_WIN_STREAM_D2H_LEVEL + 4 * id);
      if (level == 0) continue;
      std::vector<std::byte> data(level);
      detail::DmaRequest q;
      q.target = IPU_DMA_TARGET_STREAM;
      q.ipu = id;
      q.host = data;
      const uint64_t got = b->dma[1]->transfer({&q, 1}).at(0);
      b->streams.give_d2h(id, std::span<const std::byte>(data).first(got));
    }
}

RunResult DeviceImpl::run_loop(const RunOptions& options, std::chrono::steady_clock::time_point deadline,
                               bool abort_at_deadline) {
  const uint32_t supersteps = options.supersteps;
  const uint32_t state = read_state();
  if (state == IPU_STATE_IDLE) throw UsageError("run: no program loaded (the device is IDLE)");
  if (state == IPU_STATE_HALTED) throw UsageError("run: every tile has halted; reset() and load() to run again");
  if (state == IPU_STATE_ERROR)
    throw_device_error("run: the device is in ERROR from an earlier run; reset() first: ", read_errors());
  if (state == IPU_STATE_RUNNING) throw UsageError("run: the device is already running");

  RunResult result;
  detail::Transport& counter = *boards.at(superstep_board())->t;
  const uint32_t start = counter.read32(IPU_REG_SUPERSTEPS);
  for (;;) {
    uint32_t budget = 0;
    if (supersteps != 0) {
      const uint32_t done = counter.read32(IPU_REG_SUPERSTEPS) - start;
      budget = done < supersteps ? supersteps - done : 0;
      if (budget == 0) {
        // A stream stop fell exactly on the last superstep: the run is complete.
        result.state = RunState::kPaused;
        break;
      }
    }
    // Every board writes RUN: the run starts when the last one has (docs/host_if.md).
    for (auto& b : boards) {
      b->t->write32(IPU_REG_RUN_SUPERSTEPS, budget);
      // Taken at a RUN from READY only: a paused run keeps the budgets it started with.
      b->t->write32(IPU_REG_RUN_MAX_CYCLES_LO, uint32_t(options.max_cycles));
      b->t->write32(IPU_REG_RUN_MAX_CYCLES_HI, uint32_t(options.max_cycles >> 32));
      b->t->write32(IPU_REG_RUN_MAX_INSTRUCTIONS_LO, uint32_t(options.max_instructions));
      b->t->write32(IPU_REG_RUN_MAX_INSTRUCTIONS_HI, uint32_t(options.max_instructions >> 32));
      b->t->write32(IPU_REG_IRQ_STATUS, IPU_IRQ_STATUS_RUN_DONE_MASK | IPU_IRQ_STATUS_ERROR_MASK);
    }
    for (auto& b : boards) b->t->write32(IPU_REG_CTRL, IPU_CTRL_RUN_MASK);
    run_written();
    // The run ends where it is (tiles stop within milliseconds, even in an endless
    // loop); wait for that, with a deadline of its own, so the device is settled.
    auto abort_and_settle = [&] {
      boards.front()->t->write32(IPU_REG_CTRL, IPU_CTRL_ABORT_MASK);
      const auto settle = std::chrono::steady_clock::now() + std::chrono::seconds(30);
      try {
        wait_run_done(settle);
      } catch (...) {  // the timeout or the stop is what the caller must hear, not a console handler's throw
      }
    };
    uint32_t end = 0;
    try {
      end = wait_run_done(deadline, options.stop_requested);
    } catch (const TimeoutError&) {
      if (!abort_at_deadline) throw;  // run(supersteps, timeout): the run goes on
      abort_and_settle();
      throw TimeoutError("run: not finished within the timeout: aborted (the device is in ERROR; reset() or load() "
                         "to run again)");
    } catch (const StopRequested&) {
      abort_and_settle();
      throw InterruptedError("run: stopped (RunOptions::stop_requested): aborted (the device is in ERROR; reset() or "
                             "load() to run again)");
    }
    if (end == IPU_STATE_STREAM_WAIT) {
      // The run paused where the first copy began to wait; simulated time stands still
      // while every board's waiting stream is served.
      for (uint32_t b = 0; b < boards.size(); ++b) result.stream_services += serve_stream_wait(b);
      continue;
    }
    if (end == IPU_STATE_ERROR) throw_device_error("run: ", read_errors());
    if (end == IPU_STATE_PAUSED) {
      result.state = RunState::kPaused;
      break;
    }
    if (end == IPU_STATE_HALTED) {
      result.state = RunState::kHalted;
      for (auto& b : boards)  // the lowest-numbered tile's: board order is IPU order
        if (result.exit_code == 0) result.exit_code = int32_t(b->t->read32(IPU_REG_EXIT_CODE));
      break;
    }
    throw ProtocolError("run: the run ended in state " + std::to_string(end) + ", which no run ends in");
  }
  drain_d2h_streams();
  result.stats = read_stats();
  result.supersteps = read_supersteps();
  result.links = boards.front()->t->link_stats();  // the system's links: every board has them
  for (const LinkStats& l : result.links) result.link_cycles_lost += l.cycles_lost;
  return result;
}

namespace {

// RunOptions::timeout, checked the same way by run and run_async.
void check_timeout(const char* call, const RunOptions& options) {
  if (options.timeout.count() <= 0)
    throw UsageError(std::string(call) + ": RunOptions::timeout " + std::to_string(options.timeout.count()) +
                     " ms: must be positive");
}

std::chrono::steady_clock::time_point deadline_after(std::chrono::milliseconds timeout) {
  const auto now = std::chrono::steady_clock::now();
  return timeout >= std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::time_point::max() - now)
             ? std::chrono::steady_clock::time_point::max()
             : now + timeout;
}

}  // namespace

RunResult Device::run(const RunOptions& options) {
  auto lock = impl_->lock_api("run");
  check_timeout("run", options);
  const auto deadline = deadline_after(options.timeout);
  impl_->begin_run();
  struct Clear {
    std::atomic<bool>& f;
    ~Clear() { f = false; }
  } clear{impl_->running};
  return impl_->run_locked(options, deadline, /*abort_at_deadline=*/true);
}

RunResult Device::run(uint32_t supersteps, std::chrono::milliseconds timeout) {
  auto lock = impl_->lock_api("run");
  const auto deadline = deadline_after(timeout);
  impl_->begin_run();
  struct Clear {
    std::atomic<bool>& f;
    ~Clear() { f = false; }
  } clear{impl_->running};
  return impl_->run_locked(RunOptions{.supersteps = supersteps}, deadline, /*abort_at_deadline=*/false);
}

std::future<RunResult> Device::run_async(uint32_t supersteps) { return run_async(RunOptions{.supersteps = supersteps}); }

std::future<RunResult> Device::run_async(const RunOptions& options) {
  // Take the API lock here so that a call right after run_async sees the device busy,
  // then hand it to the run's thread.
  auto lock = impl_->lock_api("run_async");
  check_timeout("run_async", options);
  // The previous run's thread let go of the gate as its last act: it is ending, or over.
  if (impl_->async_run.joinable()) impl_->async_run.join();
  impl_->begin_run();
  std::promise<RunResult> promise;
  auto future = promise.get_future();
  const auto deadline = deadline_after(options.timeout);
  impl_->async_run = std::thread([this, options, deadline, lock = std::move(lock), promise = std::move(promise)]() mutable {
    try {
      promise.set_value(impl_->run_locked(options, deadline, /*abort_at_deadline=*/true));
    } catch (...) {
      promise.set_exception(std::current_exception());
    }
    impl_->running = false;
    lock.release();  // last touch of impl_: ~Device, which waits for the gate, joins us
  });
  return future;
}

void DeviceImpl::begin_run() {
  std::lock_guard<std::mutex> lock(start_mutex);
  running = true;
  run_started = abort_pending = false;
}

void DeviceImpl::run_written() {
  std::lock_guard<std::mutex> lock(start_mutex);
  if (run_started) return;  // a later RUN of the same call (after a stream was served)
  run_started = true;
  if (std::exchange(abort_pending, false)) boards.front()->t->write32(IPU_REG_CTRL, IPU_CTRL_ABORT_MASK);
}

void Device::abort() {
  {
    std::lock_guard<std::mutex> lock(impl_->start_mutex);
    if (impl_->running && !impl_->run_started) {  // the run writes it after its RUN
      impl_->abort_pending = true;
      return;
    }
  }
  impl_->boards.front()->t->write32(IPU_REG_CTRL, IPU_CTRL_ABORT_MASK);  // every board's run
}
RunStats Device::stats() { return impl_->read_stats(); }
std::vector<std::vector<SuperstepStats>> Device::superstep_stats() { return impl_->read_supersteps(); }

std::vector<SuperstepStats> Device::superstep_stats(uint32_t ipu) {
  if (ipu >= impl_->info.ipus)
    throw UsageError("superstep_stats: ipu " + std::to_string(ipu) + ": the device has " +
                     std::to_string(impl_->info.ipus) + " IPUs");
  return impl_->board_of(ipu).t->supersteps(impl_->local(ipu));
}

void Device::set_link_faults(const std::string& items) {
  auto lock = impl_->lock_api("set_link_faults");
  impl_->boards.front()->t->set_link_faults(items);  // the system's links: any board sets them
}

std::vector<LinkStats> Device::link_stats() {
  auto lock = impl_->lock_api("link_stats");
  return impl_->boards.front()->t->link_stats();
}

void Device::set_trace(const std::string& path) {
  auto lock = impl_->lock_api("set_trace");
  impl_->boards.front()->t->set_trace_file(path);  // the run's trace covers every board
}
uint32_t Device::state() { return impl_->read_state(); }

}  // namespace ipudrv
