// The run loop: RUN_SUPERSTEPS + CTRL.RUN, wait for RUN_DONE (interrupt or polling), serve
// STREAM_WAIT stops from the connected host streams and continue, drain what the tiles
// left in device-to-host FIFOs, and turn an ERROR stop into the typed exception.
#include <ipu/hostif_regs.h>

#include <thread>

#include "device_impl.h"

namespace ipudrv {

RunStats DeviceImpl::read_stats() {
  auto u64 = [&](uint32_t lo, uint32_t hi) { return detail::read64(*t, lo, hi); };
  RunStats s;
  s.cycles = u64(IPU_REG_CYCLES_LO, IPU_REG_CYCLES_HI);
  s.instructions = u64(IPU_REG_INSTRET_LO, IPU_REG_INSTRET_HI);
  s.supersteps = t->read32(IPU_REG_SUPERSTEPS);
  s.exchange_bytes = u64(IPU_REG_EXCHANGE_BYTES_LO, IPU_REG_EXCHANGE_BYTES_HI);
  s.sim_time_ns = u64(IPU_REG_SIM_TIME_NS_LO, IPU_REG_SIM_TIME_NS_HI);
  s.booted_tiles = t->read32(IPU_REG_BOOTED_TILES);
  return s;
}

std::vector<std::vector<SuperstepStats>> DeviceImpl::read_supersteps() {
  std::vector<std::vector<SuperstepStats>> out;
  for (uint32_t ipu = 0; ipu < info.ipus; ++ipu) out.push_back(t->supersteps(ipu));
  return out;
}

uint32_t DeviceImpl::read_state() { return (t->read32(IPU_REG_STATUS) & IPU_STATUS_STATE_MASK) >> IPU_STATUS_STATE_SHIFT; }

// CTRL.RUN takes effect when the model next can, so STATUS read right after it may still
// say READY: the run is over when IRQ_STATUS shows RUN_DONE (cleared before the RUN).
uint32_t DeviceImpl::wait_run_done(std::chrono::steady_clock::time_point deadline) {
  const detail::PollPolicy poll{options.use_interrupts};
  for (int round = 0;; ++round) {
    const uint64_t gen = irq.generation();
    const uint32_t raised = t->read32(IPU_REG_IRQ_STATUS);
    if (raised & IPU_IRQ_STATUS_RUN_DONE_MASK) {
      const uint32_t state = read_state();
      if (state != IPU_STATE_RUNNING) return state;
    }
    // A refused RUN raises ERROR without a run.
    if ((raised & IPU_IRQ_STATUS_ERROR_MASK) && read_state() == IPU_STATE_ERROR) return IPU_STATE_ERROR;
    if (std::chrono::steady_clock::now() > deadline) throw TimeoutError("run: not finished within the timeout (still running)");
    irq.wait(gen, poll.next(round));
  }
}

void DeviceImpl::serve_stream_wait() {
  const uint32_t id = t->read32(IPU_REG_STREAM_WAIT_ID);
  const uint32_t bytes = t->read32(IPU_REG_STREAM_WAIT_BYTES);
  const bool d2h = (t->read32(IPU_REG_STREAM_WAIT_DIR) & IPU_STREAM_WAIT_DIR_D2H_MASK) != 0;
  if (id >= IPU_STREAMS)
    throw ProtocolError("STREAM_WAIT names stream " + std::to_string(id) + ", beyond the " + std::to_string(IPU_STREAMS) + " ids");
  detail::DmaRequest q;
  q.target = IPU_DMA_TARGET_STREAM;
  q.ipu = id;
  if (!d2h) {
    const uint32_t level = t->read32(IPU_WIN_STREAM_H2D_LEVEL + 4 * id);
    const uint32_t room = info.stream_fifo_bytes > level ? info.stream_fifo_bytes - level : 0;
    if (room == 0) throw ProtocolError("STREAM_WAIT on stream " + std::to_string(id) + " with its host-to-device FIFO full");
    auto data = streams.take_h2d(id, std::min(bytes, room), room);
    q.host = data;
    dma[0]->transfer({&q, 1});
    return;
  }
  if (!streams.has_d2h(id))
    throw StreamError("host stream " + std::to_string(id) + " (device to host): the tiles wrote " + std::to_string(bytes) +
                      " bytes to it, but it is not connected");
  std::vector<std::byte> data(bytes);
  q.host = data;
  const uint64_t got = dma[1]->transfer({&q, 1}).at(0);
  streams.give_d2h(id, std::span<const std::byte>(data).first(got));
}

void DeviceImpl::drain_d2h_streams() {
  for (uint32_t id : streams.d2h_ids()) {
    const uint32_t level = t->read32(IPU_WIN_STREAM_D2H_LEVEL + 4 * id);
    if (level == 0) continue;
    std::vector<std::byte> data(level);
    detail::DmaRequest q;
    q.target = IPU_DMA_TARGET_STREAM;
    q.ipu = id;
    q.host = data;
    const uint64_t got = dma[1]->transfer({&q, 1}).at(0);
    streams.give_d2h(id, std::span<const std::byte>(data).first(got));
  }
}

RunResult DeviceImpl::run_locked(uint32_t supersteps, std::chrono::steady_clock::time_point deadline) {
  const uint32_t state = read_state();
  if (state == IPU_STATE_IDLE) throw UsageError("run: no program loaded (the device is IDLE)");
  if (state == IPU_STATE_HALTED) throw UsageError("run: every tile has halted; reset() and load() to run again");
  if (state == IPU_STATE_ERROR)
    throw_device_error("run: the device is in ERROR from an earlier run; reset() first: ", detail::read_error_registers(*t));
  if (state == IPU_STATE_RUNNING) throw UsageError("run: the device is already running");

  RunResult result;
  const uint32_t start = t->read32(IPU_REG_SUPERSTEPS);
  for (;;) {
    uint32_t budget = 0;
    if (supersteps != 0) {
      const uint32_t done = t->read32(IPU_REG_SUPERSTEPS) - start;
      budget = done < supersteps ? supersteps - done : 0;
      if (budget == 0) {
        // A stream stop fell exactly on the last superstep: the run is complete.
        result.state = RunState::kPaused;
        break;
      }
    }
    t->write32(IPU_REG_RUN_SUPERSTEPS, budget);
    t->write32(IPU_REG_IRQ_STATUS, IPU_IRQ_STATUS_RUN_DONE_MASK | IPU_IRQ_STATUS_ERROR_MASK);
    t->write32(IPU_REG_CTRL, IPU_CTRL_RUN_MASK);
    const uint32_t end = wait_run_done(deadline);
    if (end == IPU_STATE_STREAM_WAIT) {
      serve_stream_wait();
      ++result.stream_services;
      continue;
    }
    if (end == IPU_STATE_ERROR) throw_device_error("run: ", detail::read_error_registers(*t));
    if (end == IPU_STATE_PAUSED) {
      result.state = RunState::kPaused;
      break;
    }
    if (end == IPU_STATE_HALTED) {
      result.state = RunState::kHalted;
      result.exit_code = int32_t(t->read32(IPU_REG_EXIT_CODE));
      break;
    }
    throw ProtocolError("run: the run ended in state " + std::to_string(end) + ", which no run ends in");
  }
  drain_d2h_streams();
  result.stats = read_stats();
  result.supersteps = read_supersteps();
  return result;
}

RunResult Device::run(uint32_t supersteps, std::chrono::milliseconds timeout) {
  auto lock = impl_->lock_api("run");
  const auto now = std::chrono::steady_clock::now();
  const auto deadline = timeout >= std::chrono::duration_cast<std::chrono::milliseconds>(
                                       std::chrono::steady_clock::time_point::max() - now)
                            ? std::chrono::steady_clock::time_point::max()
                            : now + timeout;
  impl_->running = true;
  struct Clear {
    std::atomic<bool>& f;
    ~Clear() { f = false; }
  } clear{impl_->running};
  return impl_->run_locked(supersteps, deadline);
}

std::future<RunResult> Device::run_async(uint32_t supersteps) {
  // Take the API lock here so that a call right after run_async sees the device busy,
  // then hand it to the run's thread.
  auto lock = impl_->lock_api("run_async");
  // The previous run's thread let go of the gate as its last act: it is ending, or over.
  if (impl_->async_run.joinable()) impl_->async_run.join();
  impl_->running = true;
  std::promise<RunResult> promise;
  auto future = promise.get_future();
  impl_->async_run = std::thread([this, supersteps, lock = std::move(lock), promise = std::move(promise)]() mutable {
    try {
      promise.set_value(impl_->run_locked(supersteps, std::chrono::steady_clock::time_point::max()));
    } catch (...) {
      promise.set_exception(std::current_exception());
    }
    impl_->running = false;
    lock.release();  // last touch of impl_: ~Device, which waits for the gate, joins us
  });
  return future;
}

void Device::abort() { impl_->t->write32(IPU_REG_CTRL, IPU_CTRL_ABORT_MASK); }
RunStats Device::stats() { return impl_->read_stats(); }
std::vector<std::vector<SuperstepStats>> Device::superstep_stats() { return impl_->read_supersteps(); }

std::vector<SuperstepStats> Device::superstep_stats(uint32_t ipu) {
  if (ipu >= impl_->info.ipus)
    throw UsageError("superstep_stats: ipu " + std::to_string(ipu) + ": the board has " +
                     std::to_string(impl_->info.ipus) + " IPUs");
  return impl_->t->supersteps(ipu);
}

void Device::set_trace(const std::string& path) {
  auto lock = impl_->lock_api("set_trace");
  impl_->t->set_trace_file(path);
}
uint32_t Device::state() { return impl_->read_state(); }

}  // namespace ipudrv
