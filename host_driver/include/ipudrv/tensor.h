// Tensors laid out over tiles: a shape and a dtype, spread over a set of tiles by a
// mapping, at a symbol or a tile address. Device::write_tensor / read_tensor move one in a
// single call that becomes a few DMA descriptors (docs/host_driver.md, "Tensors"):
//
//   using namespace ipudrv;
//   TensorLayout x{{16384, 1024}, DType::kF32, Mapping::blocked_rows(all_tiles(dev->info())),
//                  Location::symbol("x")};
//   dev->write_tensor(x, std::as_bytes(std::span(values)));   // row-major, shape's order
//
// The API is plain data a binding maps one to one: a shape is a vector of sizes, a dtype
// an enum with a size, data raw bytes in C (row-major) order.
#pragma once

#include <compare>
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <ipu/host_records.h>

namespace ipudrv {

struct DeviceInfo;

// Element types (numpy's names without the "int" / "float" spelling).
enum class DType : uint8_t { kU8, kI8, kU16, kI16, kU32, kI32, kU64, kI64, kF16, kBF16, kF32, kF64 };
size_t dtype_size(DType t);        // bytes per element
const char* dtype_name(DType t);   // "u8", "f32", ...

// One tile of the device: a device IPU and a tile of it.
struct TileId {
  uint32_t ipu = 0, tile = 0;
  auto operator<=>(const TileId&) const = default;
};
using TileList = std::vector<TileId>;  // ordered: the mapping's tile i is list[i]

TileList tile_range(uint32_t ipu, uint32_t first, uint32_t count);  // tiles first .. first+count-1 of one IPU
TileList all_tiles(const DeviceInfo& info);                         // every tile, IPU by IPU

// One piece of a per-tile mapping: elements [offset, offset + count) of the flattened
// (row-major) tensor live on that tile, contiguous at the location.
struct TilePiece {
  uint32_t ipu = 0, tile = 0;
  uint64_t offset = 0, count = 0;
};

// How a tensor's elements are spread over tiles. Each tile's block is contiguous at the
// location, in row-major order of the block.
struct Mapping {
  enum class Kind : uint8_t { kBlockedRows, kBlocked2D, kReplicated, kPerTile };
  Kind kind = Kind::kBlockedRows;
  TileList tiles;              // not used by kPerTile
  uint32_t grid_rows = 0, grid_cols = 0;  // kBlocked2D
  std::vector<TilePiece> pieces;          // kPerTile

  // Dimension 0 split into near-equal contiguous blocks: R rows over n tiles give each
  // R / n rows, the first R % n one more (a tile may get none when R < n).
  static Mapping blocked_rows(TileList tiles);
  // A 2-D tensor cut into grid_rows x grid_cols blocks (rows and columns each split as
  // blocked_rows splits rows); tile r * grid_cols + c holds block (r, c), row-major.
  static Mapping blocked_2d(TileList tiles, uint32_t grid_rows, uint32_t grid_cols);
  // The whole tensor on every tile (a broadcast); reading takes the first tile's copy.
  static Mapping replicated(TileList tiles);
  // Explicit pieces of the flattened tensor, at most one per tile; elements no piece
  // names are not moved.
  static Mapping per_tile(std::vector<TilePiece> pieces);
};

// Where a tile's block lives: a symbol of the ELF loaded on that tile (resolved per tile;
// a block larger than the symbol's st_size is a UsageError) or one tile address.
struct Location {
  std::string symbol_name;  // non-empty: a symbol
  uint32_t address = 0;     // else this tile address
  static Location symbol(std::string name);  // UsageError for an empty name
  static Location at(uint32_t address) { return {{}, address}; }
};

struct TensorLayout {
  std::vector<uint64_t> shape;  // sizes, outermost first; every size > 0
  DType dtype = DType::kU8;
  Mapping mapping;
  Location location;
  uint64_t elements() const;    // product of the sizes
  uint64_t bytes() const;       // elements() * dtype_size(dtype)
};

// DMA figures since the device was opened, summed over its boards: what the channels
// posted (descriptors, doorbell batches, descriptor bytes: the bytes the host link
// carries), per direction. Device::dma_stats(). Host records (hw/host_if/records.yaml,
// docs/host_records.md).
using DmaDirectionStats = ipusim::records::DmaDirectionStats;
using DmaStats = ipusim::records::DmaStats;

}  // namespace ipudrv
