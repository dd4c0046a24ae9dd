// ipudrv::Device: opening a session on every board, reset, loading programs, tile and
// streaming-memory access routed to the board of the IPU. The run loop is in run.cpp.
#include <ipu/hostif_regs.h>
#include <ipu/xipu_isa.h>  // IPU_SRAM_BASE: where tile SRAM starts (hw/isa/xipu.yaml)

#include <chrono>
#include <cstring>
#include <thread>

#include "device_impl.h"

namespace ipudrv {
namespace {

constexpr uint32_t kAllIrqs = IPU_IRQ_STATUS_RUN_DONE_MASK | IPU_IRQ_STATUS_DMA0_MASK | IPU_IRQ_STATUS_DMA1_MASK |
                              IPU_IRQ_STATUS_ERROR_MASK | IPU_IRQ_STATUS_BOOT_DONE_MASK;

std::span<std::byte> mutable_bytes(std::span<const std::byte> s) {
  // Channel 0 only reads a request's bytes; DmaRequest has one span type for both ways.
  return {const_cast<std::byte*>(s.data()), s.size()};
}

}  // namespace

DeviceInfo DeviceImpl::read_info(std::span<const std::unique_ptr<detail::Transport>> boards, std::string locator) {
  if (boards.empty()) throw ProtocolError(locator + ": no boards");
  detail::Transport& t = *boards.front();
  const uint32_t id = t.read32(IPU_REG_ID);
  if (id != IPU_ID_MAGIC) {
    char buf[16];
    std::snprintf(buf, sizeof buf, "0x%08x", id);
    throw ProtocolError(t.describe() + ": ID register reads " + buf + ", not an ipusim board");
  }
  DeviceInfo i;
  i.locator = std::move(locator);
  i.in_process = t.in_process();
  const uint32_t v = t.read32(IPU_REG_VERSION);
  i.version_major = (v & IPU_VERSION_MAJOR_MASK) >> IPU_VERSION_MAJOR_SHIFT;
  i.version_minor = (v & IPU_VERSION_MINOR_MASK) >> IPU_VERSION_MINOR_SHIFT;
  if (i.version_major != IPU_VERSION_MAJOR)
    throw ProtocolError(t.describe() + ": register map version " + std::to_string(i.version_major) + "." +
                        std::to_string(i.version_minor) + ", this driver knows major " + std::to_string(IPU_VERSION_MAJOR));
  i.board_index = t.read32(IPU_REG_BOARD_INDEX);
  i.boards = uint32_t(boards.size());
  i.ipus_per_board = t.read32(IPU_REG_IPUS);
  i.ipus = i.ipus_per_board * i.boards;
  i.tiles_per_ipu = t.read32(IPU_REG_TILES_PER_IPU);
  i.sram_bytes = t.read32(IPU_REG_SRAM_BYTES);
  i.tile_clock_khz = t.read32(IPU_REG_TILE_CLOCK_KHZ);
  i.smem_bytes = detail::read64(t, IPU_REG_SMEM_SIZE_LO, IPU_REG_SMEM_SIZE_HI);
  i.host_link_mbps = t.read32(IPU_REG_HOST_LINK_MBPS);
  i.workers = t.read32(IPU_REG_WORKERS);
  i.system_ipus = t.read32(IPU_REG_SYSTEM_IPUS);
  i.stream_fifo_bytes = t.read32(IPU_REG_STREAM_FIFO_BYTES);
  i.has_streams = (t.read32(IPU_REG_CAPS) & IPU_CAPS_STREAMS_MASK) != 0;
  i.amp_f16_macs = t.read32(IPU_REG_AMP_F16_MACS);
  i.amp_f32_macs = t.read32(IPU_REG_AMP_F32_MACS);
  if (i.ipus_per_board == 0) throw ProtocolError(t.describe() + ": IPUS reads 0");
  for (uint32_t b = 0; b < i.boards; ++b)
    if (const uint32_t index = boards[b]->read32(IPU_REG_BOARD_INDEX); index != i.board_index + b)
      throw ProtocolError(boards[b]->describe() + ": board " + std::to_string(b) + " of the device says it is board " +
                          std::to_string(index));
  // The boards run as one (docs/host_if.md): a run starts when every board of the system
  // has written CTRL.RUN, so a device must hold them all.
  if (i.ipus != i.system_ipus)
    throw ProtocolError(i.locator + ": the device reaches " + std::to_string(i.boards) + " board(s) with " +
                        std::to_string(i.ipus) + " IPUs of a system of " + std::to_string(i.system_ipus) +
                        " IPUs; the boards of a system run as one device, so it needs every board");
  return i;
}

DeviceImpl::DeviceImpl(std::vector<std::unique_ptr<detail::Transport>> transports, std::string locator,
                       const OpenOptions& opts)
    : info(read_info(transports, std::move(locator))), options(opts) {
  for (auto& t : transports) boards.push_back(std::make_unique<BoardSession>(std::move(t), info.smem_bytes));
  open_console();
  // The trace covers every IPU of the system; the device takes the path set on board 0.
  if (!options.trace_path.empty()) boards.front()->t->set_trace_file(options.trace_path);  // first: nothing to undo
  for (auto& b : boards) {
    for (unsigned ch = 0; ch < IPU_DMA_CHANNELS; ++ch)
      b->dma.push_back(std::make_unique<detail::DmaChannel>(*b->t, irq, ch, options));
    if (options.use_interrupts) {
      b->t->set_interrupt_handler([this] { irq.fire(); });
      b->t->write32(IPU_REG_IRQ_MASK, kAllIrqs);
    } else {
      b->t->write32(IPU_REG_IRQ_MASK, 0);
    }
  }
  reset_locked();
}

DeviceImpl::~DeviceImpl() {
  for (auto& b : boards) {
    try {
      b->t->set_interrupt_handler({});
    } catch (...) {
    }
  }
  close_console();
  try {
    boards.front()->t->write32(IPU_REG_CTRL, IPU_CTRL_RESET_MASK);  // leave the system as we found it (every board)
  } catch (...) {
    // A dead link: nothing to reset.
  }
  for (auto& b : boards) {  // unmap rings, staging and tensor buffers before the transports go
    b->dma.clear();
    b->tensor_buffer.reset();
  }
}

ApiGate::Hold ApiGate::try_enter(const char* what) {
  if (!sem_.try_acquire())
    throw UsageError(std::string(what) + ": the device is busy (a run is in flight; wait for it or abort())");
  return Hold(this);
}

// A RESET written to one board resets every board of the system (the run domain's);
// each board's rings are programmed again (RESET cleared them).
void DeviceImpl::reset_locked() {
  boards.front()->t->write32(IPU_REG_CTRL, IPU_CTRL_RESET_MASK);
  for (auto& b : boards) {
    b->t->write32(IPU_REG_IRQ_STATUS, kAllIrqs);
    for (auto& ch : b->dma) ch->program();
    b->streams.clear();
  }
  loaded.clear();
}

BoardSession& DeviceImpl::board(uint32_t b) {
  if (b >= boards.size())
    throw UsageError("board " + std::to_string(b) + ": the device has " + std::to_string(boards.size()) + " board(s)");
  return *boards[b];
}

void DeviceImpl::check_tile(uint32_t ipu, uint32_t tile, uint32_t count) const {
  if (ipu >= info.ipus) throw UsageError("ipu " + std::to_string(ipu) + ": the device has " + std::to_string(info.ipus) + " IPUs");
  if (count == 0) throw UsageError("tile range of 0 tiles");
  if (tile >= info.tiles_per_ipu || count > info.tiles_per_ipu - tile)
    throw UsageError("tiles " + std::to_string(tile) + ".." + std::to_string(uint64_t(tile) + count - 1) + " of ipu " +
                     std::to_string(ipu) + ": each IPU has " + std::to_string(info.tiles_per_ipu) + " tiles");
}

const Elf* DeviceImpl::find_program(uint32_t ipu, uint32_t tile) const {
  for (const auto& [r, elf] : loaded)
    if (r.ipu == ipu && tile >= r.tile_first && tile - r.tile_first < r.tile_count) return &elf;
  return nullptr;
}

const Elf& DeviceImpl::program_on(uint32_t ipu, uint32_t tile) const {
  if (const Elf* elf = find_program(ipu, tile)) return *elf;
  throw UsageError("ipu " + std::to_string(ipu) + " tile " + std::to_string(tile) + ": no program loaded there");
}

void DeviceImpl::load_locked(const std::map<TileRange, Elf>& programs) {
  if (programs.empty()) throw UsageError("load: no programs");
  const TileRange* prev = nullptr;
  for (const auto& [r, elf] : programs) {
    check_tile(r.ipu, r.tile_first, r.tile_count);
    if (prev && prev->ipu == r.ipu && prev->tile_first + prev->tile_count > r.tile_first)
      throw UsageError("load: tile ranges overlap on ipu " + std::to_string(r.ipu) + " at tile " + std::to_string(r.tile_first));
    prev = &r;
    if (elf.image_end() > IPU_SRAM_BASE + uint64_t(info.sram_bytes)) {
      char base[16];
      std::snprintf(base, sizeof base, "0x%x", unsigned(IPU_SRAM_BASE));
      throw ProgramError(elf.name() + ": image ends at " + std::to_string(elf.image_end()) + ", beyond the " +
                         std::to_string(info.sram_bytes) + " bytes of tile SRAM from " + base);
    }
  }
  reset_locked();
  std::vector<uint32_t> booted(boards.size(), 0);  // tiles each board has booted
  for (const auto& [r, elf] : programs) {
    const uint32_t b = r.ipu / info.ipus_per_board;
    BoardSession& board = *boards[b];
    std::vector<detail::DmaRequest> reqs;
    for (const auto& s : elf.segments()) {
      detail::DmaRequest q;
      q.target = IPU_DMA_TARGET_TILE;
      q.dev_addr = s.vaddr;
      q.ipu = local(r.ipu);
      q.tile_first = r.tile_first;
      q.tile_count = r.tile_count;
      q.host = mutable_bytes(std::as_bytes(std::span(s.bytes)));
      q.zeros = s.mem_bytes > s.bytes.size() ? s.mem_bytes - s.bytes.size() : 0;
      if (q.host.size() + q.zeros > 0) reqs.push_back(q);
    }
    board.dma[0]->transfer(reqs);
    detail::Transport& t = *board.t;
    t.write32(IPU_REG_BOOT_IPU, local(r.ipu));
    t.write32(IPU_REG_BOOT_TILE_FIRST, r.tile_first);
    t.write32(IPU_REG_BOOT_TILE_COUNT, r.tile_count);
    t.write32(IPU_REG_BOOT_ENTRY, elf.entry());
    t.write32(IPU_REG_BOOT_CODE_BASE, elf.code_base());
    t.write32(IPU_REG_BOOT_CODE_SIZE, elf.code_size());
    t.write32(IPU_REG_BOOT_CMD, IPU_BOOT_CMD_GO_MASK);
    booted[b] += r.tile_count;
    // BOOT_CMD takes effect when the model next can: wait until the tiles count as
    // booted (the device raises BOOT_DONE) or the boot is refused (ERROR). The generation
    // is taken before the registers are read, so an interrupt between the two is not lost.
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    const detail::PollPolicy poll{options.use_interrupts};
    for (int round = 0;; ++round) {
      const uint64_t gen = irq.generation();
      if (t.read32(IPU_REG_ERR_CODE) != IPU_ERR_NONE) {
        const DeviceErrorInfo e = detail::read_error_registers(t);
        loaded.clear();
        throw_device_error("load " + elf.name() + " on ipu " + std::to_string(r.ipu) + " tiles " +
                               std::to_string(r.tile_first) + "+" + std::to_string(r.tile_count) + ": ",
                           e);
      }
      if (t.read32(IPU_REG_BOOTED_TILES) >= booted[b]) break;
      if (std::chrono::steady_clock::now() > deadline) throw TimeoutError("load: the device did not boot within 60 s");
      irq.wait(gen, poll.next(round));
    }
    loaded.emplace(r, elf);
  }
}

DeviceErrorInfo DeviceImpl::read_errors() {
  DeviceErrorInfo e;
  bool found = false;
  for (auto& b : boards)
    if (!found && b->t->read32(IPU_REG_ERR_CODE) != IPU_ERR_NONE) {
      e = detail::read_error_registers(*b->t);
      found = true;
    }
  if (!found) e = detail::read_error_registers(*boards.front()->t);
  locate(e);
  return e;
}

// The device boots images, so it names pcs only; the driver has the ELFs it loaded and
// names their functions and lines (docs/debugging.md).
void DeviceImpl::locate(DeviceErrorInfo& e) const {
  if (e.pc != DeviceErrorInfo::kNone)
    if (const Elf* elf = find_program(e.ipu, e.tile)) {
      const Elf::Location at = elf->locate(e.pc);
      e.function = at.function;
      e.source = at.source;
    }
  if (e.peer_pc != DeviceErrorInfo::kNone)
    if (const Elf* elf = find_program(e.peer_ipu, e.peer_tile)) {
      const Elf::Location at = elf->locate(e.peer_pc);
      e.peer_function = at.function;
      e.peer_source = at.source;
    }
}

// ---- Device --------------------------------------------------------------------------

Device::Device(std::unique_ptr<DeviceImpl> impl) : impl_(std::move(impl)) {}

Device::~Device() {
  if (impl_ && impl_->running) {
    try {
      impl_->boards.front()->t->write32(IPU_REG_CTRL, IPU_CTRL_ABORT_MASK);  // every board's run
    } catch (...) {
    }
  }
  if (!impl_) return;
  impl_->gate.enter();  // waits for a run_async thread to let go
  if (impl_->async_run.joinable()) impl_->async_run.join();
}

const DeviceInfo& Device::info() const { return impl_->info; }

void Device::reset() {
  auto lock = impl_->lock_api("reset");
  impl_->reset_locked();
}

void Device::load(const Elf& elf) {
  std::map<TileRange, Elf> all;
  for (uint32_t ipu = 0; ipu < impl_->info.ipus; ++ipu) all.emplace(TileRange{ipu, 0, impl_->info.tiles_per_ipu}, elf);
  load(all);
}

void Device::load(const std::map<TileRange, Elf>& programs) {
  auto lock = impl_->lock_api("load");
  impl_->load_locked(programs);
}

void Device::write_tile(uint32_t ipu, uint32_t tile, uint32_t addr, std::span<const std::byte> data) {
  write_tiles({ipu, tile, 1}, addr, data);
}

void Device::write_tiles(const TileRange& tiles, uint32_t addr, std::span<const std::byte> data) {
  auto lock = impl_->lock_api("write_tiles");
  impl_->check_tile(tiles.ipu, tiles.tile_first, tiles.tile_count);
  if (data.empty()) return;
  detail::DmaRequest q;
  q.target = IPU_DMA_TARGET_TILE;
  q.dev_addr = addr;
  q.ipu = impl_->local(tiles.ipu);
  q.tile_first = tiles.tile_first;
  q.tile_count = tiles.tile_count;
  q.host = mutable_bytes(data);
  impl_->dma_to_device(impl_->board_of(tiles.ipu), q);
}

void Device::read_tile(uint32_t ipu, uint32_t tile, uint32_t addr, std::span<std::byte> out) {
  auto lock = impl_->lock_api("read_tile");
  impl_->check_tile(ipu, tile);
  if (out.empty()) return;
  detail::DmaRequest q;
  q.target = IPU_DMA_TARGET_TILE;
  q.dev_addr = addr;
  q.ipu = impl_->local(ipu);
  q.tile_first = tile;
  q.tile_count = 1;
  q.host = out;
  impl_->dma_from_device(impl_->board_of(ipu), q);
}

namespace {
// The symbol's address on that tile; throws UsageError when it is not there, or when `bytes`
// is more than its size (a symbol of size 0, a label, is not checked: it spans what the
// caller says).
uint32_t symbol_range(const DeviceImpl& impl, const char* what, uint32_t ipu, uint32_t tile, const std::string& symbol,
                      std::optional<size_t> bytes) {
  const Elf& elf = impl.program_on(ipu, tile);
  const auto where = [&] { return " (ipu " + std::to_string(ipu) + " tile " + std::to_string(tile) + ")"; };
  const auto addr = elf.symbol(symbol);
  if (!addr) throw UsageError(std::string(what) + ": symbol '" + symbol + "' is not in " + elf.name() + where());
  const uint32_t size = elf.symbol_size(symbol).value_or(0);
  if (bytes && size != 0 && *bytes > size)
    throw UsageError(std::string(what) + ": '" + symbol + "' is " + std::to_string(size) + " bytes" + where() + ", " +
                     std::to_string(*bytes) + " given");
  return *addr;
}
}  // namespace

uint32_t Device::symbol_address(uint32_t ipu, uint32_t tile, const std::string& symbol) const {
  auto lock = impl_->lock_api("symbol_address");
  return symbol_range(*impl_, "symbol_address", ipu, tile, symbol, std::nullopt);
}

void Device::write_symbol(uint32_t ipu, uint32_t tile, const std::string& symbol, std::span<const std::byte> data) {
  uint32_t addr = 0;
  {
    auto lock = impl_->lock_api("write_symbol");
    addr = symbol_range(*impl_, "write_symbol", ipu, tile, symbol, data.size());
  }
  write_tile(ipu, tile, addr, data);
}

void Device::read_symbol(uint32_t ipu, uint32_t tile, const std::string& symbol, std::span<std::byte> out) {
  uint32_t addr = 0;
  {
    auto lock = impl_->lock_api("read_symbol");
    addr = symbol_range(*impl_, "read_symbol", ipu, tile, symbol, out.size());
  }
  read_tile(ipu, tile, addr, out);
}

SmemBuffer Device::alloc_smem(uint64_t bytes, uint64_t align, uint32_t board) {
  auto lock = impl_->lock_api("alloc_smem");
  return {impl_->board(board).smem.allocate(bytes, align), bytes, board};
}

void Device::free_smem(const SmemBuffer& buffer) {
  auto lock = impl_->lock_api("free_smem");
  impl_->board(buffer.board).smem.release(buffer.offset, buffer.bytes);
}

void Device::write_smem(uint64_t offset, std::span<const std::byte> data) { write_smem(0, offset, data); }
void Device::read_smem(uint64_t offset, std::span<std::byte> out) { read_smem(0, offset, out); }

void Device::write_smem(uint32_t board, uint64_t offset, std::span<const std::byte> data) {
  auto lock = impl_->lock_api("write_smem");
  BoardSession& b = impl_->board(board);
  if (data.empty()) return;
  detail::DmaRequest q;
  q.target = IPU_DMA_TARGET_SMEM;
  q.dev_addr = offset;
  q.host = mutable_bytes(data);
  impl_->dma_to_device(b, q);
}

void Device::read_smem(uint32_t board, uint64_t offset, std::span<std::byte> out) {
  auto lock = impl_->lock_api("read_smem");
  BoardSession& b = impl_->board(board);
  if (out.empty()) return;
  detail::DmaRequest q;
  q.target = IPU_DMA_TARGET_SMEM;
  q.dev_addr = offset;
  q.host = out;
  impl_->dma_from_device(b, q);
}

void Device::connect_h2d_stream(uint32_t id, std::span<const std::byte> source) { connect_h2d_stream(0, id, source); }
void Device::connect_h2d_stream(uint32_t id, StreamFill fill) { connect_h2d_stream(0, id, std::move(fill)); }
void Device::connect_d2h_stream(uint32_t id, std::span<std::byte> sink) { connect_d2h_stream(0, id, sink); }
void Device::connect_d2h_stream(uint32_t id, StreamDrain drain) { connect_d2h_stream(0, id, std::move(drain)); }
void Device::disconnect_stream(uint32_t id) { disconnect_stream(0, id); }
size_t Device::d2h_stream_bytes(uint32_t id) const { return d2h_stream_bytes(0, id); }

void Device::connect_h2d_stream(uint32_t board, uint32_t id, std::span<const std::byte> source) {
  auto lock = impl_->lock_api("connect_h2d_stream");
  impl_->board(board).streams.connect_h2d(id, source);
}
void Device::connect_h2d_stream(uint32_t board, uint32_t id, StreamFill fill) {
  auto lock = impl_->lock_api("connect_h2d_stream");
  impl_->board(board).streams.connect_h2d(id, std::move(fill));
}
void Device::connect_d2h_stream(uint32_t board, uint32_t id, std::span<std::byte> sink) {
  auto lock = impl_->lock_api("connect_d2h_stream");
  impl_->board(board).streams.connect_d2h(id, sink);
}
void Device::connect_d2h_stream(uint32_t board, uint32_t id, StreamDrain drain) {
  auto lock = impl_->lock_api("connect_d2h_stream");
  impl_->board(board).streams.connect_d2h(id, std::move(drain));
}
void Device::disconnect_stream(uint32_t board, uint32_t id) {
  auto lock = impl_->lock_api("disconnect_stream");
  impl_->board(board).streams.disconnect(id);
}
size_t Device::d2h_stream_bytes(uint32_t board, uint32_t id) const {
  auto lock = impl_->lock_api("d2h_stream_bytes");
  return impl_->board(board).streams.d2h_received(id);
}

DeviceErrorInfo Device::error_registers() { return impl_->read_errors(); }
uint32_t Device::read_register(uint32_t offset) { return read_register(0, offset); }
void Device::write_register(uint32_t offset, uint32_t value) { write_register(0, offset, value); }
// An offset past BAR0 is refused here, before the transport: the socket's decoder refuses
// it too, so both transports answer alike (one inside BAR0 is the device's to judge).
static void check_bar0_offset(const char* what, uint32_t offset) {
  if (offset >= IPU_BAR0_BYTES)
    throw UsageError(std::string(what) + ": offset " + std::to_string(offset) + " is outside BAR0 (" +
                     std::to_string(IPU_BAR0_BYTES) + " bytes)");
}
uint32_t Device::read_register(uint32_t board, uint32_t offset) {
  check_bar0_offset("read_register", offset);
  return impl_->board(board).t->read32(offset);
}
void Device::write_register(uint32_t board, uint32_t offset, uint32_t value) {
  check_bar0_offset("write_register", offset);
  impl_->board(board).t->write32(offset, value);
}

}  // namespace ipudrv
