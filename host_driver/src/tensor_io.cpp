// Device::write_tensor / read_tensor / write_per_tile / dma_stats: a tensor plan
// (tensor_plan.h) packed tile-major into each board's tensor buffer (device-reachable
// host memory) — or, in process, when the caller's bytes already lie in that order, the
// caller's memory itself mapped for the transfer — and moved by one descriptor per run
// of consecutive tiles of an IPU with equal blocks at one address: a per-tile scatter /
// gather (DESC_FLAG_PER_TILE), or a broadcast for a replicated tensor
// (docs/host_driver.md, "Tensors").
#include <ipu/hostif_regs.h>

#include <cstring>
#include <optional>

#include "device_impl.h"
#include "tensor_plan.h"

namespace ipudrv {
namespace {

// A block placed: its tile's board and address, and where its bytes sit in the board's
// buffer.
struct Placed {
  const detail::TileBlock* block;
  uint32_t addr = 0;
  uint64_t at = 0;  // offset in the board's tensor buffer
};

struct BoardWork {
  std::vector<Placed> blocks;  // the board's non-empty blocks, in the mapping's order
  uint64_t buffer_bytes = 0;
};

// The blocks of each board, with their addresses resolved (symbols per tile).
std::vector<BoardWork> place(DeviceImpl& impl, const TensorLayout& layout, const detail::TensorPlan& plan,
                             const char* what) {
  std::vector<BoardWork> work(impl.boards.size());
  const Elf* last_elf = nullptr;  // one symbol lookup per program, not per tile
  uint32_t last_addr = 0, last_size = 0;
  for (const detail::TileBlock& b : plan.blocks) {
    if (b.bytes() == 0) continue;
    uint32_t addr = layout.location.address;
    if (!layout.location.symbol_name.empty()) {
      const std::string& sym = layout.location.symbol_name;
      const Elf* elf = impl.find_program(b.tile.ipu, b.tile.tile);
      const auto where = [&] { return " (ipu " + std::to_string(b.tile.ipu) + " tile " + std::to_string(b.tile.tile) + ")"; };
      if (!elf) throw UsageError(std::string(what) + ": no program loaded" + where() + " to hold '" + sym + "'");
      if (elf != last_elf) {
        const auto a = elf->symbol(sym);
        if (!a) throw UsageError(std::string(what) + ": symbol '" + sym + "' is not in " + elf->name() + where());
        last_elf = elf, last_addr = *a, last_size = elf->symbol_size(sym).value_or(0);
      }
      if (last_size != 0 && b.bytes() > last_size)
        throw UsageError(std::string(what) + ": '" + sym + "' is " + std::to_string(last_size) + " bytes" + where() +
                         ", its block is " + std::to_string(b.bytes()));
      addr = last_addr;
    }
    if (b.bytes() > UINT32_MAX)
      throw UsageError(std::string(what) + ": a block of " + std::to_string(b.bytes()) + " bytes does not fit a tile");
    BoardWork& w = work[b.tile.ipu / impl.info.ipus_per_board];
    // A replicated tensor sits in the buffer once; every block points at it.
    const uint64_t at = plan.replicated ? 0 : w.buffer_bytes;
    w.blocks.push_back({&b, addr, at});
    w.buffer_bytes = plan.replicated ? b.bytes() : w.buffer_bytes + b.bytes();
  }
  return work;
}

// One request per run of consecutive tiles of an IPU with equal blocks at one address
// whose bytes follow each other in the buffer (or, replicated, share them).
std::vector<detail::DmaRequest> requests(DeviceImpl& impl, detail::HostMemory& mem, const BoardWork& w, bool replicated) {
  std::vector<detail::DmaRequest> out;
  std::byte* base = mem.bytes().data();
  // A board of register map 1.3 or older has no DESC_FLAG_PER_TILE: a descriptor per tile.
  const bool scatter = impl.info.version_minor >= 4;
  for (size_t i = 0; i < w.blocks.size();) {
    const Placed& first = w.blocks[i];
    const uint64_t bytes = first.block->bytes();
    size_t j = i + 1;
    while (j < w.blocks.size()) {
      const Placed& p = w.blocks[j];
      const TileId &t = p.block->tile, &prev = w.blocks[j - 1].block->tile;
      if (t.ipu != prev.ipu || t.tile != prev.tile + 1 || p.addr != first.addr || p.block->bytes() != bytes) break;
      if (!replicated && (!scatter || p.at != first.at + (j - i) * bytes)) break;
      ++j;
    }
    detail::DmaRequest q;
    q.target = IPU_DMA_TARGET_TILE;
    q.dev_addr = first.addr;
    q.ipu = impl.local(first.block->tile.ipu);
    q.tile_first = first.block->tile.tile;
    q.tile_count = uint32_t(j - i);
    q.per_tile = !replicated && q.tile_count > 1;
    q.host = {base + first.at, replicated ? bytes : bytes * (j - i)};
    q.mapped = &mem;
    out.push_back(q);
    i = j;
  }
  return out;
}

detail::HostMemory& buffer(BoardSession& board, uint64_t bytes) {
  if (!board.tensor_buffer || board.tensor_buffer->bytes().size() < bytes) {
    board.tensor_buffer.reset();  // the old mapping goes first: the two are never both held
    board.tensor_buffer = board.t->alloc_host_memory(size_t(bytes));
  }
  return *board.tensor_buffer;
}

// Where the board's packed bytes already lie in the caller's row-major tensor, in packed
// order (blocked rows, a 2-D grid of one column, pieces in order, a replicated tensor):
// their offset in it; else none.
std::optional<uint64_t> in_order(const BoardWork& w, bool replicated) {
  if (replicated) return 0;
  const uint64_t start = w.blocks.front().block->src;
  for (const Placed& p : w.blocks) {
    const detail::TileBlock& b = *p.block;
    if (b.src != start + p.at || (b.runs > 1 && b.stride != b.run_bytes)) return std::nullopt;
  }
  return start;
}

// The caller's own bytes mapped for the device when the transport can (in process) and
// they are in packed order: no packing copy. Else null.
std::unique_ptr<detail::HostMemory> caller_memory(BoardSession& board, const BoardWork& w, bool replicated,
                                                  std::byte* tensor) {
  const std::optional<uint64_t> start = in_order(w, replicated);
  return start ? board.t->map_caller_memory({tensor + *start, size_t(w.buffer_bytes)}) : nullptr;
}

// Copies block `b` between the row-major tensor and its packed form.
void pack(const detail::TileBlock& b, const std::byte* tensor, std::byte* packed) {
  for (uint64_t r = 0; r < b.runs; ++r) std::memcpy(packed + r * b.run_bytes, tensor + b.src + r * b.stride, b.run_bytes);
}
void unpack(const detail::TileBlock& b, const std::byte* packed, std::byte* tensor) {
  for (uint64_t r = 0; r < b.runs; ++r) std::memcpy(tensor + b.src + r * b.stride, packed + r * b.run_bytes, b.run_bytes);
}

void check_size(const TensorLayout& layout, size_t given, const char* what) {
  std::string shape;
  for (uint64_t d : layout.shape) shape += (shape.empty() ? "" : ", ") + std::to_string(d);
  if (given != layout.bytes())
    throw UsageError(std::string(what) + ": a " + dtype_name(layout.dtype) + " tensor of shape [" + shape + "] is " +
                     std::to_string(layout.bytes()) + " bytes, " + std::to_string(given) + " given");
}

}  // namespace

void Device::write_tensor(const TensorLayout& layout, std::span<const std::byte> data) {
  auto lock = impl_->lock_api("write_tensor");
  const detail::TensorPlan plan = detail::plan_tensor(layout, impl_->info, "write_tensor");
  check_size(layout, data.size(), "write_tensor");
  std::vector<BoardWork> work = place(*impl_, layout, plan, "write_tensor");
  for (size_t b = 0; b < work.size(); ++b) {
    if (work[b].blocks.empty()) continue;
    BoardSession& board = *impl_->boards[b];
    // Channel 0 only reads the caller's bytes.
    const auto caller = caller_memory(board, work[b], plan.replicated, const_cast<std::byte*>(data.data()));
    detail::HostMemory& mem = caller ? *caller : buffer(board, work[b].buffer_bytes);
    if (!caller) {
      std::byte* buf = mem.bytes().data();
      if (plan.replicated)
        std::memcpy(buf, data.data(), data.size());
      else
        for (const Placed& p : work[b].blocks) pack(*p.block, data.data(), buf + p.at);
    }
    board.dma[0]->transfer(requests(*impl_, mem, work[b], plan.replicated));
  }
}

void Device::read_tensor(const TensorLayout& layout, std::span<std::byte> out) {
  auto lock = impl_->lock_api("read_tensor");
  const detail::TensorPlan plan = detail::plan_tensor(layout, impl_->info, "read_tensor");
  check_size(layout, out.size(), "read_tensor");
  std::vector<BoardWork> work = place(*impl_, layout, plan, "read_tensor");
  if (plan.replicated) {  // every copy is the same: read the first tile's
    const size_t first_board = plan.blocks.front().tile.ipu / impl_->info.ipus_per_board;
    for (size_t b = 0; b < work.size(); ++b) {
      if (b != first_board) {
        work[b].blocks.clear();
      } else {
        work[b].blocks.resize(1);
      }
    }
  }
  for (size_t b = 0; b < work.size(); ++b) {
    if (work[b].blocks.empty()) continue;
    BoardSession& board = *impl_->boards[b];
    const auto caller = caller_memory(board, work[b], false, out.data());
    detail::HostMemory& mem = caller ? *caller : buffer(board, work[b].buffer_bytes);
    board.dma[1]->transfer(requests(*impl_, mem, work[b], false));
    if (!caller)
      for (const Placed& p : work[b].blocks) unpack(*p.block, mem.bytes().data() + p.at, out.data());
  }
}

void Device::write_per_tile(const TileList& tiles, const std::string& symbol, size_t bytes_per_tile,
                            std::span<const std::byte> data) {
  if (bytes_per_tile == 0) throw UsageError("write_per_tile: bytes_per_tile is 0");
  if (data.size() != tiles.size() * bytes_per_tile)
    throw UsageError("write_per_tile: " + std::to_string(tiles.size()) + " tiles of " + std::to_string(bytes_per_tile) +
                     " bytes are " + std::to_string(tiles.size() * bytes_per_tile) + " bytes, " +
                     std::to_string(data.size()) + " given");
  write_tensor({{tiles.size(), bytes_per_tile}, DType::kU8, Mapping::blocked_rows(tiles), Location::symbol(symbol)}, data);
}

DmaStats Device::dma_stats() {
  auto lock = impl_->lock_api("dma_stats");
  DmaStats s;
  for (auto& b : impl_->boards) {
    const detail::DmaCounts h = b->dma.at(0)->counts(), d = b->dma.at(1)->counts();
    s.to_device.descriptors += h.descriptors, s.to_device.batches += h.batches, s.to_device.bytes += h.bytes;
    s.from_device.descriptors += d.descriptors, s.from_device.batches += d.batches, s.from_device.bytes += d.bytes;
  }
  return s;
}

}  // namespace ipudrv
