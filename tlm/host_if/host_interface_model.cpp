// HostInterface, model side: construction, the commands the host queued (reset, boot,
// run, abort, DMA doorbells, interrupts), and the classification of a board's run after
// each simulate() into the STATE / ERR_* / statistics registers.
#include <cstring>
#include <string_view>

#include <fmt/format.h>

#include "host_if/host_interface.h"
#include "iss/tile_core.h"

namespace ipusim::host_if {

HostInterface::HostInterface(sc_core::sc_module_name name, const config::SystemConfig& config, uint32_t board,
                             platform::Platform& platform, std::function<void()> wake)
    : sc_module(name),
      tile_socket("tile_socket"),
      config_(config),
      board_(board),
      first_ipu_(board * config.board.ipus),
      platform_(platform),
      wake_(std::move(wake)),
      gateway_(platform.gateway(board)),
      smem_port_(gateway_),
      stream_port_(gateway_),
      smem_(&smem_port_),
      streams_(&stream_port_),
      fifo_bytes_(gateway_.fifo_bytes()) {
  // The host attaches here, and only here: the driver serves the streams, so a copy that
  // finds its FIFO short waits (STREAM_WAIT) instead of failing the exchange.
  gateway_.set_host_connected(true);
  gateway_.set_fifo_listener([this](uint32_t stream, bool d2h) { level_changed(stream, d2h); });
  for (uint32_t i = 0; i < config.board.ipus; ++i) {
    platform::Ipu& ipu = platform.ipu(first_ipu_ + i);
    for (uint32_t t = 0; t < ipu.tile_count(); ++t) {
      // A host writes programs into SRAM before any core exists (an on-demand mapping:
      // untouched SRAM costs nothing).
      ipu.tile(t).give_sram();
      tile_socket.bind(ipu.tile(t).mem_socket);
    }
  }
  sc_core::sc_spawn([this] { channel_thread(0); }, "dma0");
  sc_core::sc_spawn([this] { channel_thread(1); }, "dma1");
}

HostInterface::~HostInterface() = default;

// Work the channels have from the doorbells taken so far, and only while the host has not
// reset or re-programmed the ring since (then those descriptors are dropped).
bool HostInterface::dma_busy() {
  std::lock_guard<std::mutex> lock(mutex_);
  for (unsigned ch = 0; ch < 2; ++ch) {
    const Channel& c = channels_[ch];
    const Doorbell& d = doorbell_[ch];
    if (d.generation == c.generation && d.size != 0 && !c.halted && c.head != d.tail) return true;
  }
  return false;
}

bool HostInterface::busy() { return running_ || dma_busy(); }

// Simulates until both channels have retired what the doorbells taken so far posted (the
// DMA written before this command); doorbells written after it wait in the queue.
void HostInterface::drain_dma(const std::function<void()>& simulate) {
  while (dma_busy()) {
    for (auto& k : kick_) k.notify(sc_core::SC_ZERO_TIME);
    simulate();
  }
}

void HostInterface::take_commands(const std::function<void()>& simulate) {
  for (;;) {
    Command c;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (queue_.empty()) return;
      c = queue_.front();
      queue_.pop_front();
    }
    apply(c, simulate);
  }
}

void HostInterface::apply(const Command& c, const std::function<void()>& simulate) {
  switch (c.kind) {
    case Command::Kind::Reset:
      running_ = false;
      platform_.reset_domain(board_);
      gateway_.reset_streams();  // FIFOs empty, blocked copies dropped; memory kept
      programs_.clear();
      ++model_epoch_;
      update_stats();  // the superstep mirror was cleared with the RESET (ctrl_locked)
      refresh_levels();
      return;
    case Command::Kind::Boot:
      drain_dma(simulate);  // the program's DMA first
      boot(c.boot);
      update_stats();
      raise(IPU_IRQ_STATUS_BOOT_DONE_MASK);  // after the stats: BOOTED_TILES counts them
      return;
    case Command::Kind::Run:
      drain_dma(simulate);
      if (c.resume) {
        gateway_.hold_streams(false);  // a copy waiting on a stream looks at its FIFO again
        platform_.continue_domain(board_, c.a);
      } else {
        std::string trace;
        {
          std::lock_guard<std::mutex> lock(mutex_);
          trace = trace_path_;
        }
        platform_.start_domain(board_, c.a, trace);
      }
      running_ = true;
      return;
    case Command::Kind::Abort: {
      if (!running_) {
        Error e;
        e.code = ProblemCode::State;
        e.detail = "CTRL.ABORT with no run in progress";
        record(e);
        return;
      }
      platform_.freeze_domain(board_);
      platform_.finish_domain(board_);
      running_ = false;
      Error e;
      e.code = ProblemCode::State;
      e.detail = "aborted: CTRL.ABORT during the run";
      record(e);
      end_run(IPU_STATE_ERROR, 0);
      return;
    }
    case Command::Kind::Kick:
      doorbell_.at(c.a) = c.doorbell;
      kick_.at(c.a).notify(sc_core::SC_ZERO_TIME);
      return;
    case Command::Kind::Irq:
      raise(c.a);
      return;
  }
}

