// A core's architectural state out and back in (core_snapshot.h, docs/checkpoints.md).
#include <algorithm>
#include <stdexcept>

#include <fmt/format.h>

#include "iss/core_state.h"

namespace ipusim::iss {

CoreSnapshot CoreState::snapshot() const {
  CoreSnapshot s;
  const uint32_t live = threads_.live(thread_count());
  for (uint32_t i = 0; i < live; ++i) {
    const Thread& t = threads_[i];
    ThreadSnapshot ts;
    ts.regs.assign(std::begin(t.hart.regs), std::end(t.hart.regs));
    ts.state = uint8_t(t.state);
    if (t.ip) ts.pc = pc_of(t.ip);
    ts.clock = t.clock;
    ts.instret = t.instret;
    ts.stall = t.stall;
    ts.exchange_stall = t.exchange_stall;
    ts.alloc_cycle = t.alloc_cycle;
    ts.start_cycle = t.start_cycle;
    ts.exit_cycle = t.exit_cycle;
    ts.starts = t.starts;
    ts.last_status = t.last_status;
    ts.wait_arg = t.wait_arg;
    ts.line = t.line;
    if (t.amp) {
      const AmpState& a = *t.amp;
      ts.amp = true;
      ts.amp_type = uint8_t(a.type);
      ts.amp_rows = a.rows;
      for (const auto& col : a.w) ts.amp_w.insert(ts.amp_w.end(), std::begin(col), std::end(col));
      for (const auto& bank : a.acc) ts.amp_acc.insert(ts.amp_acc.end(), std::begin(bank), std::end(bank));
      ts.amp_w_raw.assign(std::begin(a.w_raw), std::end(a.w_raw));
    }
    s.threads.push_back(std::move(ts));
  }
  s.wstack_base = wstack_base_;
  s.wstack_size = wstack_size_;
  s.wexit_pc = wexit_pc_;
  s.superstep = superstep_;
  if (stopped_) {
    s.stop_reason = uint8_t(stopped_->reason);
    s.exit_code = stopped_->exit_code;
    s.sync_zone = stopped_->sync_zone;
  }
  s.awaiting_release = awaiting_release_;
  s.exchange_open = exchange_open_;
  s.awaiting_exchange = awaiting_exchange_;
  s.xdst = xdst_;
  s.xsrc = xsrc_;
  s.smaddr = smaddr_;
  s.stream = stream_;
  s.horizon = horizon_;
  s.pending_posts = posts_.size();
  return s;
}

void CoreState::restore(const CoreSnapshot& s) {
  const std::string who = fmt::format("tile {} (ipu {})", params_.id.tile, params_.id.ipu);
  if (s.threads.empty() || s.threads.size() > thread_count())
    throw std::invalid_argument(fmt::format("{}: {} thread context(s) for a tile of {}", who, s.threads.size(),
                                            thread_count()));
  if (s.pending_posts != 0)
    throw std::invalid_argument(fmt::format("{}: {} exchange posting(s) pending", who, s.pending_posts));
  if (s.stop_reason && *s.stop_reason != uint8_t(StopReason::Sync) && *s.stop_reason != uint8_t(StopReason::Halted))
    throw std::invalid_argument(fmt::format("{}: stopped for reason {}, not at a sync or halted", who, *s.stop_reason));
  for (uint32_t i = 0; i < s.threads.size(); ++i) {
    const ThreadSnapshot& ts = s.threads[i];
    Thread& t = threads_[i];  // makes the workers' contexts when a worker is restored
    if (ts.regs.size() != kRegCount)
      throw std::invalid_argument(fmt::format("{} thread {}: {} registers, not {}", who, i, ts.regs.size(), kRegCount));
    if (ts.state > uint8_t(ThreadState::Stopped))
      throw std::invalid_argument(fmt::format("{} thread {}: no thread state {}", who, i, ts.state));
    const DecodedInsn* ip = nullptr;
    if (ts.pc) {
      ip = entry_for(*ts.pc);
      if (!ip) throw std::invalid_argument(fmt::format("{} thread {}: pc 0x{:08x} is not in the code", who, i, *ts.pc));
    }
    std::copy(ts.regs.begin(), ts.regs.end(), t.hart.regs);
    t.state = ThreadState(ts.state);
    t.ip = ip;
    t.clock = ts.clock;
    t.instret = ts.instret;
    t.stall = ts.stall;
    t.exchange_stall = ts.exchange_stall;
    t.alloc_cycle = ts.alloc_cycle;
    t.start_cycle = ts.start_cycle;
    t.exit_cycle = ts.exit_cycle;
    t.starts = ts.starts;
    t.last_status = ts.last_status;
    t.wait_arg = ts.wait_arg;
    t.line = ts.line;
    t.amp.reset();
    if (ts.amp) {
      AmpState& a = amp_state(t);
      if (ts.amp_w.size() != std::size(a.w) * kAmpMaxRows || ts.amp_acc.size() != std::size(a.acc) * kAmpMaxRows ||
          ts.amp_w_raw.size() != sizeof a.w_raw || ts.amp_type > uint8_t(AmpType::F32) || ts.amp_rows > kAmpMaxRows)
        throw std::invalid_argument(fmt::format("{} thread {}: an AMP state of another shape", who, i));
      a.type = AmpType(ts.amp_type);
      a.rows = ts.amp_rows;
      for (size_t j = 0; j < std::size(a.w); ++j)
        std::copy_n(ts.amp_w.begin() + std::ptrdiff_t(j * kAmpMaxRows), kAmpMaxRows, std::begin(a.w[j]));
      for (size_t j = 0; j < std::size(a.acc); ++j)
        std::copy_n(ts.amp_acc.begin() + std::ptrdiff_t(j * kAmpMaxRows), kAmpMaxRows, std::begin(a.acc[j]));
      std::copy(ts.amp_w_raw.begin(), ts.amp_w_raw.end(), std::begin(a.w_raw));
    }
  }
  wstack_base_ = s.wstack_base;
  wstack_size_ = s.wstack_size;
  wexit_pc_ = s.wexit_pc;
  superstep_ = s.superstep;
  stopped_.reset();
  if (s.stop_reason) {
    StopInfo stop;
    stop.reason = StopReason(*s.stop_reason);
    stop.exit_code = s.exit_code;
    stop.sync_zone = s.sync_zone;
    stopped_ = stop;
  }
  awaiting_release_ = s.awaiting_release;
  exchange_open_ = s.exchange_open;
  awaiting_exchange_ = s.awaiting_exchange;
  xdst_ = s.xdst;
  xsrc_ = s.xsrc;
  smaddr_ = s.smaddr;
  stream_ = s.stream;
  horizon_ = s.horizon;
  posts_.clear();
  pause_.reset();
  console_full_ = false;
}

}  // namespace ipusim::iss
