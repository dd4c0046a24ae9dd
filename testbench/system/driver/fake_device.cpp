// fake_device.h
#include "fake_device.h"

#include <ipu/hostif_regs.h>

#include <cstring>
#include <stdexcept>

namespace fakedev {

constexpr uint32_t kTileBase = 0x40000;

FakeDevice::FakeDevice(Geometry g) : g_(g) {
  tiles_.resize(size_t(g_.ipus) * g_.tiles_per_ipu);
  smem_.resize(g_.smem_bytes);
  h2d_.resize(IPU_STREAMS);
  d2h_.resize(IPU_STREAMS);
  consumed_.resize(IPU_STREAMS);
  booted_tiles_.assign(tiles_.size(), false);
  model_ = std::thread([this] { model_loop(); });
}

FakeDevice::~FakeDevice() {
  {
    std::lock_guard l(mu_);
    quit_ = true;
  }
  work_cv_.notify_all();
  model_.join();
}

void FakeDevice::model_loop() {
  std::unique_lock l(mu_);
  for (;;) {
    work_cv_.wait(l, [&] { return quit_ || !work_.empty(); });
    if (quit_) return;
    auto job = std::move(work_.front());
    work_.pop_front();
    busy_ = true;
    l.unlock();
    job();
    deliver_interrupts();
    l.lock();
    busy_ = false;
    idle_cv_.notify_all();
  }
}

void FakeDevice::settle() {
  std::unique_lock l(mu_);
  idle_cv_.wait(l, [&] { return work_.empty() && !busy_; });
}

void FakeDevice::deliver_interrupts() {
  uint32_t n;
  {
    std::lock_guard l(mu_);
    n = pending_irqs_;
    pending_irqs_ = 0;
  }
  std::lock_guard l(handler_mu_);
  for (uint32_t i = 0; i < n; ++i)
    if (handler_) handler_();
}

void FakeDevice::raise(uint32_t causes) {
  irq_status_ |= causes;
  if (causes & irq_mask_) {
    ++pending_irqs_;
    ++counters_.interrupts;
  }
}

void FakeDevice::record_error(uint32_t code, uint32_t ipu, uint32_t tile, uint32_t thread, uint32_t pc, uint64_t addr,
                              const std::string& text) {
  ++err_count_;
  if (err_code_ != 0) return;  // ERR_* keeps the first error
  err_code_ = code, err_ipu_ = ipu, err_tile_ = tile, err_thread_ = thread, err_pc_ = pc, err_addr_ = addr;
  err_text_ = text.substr(0, IPU_ERR_TEXT_BYTES - 1);
  raise(IPU_IRQ_STATUS_ERROR_MASK);
}

uint32_t FakeDevice::read32(uint32_t offset) {
  uint32_t v;
  {
    std::lock_guard l(mu_);
    v = read_locked(offset);
  }
  deliver_interrupts();
  return v;
}

uint32_t FakeDevice::read_locked(uint32_t o) {
  if (o % 4 != 0 || o >= IPU_BAR0_BYTES) {
    record_error(IPU_ERR_REG, ~0u, ~0u, ~0u, ~0u, o, "bad register read");
    return 0xFFFFFFFF;
  }
  if (o >= IPU_WIN_ERR_TEXT && o < IPU_WIN_ERR_TEXT + IPU_WIN_ERR_TEXT_BYTES) {
    uint32_t w = 0;
    for (uint32_t b = 0; b < 4; ++b) {
      const size_t i = o - IPU_WIN_ERR_TEXT + b;
      if (i < err_text_.size()) w |= uint32_t(uint8_t(err_text_[i])) << (8 * b);
    }
    return w;
  }
  if (o >= IPU_WIN_STREAM_H2D_LEVEL && o < IPU_WIN_STREAM_H2D_LEVEL + IPU_WIN_STREAM_H2D_LEVEL_BYTES)
    return uint32_t(h2d_[(o - IPU_WIN_STREAM_H2D_LEVEL) / 4].size());
  if (o >= IPU_WIN_STREAM_D2H_LEVEL && o < IPU_WIN_STREAM_D2H_LEVEL + IPU_WIN_STREAM_D2H_LEVEL_BYTES)
    return uint32_t(d2h_[(o - IPU_WIN_STREAM_D2H_LEVEL) / 4].size());
  const unsigned ch = o >= IPU_REG_DMA1_RING_LO ? 1 : 0;
  switch (o) {
    case IPU_REG_ID: return IPU_ID_MAGIC;
    case IPU_REG_VERSION: return IPU_VERSION_MAJOR << 16 | IPU_VERSION_MINOR;
    case IPU_REG_CAPS: return IPU_CAPS_SMEM_MASK | IPU_CAPS_STREAMS_MASK;
    case IPU_REG_BOARD_INDEX: return g_.board_index;
    case IPU_REG_IPUS: return g_.ipus;
    case IPU_REG_TILES_PER_IPU: return g_.tiles_per_ipu;
    case IPU_REG_SRAM_BYTES: return g_.sram_bytes;
    case IPU_REG_TILE_CLOCK_KHZ: return 1325000;
    case IPU_REG_SMEM_SIZE_LO: return uint32_t(g_.smem_bytes);
    case IPU_REG_SMEM_SIZE_HI: return uint32_t(g_.smem_bytes >> 32);
    case IPU_REG_HOST_LINK_MBPS: return 16000;
    case IPU_REG_WORKERS: return g_.workers;
    case IPU_REG_SYSTEM_IPUS: return g_.system_ipus ? g_.system_ipus : g_.ipus;
    case IPU_REG_AMP_F16_MACS: return g_.amp_f16_macs;
    case IPU_REG_AMP_F32_MACS: return g_.amp_f32_macs;
    case IPU_REG_STATUS:
      return state_ | (ch_[0].head != ch_[0].tail && !ch_[0].halted ? IPU_STATUS_DMA0_BUSY_MASK : 0) |
             (ch_[1].head != ch_[1].tail && !ch_[1].halted ? IPU_STATUS_DMA1_BUSY_MASK : 0);
    case IPU_REG_RUN_SUPERSTEPS: return run_supersteps_;
    case IPU_REG_EXIT_CODE: return exit_code_;
    case IPU_REG_CYCLES_LO: return uint32_t(cycles_);
    case IPU_REG_CYCLES_HI: return uint32_t(cycles_ >> 32);
    case IPU_REG_INSTRET_LO: return uint32_t(instret_);
    case IPU_REG_INSTRET_HI: return uint32_t(instret_ >> 32);
    case IPU_REG_SUPERSTEPS: return supersteps_;
    case IPU_REG_BOOTED_TILES: return booted_;
    case IPU_REG_SIM_TIME_NS_LO: return uint32_t(cycles_ * 3 / 4);
    case IPU_REG_SIM_TIME_NS_HI: return uint32_t((cycles_ * 3 / 4) >> 32);
    case IPU_REG_BOOT_IPU: case IPU_REG_BOOT_TILE_FIRST: case IPU_REG_BOOT_TILE_COUNT:
    case IPU_REG_BOOT_ENTRY: case IPU_REG_BOOT_CODE_BASE: case IPU_REG_BOOT_CODE_SIZE:
      return boot_[(o - IPU_REG_BOOT_IPU) / 4];
    case IPU_REG_IRQ_STATUS: return irq_status_;
    case IPU_REG_IRQ_MASK: return irq_mask_;
    case IPU_REG_STREAM_WAIT_ID: return wait_id_;
    case IPU_REG_STREAM_WAIT_BYTES: return wait_bytes_;
    case IPU_REG_STREAM_WAIT_DIR: return wait_dir_;
    case IPU_REG_STREAM_FIFO_BYTES: return g_.stream_fifo_bytes;
    case IPU_REG_ERR_CODE: return err_code_;
    case IPU_REG_ERR_IPU: return err_ipu_;
    case IPU_REG_ERR_TILE: return err_tile_;
    case IPU_REG_ERR_THREAD: return err_thread_;
    case IPU_REG_ERR_PC: return err_pc_;
    case IPU_REG_ERR_ADDR_LO: return uint32_t(err_addr_);
    case IPU_REG_ERR_ADDR_HI: return uint32_t(err_addr_ >> 32);
    case IPU_REG_ERR_COUNT: return err_count_;
    case IPU_REG_ERR_PEER_IPU: case IPU_REG_ERR_PEER_TILE: case IPU_REG_ERR_PEER_PC: case IPU_REG_ERR_SUPERSTEP:
      return 0xFFFFFFFFu;  // the fake names no second tile and no superstep
    case IPU_REG_DMA0_RING_LO: case IPU_REG_DMA1_RING_LO: return uint32_t(ch_[ch].ring);
    case IPU_REG_DMA0_RING_HI: case IPU_REG_DMA1_RING_HI: return uint32_t(ch_[ch].ring >> 32);
    case IPU_REG_DMA0_RING_SIZE: case IPU_REG_DMA1_RING_SIZE: return ch_[ch].size;
    case IPU_REG_DMA0_HEAD: case IPU_REG_DMA1_HEAD: return ch_[ch].head;
    case IPU_REG_DMA0_TAIL: case IPU_REG_DMA1_TAIL: return ch_[ch].tail;
    case IPU_REG_DMA0_STATUS: case IPU_REG_DMA1_STATUS: return ch_[ch].halted ? 1 : 0;
  }
  return 0;
}

void FakeDevice::write32(uint32_t offset, uint32_t value) {
  std::vector<std::function<void()>> queued;
  {
    std::lock_guard l(mu_);
    write_locked(offset, value, queued);
    for (auto& q : queued) work_.push_back(std::move(q));
  }
  if (!queued.empty()) work_cv_.notify_all();
  deliver_interrupts();
}

void FakeDevice::write_locked(uint32_t o, uint32_t v, std::vector<std::function<void()>>& queued) {
  if (o % 4 != 0 || o >= IPU_BAR0_BYTES) {
    record_error(IPU_ERR_REG, ~0u, ~0u, ~0u, ~0u, o, "bad register write");
    return;
  }
  const unsigned ch = o >= IPU_REG_DMA1_RING_LO ? 1 : 0;
  switch (o) {
    case IPU_REG_CTRL:
      if (v == IPU_CTRL_RESET_MASK) {
        reset_locked();
      } else if (v == IPU_CTRL_RUN_MASK) {
        if (state_ != IPU_STATE_READY && state_ != IPU_STATE_PAUSED && state_ != IPU_STATE_STREAM_WAIT) {
          record_error(IPU_ERR_STATE, ~0u, ~0u, ~0u, ~0u, 0, "RUN in state " + std::to_string(state_));
          return;
        }
        queued.push_back([this] { do_run(); });
      } else if (v == IPU_CTRL_ABORT_MASK) {
        if (state_ == IPU_STATE_RUNNING || state_ == IPU_STATE_PAUSED || state_ == IPU_STATE_STREAM_WAIT) {
          state_ = IPU_STATE_ERROR;
          record_error(IPU_ERR_STATE, ~0u, ~0u, ~0u, ~0u, 0, "aborted");
          raise(IPU_IRQ_STATUS_RUN_DONE_MASK);
        }
      } else {
        record_error(IPU_ERR_REG, ~0u, ~0u, ~0u, ~0u, o, "CTRL: one command bit at a time");
      }
      return;
    case IPU_REG_RUN_SUPERSTEPS: run_supersteps_ = v; return;
    // The driver writes the run budgets before every RUN; the fake has none to enforce
    // (the device model's are tested in devapi_abort_test).
    case IPU_REG_RUN_MAX_CYCLES_LO: case IPU_REG_RUN_MAX_CYCLES_HI:
    case IPU_REG_RUN_MAX_INSTRUCTIONS_LO: case IPU_REG_RUN_MAX_INSTRUCTIONS_HI:
      return;
    case IPU_REG_BOOT_IPU: case IPU_REG_BOOT_TILE_FIRST: case IPU_REG_BOOT_TILE_COUNT:
    case IPU_REG_BOOT_ENTRY: case IPU_REG_BOOT_CODE_BASE: case IPU_REG_BOOT_CODE_SIZE:
      boot_[(o - IPU_REG_BOOT_IPU) / 4] = v;
      return;
    case IPU_REG_BOOT_CMD:
      if (v == 1) boot();
      return;
    case IPU_REG_IRQ_STATUS: irq_status_ &= ~v; return;
    case IPU_REG_IRQ_MASK: irq_mask_ = v; return;
    case IPU_REG_DMA0_RING_LO: case IPU_REG_DMA1_RING_LO: ch_[ch].ring = (ch_[ch].ring & ~0xFFFFFFFFull) | v; return;
    case IPU_REG_DMA0_RING_HI: case IPU_REG_DMA1_RING_HI: ch_[ch].ring = (ch_[ch].ring & 0xFFFFFFFFull) | uint64_t(v) << 32; return;
    case IPU_REG_DMA0_RING_SIZE: case IPU_REG_DMA1_RING_SIZE:
      if (v == 0 || v > IPU_DMA_RING_MAX || (v & (v - 1))) {
        record_error(IPU_ERR_REG, ~0u, ~0u, ~0u, ~0u, o, "RING_SIZE not a power of 2 up to DMA_RING_MAX");
        return;
      }
      ch_[ch] = Channel{ch_[ch].ring, v, 0, 0, false};
      return;
    case IPU_REG_DMA0_TAIL: case IPU_REG_DMA1_TAIL:
      ch_[ch].tail = v;
      ++counters_.doorbells;
      queued.push_back([this, ch] { run_channel(ch); });
      return;
  }
  record_error(IPU_ERR_REG, ~0u, ~0u, ~0u, ~0u, o, "write to a read-only or unknown register");
}

void FakeDevice::reset_locked() {
  state_ = IPU_STATE_IDLE;
  for (auto& c : ch_) c = Channel{};
  run_supersteps_ = exit_code_ = supersteps_ = booted_ = 0;
  cycles_ = instret_ = 0;
  booted_tiles_.assign(tiles_.size(), false);
  irq_status_ = 0;
  wait_id_ = wait_bytes_ = wait_dir_ = 0;
  err_code_ = err_count_ = 0;
  err_ipu_ = err_tile_ = err_thread_ = err_pc_ = ~0u;
  err_addr_ = 0;
  err_text_.clear();
  for (auto& f : h2d_) f.clear();
  for (auto& f : d2h_) f.clear();
  ++counters_.resets;
}

void FakeDevice::boot() {
  ++counters_.boots;
  const uint32_t ipu = boot_[0], first = boot_[1], count = boot_[2], entry = boot_[3], base = boot_[4], size = boot_[5];
  auto bad = [&](const std::string& why) { record_error(IPU_ERR_BOOT, ipu, first, ~0u, entry, base, why); };
  if (state_ != IPU_STATE_IDLE && state_ != IPU_STATE_READY) return bad("boot outside IDLE / READY");
  if (ipu >= g_.ipus || count == 0 || first >= g_.tiles_per_ipu || count > g_.tiles_per_ipu - first) return bad("tile range");
  if (base % 4 || size % 4 || size == 0 || base < kTileBase || base - kTileBase + uint64_t(size) > g_.sram_bytes)
    return bad("code range");
  if (entry < base || entry >= base + size || entry % 4) return bad("entry outside the code range");
  for (uint32_t t = first; t < first + count; ++t) {
    if (booted_tiles_[size_t(ipu) * g_.tiles_per_ipu + t]) return bad("tile booted twice");
  }
  for (uint32_t t = first; t < first + count; ++t) booted_tiles_[size_t(ipu) * g_.tiles_per_ipu + t] = true;
  booted_ += count;
  raise(IPU_IRQ_STATUS_BOOT_DONE_MASK);
  last_entry_ = entry;
  state_ = IPU_STATE_READY;
}

std::vector<uint8_t>* FakeDevice::tile_mem(uint32_t ipu, uint32_t tile) {
  auto& m = tiles_[size_t(ipu) * g_.tiles_per_ipu + tile];
  if (m.empty()) m.resize(g_.sram_bytes);
  return &m;
}

std::byte* FakeDevice::host(uint64_t bus, uint64_t n) {
  auto it = host_.upper_bound(bus);
  if (it == host_.begin()) return nullptr;
  --it;
  const uint64_t off = bus - it->first;
  if (off > it->second.size() || it->second.size() - off < n) return nullptr;
  return it->second.data() + off;
}

uint32_t FakeDevice::do_descriptor(unsigned ch, ipu_dma_desc& d, uint64_t& bad) {
  bad = 0;
  if (d.length == 0 || d.target > IPU_DMA_TARGET_STREAM) return IPU_ERR_DMA_DESC;
  std::byte* h = host(d.host_addr, d.length);
  if (!h) {
    bad = d.host_addr;
    return IPU_ERR_DMA_HOST_ADDR;
  }
  counters_.largest_descriptor = std::max(counters_.largest_descriptor, d.length);
  const bool per_tile = (d.flags & IPU_DESC_FLAG_PER_TILE) != 0;
  if (per_tile && d.target != IPU_DMA_TARGET_TILE) return IPU_ERR_DMA_DESC;
  if (d.target == IPU_DMA_TARGET_TILE) {
    if (d.ipu >= g_.ipus || d.tile_count == 0 || d.tile_first >= g_.tiles_per_ipu ||
        d.tile_count > g_.tiles_per_ipu - d.tile_first || (ch == 1 && d.tile_count != 1 && !per_tile) ||
        (per_tile && d.length % d.tile_count != 0))
      return IPU_ERR_DMA_DESC;
    // A per-tile descriptor (scatter / gather) gives tile tile_first + i slice i.
    const uint32_t slice = per_tile ? d.length / d.tile_count : d.length;
    if (d.dev_addr < kTileBase || d.dev_addr - kTileBase + slice > g_.sram_bytes) {
      bad = d.dev_addr;
      return IPU_ERR_DMA_TILE;
    }
    if (d.tile_count > 1 && !per_tile) ++counters_.broadcast_descriptors;
    for (uint32_t t = d.tile_first; t < d.tile_first + d.tile_count; ++t) {
      uint8_t* m = tile_mem(d.ipu, t)->data() + (d.dev_addr - kTileBase);
      std::byte* hs = per_tile ? h + uint64_t(t - d.tile_first) * slice : h;
      if (ch == 0) std::memcpy(m, hs, slice);
      else std::memcpy(hs, m, slice);
    }
    d.bytes_done = d.length;
    return 0;
  }
  if (d.target == IPU_DMA_TARGET_SMEM) {
    if (d.dev_addr > g_.smem_bytes || g_.smem_bytes - d.dev_addr < d.length) {
      bad = d.dev_addr;
      return IPU_ERR_SMEM_RANGE;
    }
    if (ch == 0) std::memcpy(smem_.data() + d.dev_addr, h, d.length);
    else std::memcpy(h, smem_.data() + d.dev_addr, d.length);
    d.bytes_done = d.length;
    return 0;
  }
  // As the device (tlm/host_if/gateway_ports.h): a push is all or nothing (more than the
  // FIFO's room: STREAM_OVERFLOW, nothing moved); a pop takes what is held (bytes_done).
  if (d.ipu >= IPU_STREAMS) return IPU_ERR_STREAM;
  if (ch == 0) {
    auto& f = h2d_[d.ipu];
    if (f.size() + d.length > g_.stream_fifo_bytes) return IPU_ERR_STREAM_OVERFLOW;
    const auto* p = reinterpret_cast<const uint8_t*>(h);
    f.insert(f.end(), p, p + d.length);
    d.bytes_done = d.length;
  } else {
    auto& f = d2h_[d.ipu];
    const uint32_t n = uint32_t(std::min<size_t>(f.size(), d.length));
    auto* p = reinterpret_cast<uint8_t*>(h);
    std::copy(f.begin(), f.begin() + n, p);
    f.erase(f.begin(), f.begin() + n);
    d.bytes_done = n;
  }
  return 0;
}

void FakeDevice::run_channel(unsigned ch) {
  std::lock_guard l(mu_);
  Channel& c = ch_[ch];
  while (!c.halted && c.size != 0 && c.head != c.tail) {
    ipu_dma_desc* slot = reinterpret_cast<ipu_dma_desc*>(host(c.ring + uint64_t(c.head % c.size) * sizeof(ipu_dma_desc),
                                                              sizeof(ipu_dma_desc)));
    ipu_dma_desc d{};
    uint32_t err;
    uint64_t bad = 0;
    if (!slot) {
      err = IPU_ERR_DMA_HOST_ADDR;
      bad = c.ring;
    } else {
      std::memcpy(&d, slot, sizeof d);
      err = do_descriptor(ch, d, bad);
    }
    ++counters_.descriptors;
    if (err) {
      if (slot) {
        d.status = IPU_DESC_STATUS_ERROR;
        d.error = err;
        std::memcpy(slot, &d, sizeof d);
      }
      c.halted = true;
      record_error(err, ~0u, ~0u, ~0u, ~0u, bad, "DMA channel " + std::to_string(ch) + " descriptor " + std::to_string(c.head));
      raise(ch == 0 ? IPU_IRQ_STATUS_DMA0_MASK : IPU_IRQ_STATUS_DMA1_MASK);
      return;
    }
    d.status = IPU_DESC_STATUS_OK;
    d.error = 0;
    std::memcpy(slot, &d, sizeof d);
    ++c.head;
    if (d.flags & IPU_DESC_FLAG_IRQ) raise(ch == 0 ? IPU_IRQ_STATUS_DMA0_MASK : IPU_IRQ_STATUS_DMA1_MASK);
  }
}

void FakeDevice::do_run() {
  std::chrono::milliseconds delay;
  {
    std::lock_guard l(mu_);
    if (state_ != IPU_STATE_READY && state_ != IPU_STATE_PAUSED && state_ != IPU_STATE_STREAM_WAIT) return;
    state_ = IPU_STATE_RUNNING;
    delay = run_delay_;
  }
  if (delay.count()) std::this_thread::sleep_for(delay);
  std::lock_guard l(mu_);
  if (state_ != IPU_STATE_RUNNING) return;  // aborted or reset meanwhile
  for (;;) {
    if (steps_.empty()) {
      state_ = IPU_STATE_HALTED;
      break;
    }
    Step& s = steps_.front();
    instret_ += 100 * booted_;
    cycles_ += 600;
    if (s.kind == Step::Kind::kHalt) {
      exit_code_ = uint32_t(s.exit_code);
      state_ = IPU_STATE_HALTED;
      steps_.pop_front();
      break;
    }
    if (s.kind == Step::Kind::kPause) {
      ++supersteps_;
      steps_.pop_front();
      if (run_supersteps_ != 0 && supersteps_ % run_supersteps_ == 0) {
        state_ = IPU_STATE_PAUSED;
        break;
      }
      continue;
    }
    if (s.kind == Step::Kind::kError) {
      record_error(s.code, s.ipu, s.tile, s.thread, s.pc, 0, s.text);
      state_ = IPU_STATE_ERROR;
      steps_.pop_front();
      break;
    }
    if (s.kind == Step::Kind::kHang) return;  // RUNNING until ABORT or RESET
    if (s.kind == Step::Kind::kStreamRead) {
      // The tiles take what the FIFO holds as it comes, and stop while it is empty.
      auto& f = h2d_[s.stream];
      const uint32_t n = uint32_t(std::min<size_t>(f.size(), s.bytes));
      consumed_[s.stream].insert(consumed_[s.stream].end(), f.begin(), f.begin() + n);
      f.erase(f.begin(), f.begin() + n);
      s.bytes -= n;
      if (s.bytes != 0) {
        state_ = IPU_STATE_STREAM_WAIT;
        wait_id_ = s.stream, wait_bytes_ = std::min(s.bytes, g_.stream_fifo_bytes), wait_dir_ = 0;
        break;
      }
      steps_.pop_front();
      continue;
    }
    // kStreamWrite: push what fits; a full FIFO stops for the host to drain it.
    auto& f = d2h_[s.stream];
    const size_t n = std::min<size_t>(s.data.size(), g_.stream_fifo_bytes - f.size());
    f.insert(f.end(), s.data.begin(), s.data.begin() + long(n));
    s.data.erase(s.data.begin(), s.data.begin() + long(n));
    if (!s.data.empty()) {
      state_ = IPU_STATE_STREAM_WAIT;
      wait_id_ = s.stream, wait_bytes_ = uint32_t(f.size()), wait_dir_ = 1;
      break;
    }
    steps_.pop_front();
  }
  raise(IPU_IRQ_STATUS_RUN_DONE_MASK);
}

void FakeDevice::map_host_memory(uint64_t bus, std::span<std::byte> memory) {
  std::lock_guard l(mu_);
  if (memory.empty()) throw std::invalid_argument("map_host_memory: empty range");
  auto next = host_.lower_bound(bus);
  if (next != host_.end() && next->first < bus + memory.size()) throw std::invalid_argument("map_host_memory: overlap");
  if (next != host_.begin()) {
    auto prev = std::prev(next);
    if (prev->first + prev->second.size() > bus) throw std::invalid_argument("map_host_memory: overlap");
  }
  host_[bus] = memory;
}

void FakeDevice::unmap_host_memory(uint64_t bus) {
  std::lock_guard l(mu_);
  if (host_.erase(bus) == 0) throw std::invalid_argument("unmap_host_memory: unknown range");
}

void FakeDevice::set_interrupt_handler(InterruptHandler handler) {
  std::lock_guard l(handler_mu_);
  handler_ = std::move(handler);
}

void FakeDevice::script(std::vector<Step> steps) {
  std::lock_guard l(mu_);
  steps_.assign(steps.begin(), steps.end());
}
void FakeDevice::set_run_delay(std::chrono::milliseconds d) {
  std::lock_guard l(mu_);
  run_delay_ = d;
}
std::vector<uint8_t> FakeDevice::tile_bytes(uint32_t ipu, uint32_t tile, uint32_t addr, uint32_t n) {
  std::lock_guard l(mu_);
  const auto* m = tile_mem(ipu, tile);
  return {m->begin() + (addr - kTileBase), m->begin() + (addr - kTileBase + n)};
}
std::vector<uint8_t> FakeDevice::smem_bytes(uint64_t offset, uint32_t n) {
  std::lock_guard l(mu_);
  return {smem_.begin() + long(offset), smem_.begin() + long(offset + n)};
}
std::vector<uint8_t> FakeDevice::consumed(uint32_t stream) {
  std::lock_guard l(mu_);
  return consumed_[stream];
}
FakeDevice::Counters FakeDevice::counters() {
  std::lock_guard l(mu_);
  return counters_;
}
size_t FakeDevice::mappings() {
  std::lock_guard l(mu_);
  return host_.size();
}
uint32_t FakeDevice::last_boot_entry() {
  std::lock_guard l(mu_);
  return last_entry_;
}

}  // namespace fakedev
