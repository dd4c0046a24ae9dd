// HostInterface, host side: the BAR0 register file as host threads see it. Reads come
// from the mirror at once; writes update the mirror and queue the commands the model
// thread acts on (host_interface_model.cpp). Every offset and field comes from
// ipu/hostif_regs.h.
#include <algorithm>
#include <cstring>

#include <fmt/format.h>

#include "host_if/host_interface.h"
#include "iss/tile_core.h"

namespace ipusim::host_if {

static_assert(IPU_ERR_ABSENT_MAX * 4 == IPU_WIN_ERR_ABSENT_BYTES, "ERR_ABSENT: one word per listed absent tile");

namespace {

uint32_t lo(uint64_t v) { return uint32_t(v); }
uint32_t hi(uint64_t v) { return uint32_t(v >> 32); }

bool is_power_of_2(uint32_t v) { return v != 0 && (v & (v - 1)) == 0; }

// A word of a text window of `window` bytes at byte `at`: the text, NUL-padded, its last
// byte always NUL.
uint32_t text_word(const std::string& text, size_t at, size_t window) {
  char bytes[4] = {0, 0, 0, 0};
  const size_t end = std::min(text.size(), window - 1);
  for (size_t i = 0; i < 4; ++i)
    if (at + i < end) bytes[i] = text[at + i];
  uint32_t v;
  std::memcpy(&v, bytes, 4);
  return v;
}

}  // namespace

uint32_t HostInterface::read32(uint32_t offset) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (offset % 4 != 0 || offset >= IPU_BAR0_BYTES) {
    reg_error_locked(offset, "read of an offset outside BAR0 or not 4-aligned");
    return 0xFFFFFFFFu;
  }
  return read_locked(offset);
}

