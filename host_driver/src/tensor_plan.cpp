// tensor_plan.h; also the small value types of ipudrv/tensor.h.
#include "tensor_plan.h"

#include <algorithm>
#include <iterator>
#include <map>
#include <string>

namespace ipudrv {

size_t dtype_size(DType t) {
  switch (t) {
    case DType::kU8: case DType::kI8: return 1;
    case DType::kU16: case DType::kI16: case DType::kF16: case DType::kBF16: return 2;
    case DType::kU32: case DType::kI32: case DType::kF32: return 4;
    case DType::kU64: case DType::kI64: case DType::kF64: return 8;
  }
  throw UsageError("dtype " + std::to_string(int(t)) + " is not a DType");
}

const char* dtype_name(DType t) {
  static const char* const kNames[] = {"u8", "i8", "u16", "i16", "u32", "i32", "u64", "i64", "f16", "bf16", "f32", "f64"};
  return size_t(t) < std::size(kNames) ? kNames[size_t(t)] : "?";
}

TileList tile_range(uint32_t ipu, uint32_t first, uint32_t count) {
  TileList l;
  l.reserve(count);
  for (uint32_t i = 0; i < count; ++i) l.push_back({ipu, first + i});
  return l;
}

TileList all_tiles(const DeviceInfo& info) {
  TileList l;
  l.reserve(size_t(info.ipus) * info.tiles_per_ipu);
  for (uint32_t ipu = 0; ipu < info.ipus; ++ipu)
    for (uint32_t t = 0; t < info.tiles_per_ipu; ++t) l.push_back({ipu, t});
  return l;
}

Mapping Mapping::blocked_rows(TileList tiles) { return {Kind::kBlockedRows, std::move(tiles), 0, 0, {}}; }
Mapping Mapping::blocked_2d(TileList tiles, uint32_t grid_rows, uint32_t grid_cols) {
  return {Kind::kBlocked2D, std::move(tiles), grid_rows, grid_cols, {}};
}
Mapping Mapping::replicated(TileList tiles) { return {Kind::kReplicated, std::move(tiles), 0, 0, {}}; }

// An empty name would read as the address 0, reported as "outside SRAM": say what it is.
Location Location::symbol(std::string name) {
  if (name.empty()) throw UsageError("Location::symbol: an empty symbol name (Location::at(address) names an address)");
  return {std::move(name), 0};
}
Mapping Mapping::per_tile(std::vector<TilePiece> pieces) { return {Kind::kPerTile, {}, 0, 0, std::move(pieces)}; }

uint64_t TensorLayout::elements() const {
  uint64_t n = 1;
  for (uint64_t d : shape) n *= d;
  return n;
}
uint64_t TensorLayout::bytes() const { return elements() * dtype_size(dtype); }

void Device::check_dtype(DType layout, DType given, const char* what) {
  const bool half = (layout == DType::kF16 || layout == DType::kBF16) && given == DType::kU16;
  if (layout != given && !half)
    throw UsageError(std::string(what) + ": the layout's dtype is " + dtype_name(layout) + ", the data's " +
                     dtype_name(given));
}

namespace detail {
namespace {

std::string tile_name(const TileId& t) { return "ipu " + std::to_string(t.ipu) + " tile " + std::to_string(t.tile); }

// Tiles on the device, each once.
void check_tiles(const std::vector<TileId>& tiles, const DeviceInfo& info, const std::string& what) {
  if (tiles.empty()) throw UsageError(what + ": the tile list is empty");
  std::map<TileId, size_t> seen;
  for (size_t i = 0; i < tiles.size(); ++i) {
    const TileId& t = tiles[i];
    if (t.ipu >= info.ipus || t.tile >= info.tiles_per_ipu)
      throw UsageError(what + ": tile " + std::to_string(i) + " (" + tile_name(t) + ") is not on the device (" +
                       std::to_string(info.ipus) + " IPUs of " + std::to_string(info.tiles_per_ipu) + " tiles)");
    if (auto [at, fresh] = seen.emplace(t, i); !fresh)
      throw UsageError(what + ": " + tile_name(t) + " is listed twice (entries " + std::to_string(at->second) + " and " +
                       std::to_string(i) + ")");
  }
}

// Block b of n near-equal blocks of `total`: [first, first + count).
std::pair<uint64_t, uint64_t> split(uint64_t total, uint64_t n, uint64_t b) {
  const uint64_t base = total / n, rem = total % n;
  return {b * base + std::min(b, rem), base + (b < rem ? 1 : 0)};
}

}  // namespace

TensorPlan plan_tensor(const TensorLayout& layout, const DeviceInfo& info, const char* what_c) {
  const std::string what = what_c;
  if (layout.shape.empty()) throw UsageError(what + ": the shape has no dimensions");
  uint64_t elements = 1;
  for (size_t i = 0; i < layout.shape.size(); ++i) {
    if (layout.shape[i] == 0) throw UsageError(what + ": shape[" + std::to_string(i) + "] is 0");
    if (elements > (uint64_t(1) << 48) / layout.shape[i]) throw UsageError(what + ": the shape has more than 2^48 elements");
    elements *= layout.shape[i];
  }
  const uint64_t esize = dtype_size(layout.dtype);
  const uint64_t bytes = elements * esize;
  const Mapping& m = layout.mapping;
  TensorPlan plan;
  switch (m.kind) {
    case Mapping::Kind::kBlockedRows: {
      check_tiles(m.tiles, info, what);
      const uint64_t row_bytes = bytes / layout.shape[0];
      for (size_t i = 0; i < m.tiles.size(); ++i) {
        const auto [first, rows] = split(layout.shape[0], m.tiles.size(), i);
        plan.blocks.push_back({m.tiles[i], first * row_bytes, rows * row_bytes, rows ? 1u : 0u, 0});
      }
      break;
    }
    case Mapping::Kind::kBlocked2D: {
      if (layout.shape.size() != 2)
        throw UsageError(what + ": blocked_2d needs a 2-D tensor, the shape has " + std::to_string(layout.shape.size()) +
                         " dimensions");
      if (m.grid_rows == 0 || m.grid_cols == 0 || uint64_t(m.grid_rows) * m.grid_cols != m.tiles.size())
        throw UsageError(what + ": a " + std::to_string(m.grid_rows) + " x " + std::to_string(m.grid_cols) +
                         " grid needs " + std::to_string(uint64_t(m.grid_rows) * m.grid_cols) + " tiles, " +
                         std::to_string(m.tiles.size()) + " given");
      check_tiles(m.tiles, info, what);
      const uint64_t rows = layout.shape[0], cols = layout.shape[1];
      for (uint32_t r = 0; r < m.grid_rows; ++r)
        for (uint32_t c = 0; c < m.grid_cols; ++c) {
          const auto [r0, nr] = split(rows, m.grid_rows, r);
          const auto [c0, nc] = split(cols, m.grid_cols, c);
          const bool empty = nr == 0 || nc == 0;
          plan.blocks.push_back({m.tiles[size_t(r) * m.grid_cols + c], (r0 * cols + c0) * esize, nc * esize,
                                 empty ? 0 : nr, cols * esize});
        }
      break;
    }
    case Mapping::Kind::kReplicated:
      check_tiles(m.tiles, info, what);
      plan.replicated = true;
      for (const TileId& t : m.tiles) plan.blocks.push_back({t, 0, bytes, 1, 0});
      break;
    case Mapping::Kind::kPerTile: {
      std::vector<TileId> tiles;
      for (const TilePiece& p : m.pieces) tiles.push_back({p.ipu, p.tile});
      check_tiles(tiles, info, what);
      for (size_t i = 0; i < m.pieces.size(); ++i) {
        const TilePiece& p = m.pieces[i];
        if (p.count == 0 || p.offset >= elements || p.count > elements - p.offset)
          throw UsageError(what + ": piece " + std::to_string(i) + " (" + tile_name(tiles[i]) + ") is elements " +
                           std::to_string(p.offset) + " + " + std::to_string(p.count) + " of a tensor of " +
                           std::to_string(elements) + (p.count == 0 ? " (an empty piece)" : ""));
        plan.blocks.push_back({tiles[i], p.offset * esize, p.count * esize, 1, 0});
      }
      break;
    }
    default:
      throw UsageError(what + ": mapping kind " + std::to_string(int(m.kind)) + " is not a Mapping::Kind");
  }
  return plan;
}

}  // namespace detail
}  // namespace ipudrv