// Every tile of the range gets a core over its SRAM as it is; tiles whose code bytes are
// equal share one Program (and its decoded-instruction cache).
void HostInterface::boot(const std::array<uint32_t, 6>& regs) {
  const auto& [ipu, first, count, entry, base, size] = regs;
  std::vector<uint8_t> code(size);
  std::shared_ptr<const iss::Program> last;
  for (uint32_t t = first; t < first + count; ++t) {
    tile::Tile& tile = platform_.ipu(first_ipu_ + ipu).tile(t);
    std::memcpy(code.data(), tile.sram()->data() + (base - iss::kSramBase), size);
    if (!last || !std::equal(code.begin(), code.end(), last->segments().front().bytes.begin())) {
      const uint64_t key = std::hash<std::string_view>{}(std::string_view(reinterpret_cast<const char*>(code.data()), size)) ^
                           (uint64_t(entry) << 32 | base);
      last = nullptr;
      auto [from, to] = programs_.equal_range(key);
      for (auto it = from; it != to; ++it) {
        const iss::Program& p = *it->second;
        if (p.entry() == entry && p.code_begin() == base && p.segments().front().bytes == code) last = it->second;
      }
      if (!last) {
        last = iss::Program::from_image(fmt::format("board {} ipu {} tiles {}+{} code 0x{:08x}", board_, ipu, first, count, base),
                                        entry, base, code);
        programs_.emplace(key, last);
      }
    }
    platform_.boot_tile(first_ipu_ + ipu, t, last);
  }
}

void HostInterface::raise(uint32_t causes) {
  bool fire;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    irq_status_ |= causes;
    fire = (causes & irq_mask_) != 0;
  }
  if (!fire) return;
  InterruptHandler handler;
  {
    std::lock_guard<std::mutex> lock(handler_mutex_);
    handler = handler_;
  }
  if (handler) handler();
}

void HostInterface::record(const Error& e, const std::string& text) {
  bool first;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (reset_epoch_ != model_epoch_) return;  // a RESET the model has not taken yet clears it
    first = record_locked(e, text);
  }
  if (first) raise(IPU_IRQ_STATUS_ERROR_MASK);
}

void HostInterface::end_run(uint32_t state, uint32_t irq) {
  update_stats();
  update_supersteps();
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (reset_epoch_ != model_epoch_) return;
    state_ = state;
  }
  raise(IPU_IRQ_STATUS_RUN_DONE_MASK | irq);
}

void HostInterface::level_changed(uint32_t stream, bool d2h) {
  const uint32_t level = d2h ? gateway_.d2h_level(stream) : gateway_.h2d_level(stream);
  std::lock_guard<std::mutex> lock(mutex_);
  if (reset_epoch_ != model_epoch_ || stream >= IPU_STREAMS) return;  // RESET zeroed them
  (d2h ? d2h_level_ : h2d_level_)[stream] = level;
}

void HostInterface::refresh_levels() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (reset_epoch_ != model_epoch_) return;
  for (uint32_t id = 0; id < IPU_STREAMS; ++id) {
    h2d_level_[id] = gateway_.h2d_level(id);
    d2h_level_[id] = gateway_.d2h_level(id);
  }
}

void HostInterface::update_stats() {
  const platform::BoardStats s = platform_.domain_stats(board_);
  std::lock_guard<std::mutex> lock(mutex_);
  if (reset_epoch_ == model_epoch_) stats_ = s;
}

// System-wide IPU indices -> this board's (ERR_IPU, ERR_PEER_IPU, ERR_ABSENT are per board;
// no register shows the waiters, which ERR_TEXT, rendered before, names as the platform does).
void HostInterface::to_board(Problem& p) const {
  auto local = [&](uint32_t& ipu) {
    if (ipu != Problem::kNone && ipu >= first_ipu_) ipu -= first_ipu_;
  };
  local(p.ipu);
  if (p.peer) local(p.peer->ipu);
  for (SyncTile& t : p.absent) local(t.ipu);
}

void HostInterface::after_simulate(bool starved) {
  if (!running_) {
    update_stats();
    return;
  }
  const platform::BoardOutcome out = platform_.domain_outcome(board_, starved);
  using Kind = platform::BoardOutcome::Kind;
  switch (out.kind) {
    case Kind::Running:
      update_stats();
      return;
    case Kind::Paused:
      running_ = false;
      platform_.flush_console();
      end_run(IPU_STATE_PAUSED, 0);
      return;
    case Kind::Halted:
      running_ = false;
      platform_.finish_domain(board_);
      platform_.flush_console();
      end_run(IPU_STATE_HALTED, 0);
      return;
    case Kind::StreamWait: {
      // Held until CTRL.RUN: the host's DMA changes the FIFO levels, nothing else does.
      running_ = false;
      gateway_.hold_streams(true);
      platform_.flush_console();
      {
        std::lock_guard<std::mutex> lock(mutex_);
        if (reset_epoch_ == model_epoch_) stream_wait_ = *out.stream;
      }
      end_run(IPU_STATE_STREAM_WAIT, 0);
      return;
    }
    case Kind::Error:
      break;
  }
  running_ = false;
  platform_.freeze_domain(board_);
  platform_.finish_domain(board_);
  platform_.flush_console();
  // The problem as found (the tile's fault, the exchange's first problem, the deadlock),
  // or the board's stuck state; only its IPUs become the board's.
  Error e = out.problems.front();
  const std::string text = to_text(e, IPU_ERR_TEXT_BYTES - 1);
  to_board(e);
  record(e, text);
  end_run(IPU_STATE_ERROR, 0);
}

}  // namespace ipusim::host_if