uint32_t HostInterface::read_locked(uint32_t offset) {
  // A 64-bit pair: reading _LO latches _HI.
  auto pair = [&](uint64_t v, uint32_t hi_offset) {
    latched_hi_[hi_offset] = hi(v);
    return lo(v);
  };
  auto latched = [&](uint32_t hi_offset, uint64_t v) {
    auto it = latched_hi_.find(hi_offset);
    return it != latched_hi_.end() ? it->second : hi(v);
  };
  const config::BoardConfig& b = config_.board;
  const uint64_t sim_ns = stats_.sim_time_ps / 1000;
  switch (offset) {
    case IPU_REG_ID: return IPU_ID_MAGIC;
    case IPU_REG_VERSION: return IPU_VERSION_MAJOR << IPU_VERSION_MAJOR_SHIFT | IPU_VERSION_MINOR << IPU_VERSION_MINOR_SHIFT;
    case IPU_REG_CAPS:
      return (smem_ && b.streaming_memory_bytes > 0 ? IPU_CAPS_SMEM_MASK : 0) | (streams_ ? IPU_CAPS_STREAMS_MASK : 0);
    case IPU_REG_AMP_F16_MACS: return b.chip.tile.amp_f16_macs_per_cycle;
    case IPU_REG_AMP_F32_MACS: return b.chip.tile.amp_f32_macs_per_cycle;
    case IPU_REG_BOARD_INDEX: return board_;
    case IPU_REG_IPUS: return b.ipus;
    case IPU_REG_TILES_PER_IPU: return b.chip.tiles;
    case IPU_REG_SRAM_BYTES: return uint32_t(b.chip.tile.sram_bytes);
    case IPU_REG_TILE_CLOCK_KHZ: return uint32_t(b.chip.clock_hz / 1e3 + 0.5);
    case IPU_REG_SMEM_SIZE_LO: return pair(b.streaming_memory_bytes, IPU_REG_SMEM_SIZE_HI);
    case IPU_REG_SMEM_SIZE_HI: return latched(offset, b.streaming_memory_bytes);
    case IPU_REG_HOST_LINK_MBPS: return uint32_t(b.host_link_bytes_per_second / 1e6 + 0.5);
    case IPU_REG_WORKERS: return b.chip.tile.workers;
    case IPU_REG_SYSTEM_IPUS: return config_.total_ipus();
    case IPU_REG_CTRL: return 0;
    case IPU_REG_STATUS: {
      uint32_t v = domain_.state << IPU_STATUS_STATE_SHIFT;
      if (channels_[0].has_work()) v |= IPU_STATUS_DMA0_BUSY_MASK;
      if (channels_[1].has_work()) v |= IPU_STATUS_DMA1_BUSY_MASK;
      return v;
    }
    case IPU_REG_RUN_SUPERSTEPS: return run_supersteps_;
    case IPU_REG_RUN_MAX_CYCLES_LO: return run_max_[0];
    case IPU_REG_RUN_MAX_CYCLES_HI: return run_max_[1];
    case IPU_REG_RUN_MAX_INSTRUCTIONS_LO: return run_max_[2];
    case IPU_REG_RUN_MAX_INSTRUCTIONS_HI: return run_max_[3];
    case IPU_REG_EXIT_CODE: return uint32_t(stats_.exit_code);
    case IPU_REG_CYCLES_LO: return pair(stats_.cycles, IPU_REG_CYCLES_HI);
    case IPU_REG_CYCLES_HI: return latched(offset, stats_.cycles);
    case IPU_REG_INSTRET_LO: return pair(stats_.instret, IPU_REG_INSTRET_HI);
    case IPU_REG_INSTRET_HI: return latched(offset, stats_.instret);
    case IPU_REG_SUPERSTEPS: return uint32_t(stats_.supersteps);
    case IPU_REG_EXCHANGE_BYTES_LO: return pair(stats_.exchange_bytes, IPU_REG_EXCHANGE_BYTES_HI);
    case IPU_REG_EXCHANGE_BYTES_HI: return latched(offset, stats_.exchange_bytes);
    case IPU_REG_BOOTED_TILES: return stats_.booted;
    case IPU_REG_SIM_TIME_NS_LO: return pair(sim_ns, IPU_REG_SIM_TIME_NS_HI);
    case IPU_REG_SIM_TIME_NS_HI: return latched(offset, sim_ns);
    case IPU_REG_BOOT_IPU: return boot_regs_[0];
    case IPU_REG_BOOT_TILE_FIRST: return boot_regs_[1];
    case IPU_REG_BOOT_TILE_COUNT: return boot_regs_[2];
    case IPU_REG_BOOT_ENTRY: return boot_regs_[3];
    case IPU_REG_BOOT_CODE_BASE: return boot_regs_[4];
    case IPU_REG_BOOT_CODE_SIZE: return boot_regs_[5];
    case IPU_REG_BOOT_CMD: return 0;
    case IPU_REG_IRQ_STATUS: return irq_status_;
    case IPU_REG_IRQ_MASK: return irq_mask_;
    case IPU_REG_STREAM_WAIT_ID: return stream_wait_.stream;
    case IPU_REG_STREAM_WAIT_BYTES: return stream_wait_.bytes;
    case IPU_REG_STREAM_WAIT_DIR: return stream_wait_.d2h ? IPU_STREAM_WAIT_DIR_D2H_MASK : 0;
    case IPU_REG_STREAM_FIFO_BYTES: return streams_ ? fifo_bytes_ : 0;
    // The first error's problem record, field by field (docs/host_if.md, "Errors").
    case IPU_REG_ERR_CODE: return uint32_t(error_.code);
    case IPU_REG_ERR_IPU: return error_.ipu;
    case IPU_REG_ERR_TILE: return error_.tile;
    case IPU_REG_ERR_THREAD: return error_.thread;
    case IPU_REG_ERR_PC: return error_.pc;
    case IPU_REG_ERR_ADDR_LO: return pair(error_.address.value_or(0), IPU_REG_ERR_ADDR_HI);
    case IPU_REG_ERR_ADDR_HI: return latched(offset, error_.address.value_or(0));
    case IPU_REG_ERR_COUNT: return error_count_;
    case IPU_REG_ERR_CYCLE_LO: return pair(error_.cycle.value_or(0), IPU_REG_ERR_CYCLE_HI);
    case IPU_REG_ERR_CYCLE_HI: return latched(offset, error_.cycle.value_or(0));
    case IPU_REG_ERR_PEER_IPU: return error_.peer ? error_.peer->ipu : Problem::kNone;
    case IPU_REG_ERR_PEER_TILE: return error_.peer ? error_.peer->tile : Problem::kNone;
    case IPU_REG_ERR_PEER_PC: return error_.peer ? error_.peer->pc : Problem::kNone;
    case IPU_REG_ERR_SUPERSTEP:
      return error_.superstep ? uint32_t(std::min<uint64_t>(*error_.superstep, Problem::kNone - 1)) : Problem::kNone;
    case IPU_REG_ERR_WAITING: return uint32_t(error_.waiters.size());
    case IPU_REG_ERR_ABSENT_COUNT: return uint32_t(error_.absent.size());
    default: break;
  }
  for (unsigned ch = 0; ch < 2; ++ch) {
    const uint32_t base = ch == 0 ? IPU_REG_DMA0_RING_LO : IPU_REG_DMA1_RING_LO;
    const Channel& c = channels_[ch];
    if (offset == base + (IPU_REG_DMA0_RING_LO - IPU_REG_DMA0_RING_LO)) return c.ring_lo;
    if (offset == base + (IPU_REG_DMA0_RING_HI - IPU_REG_DMA0_RING_LO)) return c.ring_hi;
    if (offset == base + (IPU_REG_DMA0_RING_SIZE - IPU_REG_DMA0_RING_LO)) return c.size;
    if (offset == base + (IPU_REG_DMA0_HEAD - IPU_REG_DMA0_RING_LO)) return c.head;
    if (offset == base + (IPU_REG_DMA0_TAIL - IPU_REG_DMA0_RING_LO)) return c.tail;
    if (offset == base + (IPU_REG_DMA0_STATUS - IPU_REG_DMA0_RING_LO)) return c.halted ? IPU_DMA0_STATUS_HALTED_MASK : 0;
  }
  if (offset >= IPU_WIN_ERR_TEXT && offset < IPU_WIN_ERR_TEXT + IPU_WIN_ERR_TEXT_BYTES)
    return text_word(error_text_, offset - IPU_WIN_ERR_TEXT, IPU_WIN_ERR_TEXT_BYTES);
  if (offset >= IPU_WIN_ERR_KIND && offset < IPU_WIN_ERR_KIND + IPU_WIN_ERR_KIND_BYTES)
    return text_word(error_.kind, offset - IPU_WIN_ERR_KIND, IPU_WIN_ERR_KIND_BYTES);
  if (offset >= IPU_WIN_ERR_ABSENT && offset < IPU_WIN_ERR_ABSENT + IPU_WIN_ERR_ABSENT_BYTES) {
    const size_t i = (offset - IPU_WIN_ERR_ABSENT) / 4;
    if (i >= error_.absent.size()) return 0;
    return error_.absent[i].ipu << 16 | (error_.absent[i].tile & 0xFFFF);
  }
  if (offset >= IPU_WIN_STREAM_H2D_LEVEL && offset < IPU_WIN_STREAM_H2D_LEVEL + IPU_WIN_STREAM_H2D_LEVEL_BYTES)
    return h2d_level_[(offset - IPU_WIN_STREAM_H2D_LEVEL) / 4];
  if (offset >= IPU_WIN_STREAM_D2H_LEVEL && offset < IPU_WIN_STREAM_D2H_LEVEL + IPU_WIN_STREAM_D2H_LEVEL_BYTES)
    return d2h_level_[(offset - IPU_WIN_STREAM_D2H_LEVEL) / 4];
  reg_error_locked(offset, "read of an offset where no register is");
  return 0xFFFFFFFFu;
}

