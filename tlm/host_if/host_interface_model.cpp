// HostInterface, model side: construction, and what the run domain's commands and run
// ends do to one board (run_domain.cpp): reset, boot, doorbells, interrupts, errors,
// statistics, the stream mirror.
#include <cstring>
#include <string_view>

#include <fmt/format.h>

#include "host_if/host_interface.h"
#include "iss/tile_core.h"

namespace ipusim::host_if {

HostInterface::HostInterface(sc_core::sc_module_name name, const config::SystemConfig& config, uint32_t board,
                             platform::Platform& platform, RunDomain& domain)
    : sc_module(name),
      tile_socket("tile_socket"),
      config_(config),
      board_(board),
      first_ipu_(board * config.board.ipus),
      platform_(platform),
      domain_(domain),
      gateway_(platform.gateway(board)),
      smem_port_(gateway_),
      stream_port_(gateway_),
      smem_(&smem_port_),
      streams_(&stream_port_),
      fifo_bytes_(gateway_.fifo_bytes()),
      mutex_(domain.mutex) {
  // The host attaches here, and only here: the driver serves the streams, so a copy that
  // finds its FIFO short waits (STREAM_WAIT) instead of failing the exchange.
  gateway_.set_host_connected(true);
  gateway_.set_fifo_listener([this](uint32_t stream, bool d2h) { level_changed(stream, d2h); });
  for (uint32_t i = 0; i < config.board.ipus; ++i) {
    platform::Ipu& ipu = platform.ipu(first_ipu_ + i);
    for (uint32_t t = 0; t < ipu.tile_count(); ++t) {
      // A host writes programs into SRAM before any core exists (an on-demand mapping:
      // untouched SRAM costs nothing).
      try {
        ipu.tile(t).give_sram();
      } catch (const std::exception& e) {
        throw platform::ElaborationError("mapping the SRAM of ipu " + std::to_string(first_ipu_ + i) + " tile " +
                                         std::to_string(t) + ": " + e.what());
      }
      tile_socket.bind(ipu.tile(t).mem_socket);
    }
  }
  domain_.add_board(*this);
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

void HostInterface::kick(uint32_t channel, const Doorbell& doorbell) {
  doorbell_.at(channel) = doorbell;
  kick_.at(channel).notify(sc_core::SC_ZERO_TIME);
}

void HostInterface::kick_all() {
  for (auto& k : kick_) k.notify(sc_core::SC_ZERO_TIME);
}

// The platform was reset already (RunDomain): the board's streams and programs go too.
void HostInterface::model_reset() {
  gateway_.reset_streams();  // FIFOs empty, blocked copies dropped; memory kept
  gateway_.hold_streams(false);
  programs_.clear();
  update_stats();  // the superstep mirror was cleared with the RESET (reset_mirror_locked)
  refresh_levels();
}

std::string HostInterface::trace_path() {
  std::lock_guard<std::mutex> lock(mutex_);
  return trace_path_;
}

void HostInterface::set_stream_wait(const std::optional<streaming::StreamWait>& wait) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (domain_.current_locked()) stream_wait_ = wait.value_or(streaming::StreamWait{});
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
    if (!domain_.current_locked()) return;  // a RESET the model has not taken yet clears it
    first = record_locked(e, text);
  }
  if (first) raise(IPU_IRQ_STATUS_ERROR_MASK);
}

void HostInterface::level_changed(uint32_t stream, bool d2h) {
  const uint32_t level = d2h ? gateway_.d2h_level(stream) : gateway_.h2d_level(stream);
  std::lock_guard<std::mutex> lock(mutex_);
  if (!domain_.current_locked() || stream >= IPU_STREAMS) return;  // RESET zeroed them
  (d2h ? d2h_level_ : h2d_level_)[stream] = level;
}

void HostInterface::refresh_levels() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!domain_.current_locked()) return;
  for (uint32_t id = 0; id < IPU_STREAMS; ++id) {
    h2d_level_[id] = gateway_.h2d_level(id);
    d2h_level_[id] = gateway_.d2h_level(id);
  }
}

void HostInterface::update_sim_time() {
  const uint64_t ps = platform_.sim_time_ps();
  std::lock_guard<std::mutex> lock(mutex_);
  if (domain_.current_locked()) stats_.sim_time_ps = ps;
}

void HostInterface::update_stats() {
  const platform::BoardStats s = platform_.board_stats(board_);
  std::lock_guard<std::mutex> lock(mutex_);
  if (domain_.current_locked()) stats_ = s;
}

}  // namespace ipusim::host_if
