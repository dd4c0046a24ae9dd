// Where each element of a tensor goes: a TensorLayout checked against the device's shape
// (tiles, IPUs) and turned into one block per tile, in the mapping's tile order. A block
// is a strided run of the row-major tensor's bytes (rows of a 2-D block; one run
// otherwise), contiguous on its tile. tensor_io.cpp packs blocks and posts descriptors.
#pragma once

#include <cstdint>
#include <vector>

#include "ipudrv/device.h"
#include "ipudrv/tensor.h"

namespace ipudrv::detail {

struct TileBlock {
  TileId tile;
  uint64_t src = 0;        // byte offset of its first run in the row-major tensor
  uint64_t run_bytes = 0;  // bytes per run
  uint64_t runs = 0;       // runs (rows of a 2-D block; 1 otherwise; 0: an empty block)
  uint64_t stride = 0;     // bytes from one run to the next in the tensor
  uint64_t bytes() const { return run_bytes * runs; }
};

struct TensorPlan {
  std::vector<TileBlock> blocks;  // the mapping's tile order
  bool replicated = false;        // every block is the whole tensor
};

// Throws UsageError ("<what>: ...") naming what is wrong with the layout.
TensorPlan plan_tensor(const TensorLayout& layout, const DeviceInfo& info, const char* what);

}  // namespace ipudrv::detail