void HostInterface::write32(uint32_t offset, uint32_t value) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (offset % 4 != 0 || offset >= IPU_BAR0_BYTES) {
    reg_error_locked(offset, fmt::format("write of 0x{:08x} to an offset outside BAR0 or not 4-aligned", value));
    return;
  }
  write_locked(offset, value);
}

void HostInterface::write_locked(uint32_t offset, uint32_t value) {
  switch (offset) {
    case IPU_REG_CTRL: ctrl_locked(value); return;
    case IPU_REG_RUN_SUPERSTEPS: run_supersteps_ = value; return;
    case IPU_REG_RUN_MAX_CYCLES_LO: run_max_[0] = value; return;
    case IPU_REG_RUN_MAX_CYCLES_HI: run_max_[1] = value; return;
    case IPU_REG_RUN_MAX_INSTRUCTIONS_LO: run_max_[2] = value; return;
    case IPU_REG_RUN_MAX_INSTRUCTIONS_HI: run_max_[3] = value; return;
    case IPU_REG_BOOT_IPU: boot_regs_[0] = value; return;
    case IPU_REG_BOOT_TILE_FIRST: boot_regs_[1] = value; return;
    case IPU_REG_BOOT_TILE_COUNT: boot_regs_[2] = value; return;
    case IPU_REG_BOOT_ENTRY: boot_regs_[3] = value; return;
    case IPU_REG_BOOT_CODE_BASE: boot_regs_[4] = value; return;
    case IPU_REG_BOOT_CODE_SIZE: boot_regs_[5] = value; return;
    case IPU_REG_BOOT_CMD: boot_cmd_locked(value); return;
    case IPU_REG_IRQ_STATUS: irq_status_ &= ~value; return;
    case IPU_REG_IRQ_MASK: irq_mask_ = value; return;
    default: break;
  }
  for (unsigned ch = 0; ch < 2; ++ch) {
    const uint32_t base = ch == 0 ? IPU_REG_DMA0_RING_LO : IPU_REG_DMA1_RING_LO;
    Channel& c = channels_[ch];
    if (offset == base + (IPU_REG_DMA0_RING_LO - IPU_REG_DMA0_RING_LO)) {
      c.ring_lo = value;
      return;
    }
    if (offset == base + (IPU_REG_DMA0_RING_HI - IPU_REG_DMA0_RING_LO)) {
      c.ring_hi = value;
      return;
    }
    if (offset == base + (IPU_REG_DMA0_RING_SIZE - IPU_REG_DMA0_RING_LO)) {
      const uint64_t ring = uint64_t(c.ring_hi) << 32 | c.ring_lo;
      if (!is_power_of_2(value) || value > IPU_DMA_RING_MAX) {
        reg_error_locked(offset, fmt::format("DMA{}_RING_SIZE = {}: not a power of 2 in 1..{}", ch, value, IPU_DMA_RING_MAX));
        return;
      }
      if (ring % 64 != 0) {
        reg_error_locked(offset, fmt::format("DMA{}_RING = 0x{:x}: not 64-byte aligned", ch, ring));
        return;
      }
      c.ring = ring;
      c.size = value;
      c.head = c.tail = 0;
      c.halted = false;
      ++c.generation;
      return;
    }
    if (offset == base + (IPU_REG_DMA0_TAIL - IPU_REG_DMA0_RING_LO)) {
      if (c.size == 0) {
        reg_error_locked(offset, fmt::format("DMA{}_TAIL written before DMA{}_RING_SIZE", ch, ch));
        return;
      }
      if (value - c.head > c.size) {
        reg_error_locked(offset, fmt::format("DMA{}_TAIL = {}: more than RING_SIZE ({}) descriptors past HEAD ({})", ch,
                                             value, c.size, c.head));
        return;
      }
      c.tail = value;
      Command kick{Command::Kind::Kick, ch};
      kick.doorbell = Doorbell{c.generation, c.ring, c.size, value};
      command_locked(kick);
      return;
    }
  }
  reg_error_locked(offset, fmt::format("write of 0x{:08x} to a read-only register or an offset where no register is", value));
}

// CTRL acts on the whole run domain (run_domain.cpp): a RESET resets every board, a RUN
// joins the run the last board's RUN starts, an ABORT ends it everywhere.
void HostInterface::ctrl_locked(uint32_t value) {
  if (value == IPU_CTRL_RESET_MASK) {
    domain_.reset_locked();
    return;
  }
  if (value == IPU_CTRL_RUN_MASK) {
    domain_.run_locked(board_, run_supersteps_,
                       {.max_cycles = uint64_t(run_max_[1]) << 32 | run_max_[0],
                        .max_instructions = uint64_t(run_max_[3]) << 32 | run_max_[2]});
    return;
  }
  if (value == IPU_CTRL_ABORT_MASK) {
    domain_.abort_locked(board_);
    return;
  }
  reg_error_locked(IPU_REG_CTRL, fmt::format("CTRL = 0x{:08x}: write exactly one of RESET, RUN, ABORT", value));
}

// Visible at once; the model drops its updates of the epoch before (RunDomain::reset_locked).
void HostInterface::reset_mirror_locked() {
    stats_ = platform::BoardStats{};
    supersteps_.clear();
    error_ = Error{};
    error_text_.clear();
    error_count_ = 0;
    irq_status_ = 0;
    h2d_level_ = {};
    d2h_level_ = {};
    stream_wait_ = {};
    latched_hi_.clear();
    for (Channel& c : channels_) {
      c.head = c.tail = 0;
      c.halted = false;
      ++c.generation;
    }
}

void HostInterface::boot_cmd_locked(uint32_t value) {
  if (value != IPU_BOOT_CMD_GO_MASK) {
    reg_error_locked(IPU_REG_BOOT_CMD, fmt::format("BOOT_CMD = 0x{:08x}: write 1 to boot", value));
    return;
  }
  const auto& [ipu, first, count, entry, base, size] = boot_regs_;
  const config::ChipConfig& chip = config_.board.chip;
  const uint64_t sram_end = uint64_t(iss::kSramBase) + chip.tile.sram_bytes;
  Error e;
  e.code = ProblemCode::Boot;
  if (domain_.state != IPU_STATE_IDLE && domain_.state != IPU_STATE_READY) {
    e.code = ProblemCode::State;
    e.detail = fmt::format("BOOT_CMD in state {}: boot needs IDLE or READY (RESET first)", domain_.state);
  } else if (ipu >= config_.board.ipus) {
    e.detail = fmt::format("BOOT_IPU {}: the board has IPUs 0..{}", ipu, config_.board.ipus - 1);
  } else if (count == 0 || first >= chip.tiles || count > chip.tiles - first) {
    e.detail = fmt::format("BOOT_TILE_FIRST {} + BOOT_TILE_COUNT {}: the IPU has tiles 0..{}", first, count, chip.tiles - 1);
  } else if (size == 0 || size % 4 != 0 || base % 4 != 0 || base < iss::kSramBase || uint64_t(base) + size > sram_end) {
    e.detail = fmt::format("code range 0x{:08x} + {} bytes: not 4-aligned, empty, or outside SRAM 0x{:08x}..0x{:08x}", base,
                         size, iss::kSramBase, sram_end);
  } else if (entry % 4 != 0 || entry < base || entry - base >= size) {
    e.detail = fmt::format("BOOT_ENTRY 0x{:08x} is not a 4-aligned address in the code range 0x{:08x}..0x{:08x}", entry, base,
                         uint64_t(base) + size);
  } else {
    domain_.state = IPU_STATE_READY;  // every board's: the run will start them all
    Command c{Command::Kind::Boot};
    c.boot = boot_regs_;
    command_locked(c);
    return;
  }
  if (e.code == ProblemCode::Boot) {
    e.ipu = ipu < config_.board.ipus ? first_ipu_ + ipu : ipu;  // the system's number when there is one
    e.tile = first;
    e.address = base;
  }
  if (record_locked(e)) command_locked(Command{Command::Kind::Irq, IPU_IRQ_STATUS_ERROR_MASK});
}

void HostInterface::command_locked(Command c) {
  c.board = board_;
  domain_.queue(std::move(c));
}

bool HostInterface::record_locked(const Error& e, const std::string& text) {
  ++error_count_;
  if (error_.code != ProblemCode::None) return false;
  error_ = e;
  // Rendered once, to fit the window with its NUL: lists are summarised, not cut.
  error_text_ = text.empty() ? to_text(error_, IPU_ERR_TEXT_BYTES - 1) : text;
  return true;
}

void HostInterface::reg_error_locked(uint32_t offset, const std::string& what) {
  Error e;
  e.code = ProblemCode::Reg;
  e.address = offset;
  e.detail = fmt::format("BAR0 offset 0x{:03x}: {}", offset, what);
  if (record_locked(e)) command_locked(Command{Command::Kind::Irq, IPU_IRQ_STATUS_ERROR_MASK});
}

void HostInterface::map_host_memory(uint64_t bus_addr, std::span<std::byte> memory) { host_memory_.map(bus_addr, memory); }
void HostInterface::unmap_host_memory(uint64_t bus_addr) { host_memory_.unmap(bus_addr); }

void HostInterface::set_interrupt_handler(InterruptHandler handler) {
  std::lock_guard<std::mutex> lock(handler_mutex_);
  handler_ = std::move(handler);
}

void HostInterface::detach_host() {
  host_memory_.unmap_all();
  set_interrupt_handler({});
  // The next session starts from power-on settings: no interrupt enabled, no ring (the
  // old rings pointed into the old session's memory).
  std::lock_guard<std::mutex> lock(mutex_);
  irq_mask_ = 0;
  run_supersteps_ = 0;
  run_max_ = {};
  trace_path_.clear();
  domain_.set_link_faults_locked(platform_.initial_link_faults());  // the config's, for the next session
  boot_regs_ = {};
  for (Channel& c : channels_) {
    c = Channel{.generation = c.generation + 1};
  }
}

}  // namespace ipusim::host_if
