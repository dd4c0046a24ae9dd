// One DMA channel of the device as the driver drives it: a ring of ipu_dma_desc in host
// memory, a staging area for the caller's bytes, the doorbell (TAIL) and completion by
// interrupt or polling (docs/host_if.md, "DMA"). Transfers are split into descriptors of
// at most chunk_bytes, posted in batches that fit the ring and the staging area; a request
// whose bytes are already in mapped host memory skips the staging area and the cut at
// chunk_bytes.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "ipudrv/device.h"
#include "irq_event.h"
#include "transport.h"

namespace ipudrv::detail {

// One transfer: the device side (target, address, tiles or stream) and the host bytes.
struct DmaRequest {
  uint16_t target = 0;         // IPU_DMA_TARGET_*
  uint64_t dev_addr = 0;
  uint32_t ipu = 0;            // TILE: IPU; STREAM: stream id
  uint32_t tile_first = 0, tile_count = 1;
  std::span<std::byte> host;   // channel 0 reads it, channel 1 writes it
  // Channel 0 only: bytes of zeros to send after `host` in the same descriptor chain
  // (a segment's .bss) without the caller allocating them.
  uint64_t zeros = 0;
  // TILE, tile_count > 1: DESC_FLAG_PER_TILE: `host` holds tile_count equal slices, slice
  // i for (channel 0) / from (channel 1) tile tile_first + i at dev_addr. Descriptors
  // are cut at whole slices (each piece is a run of tiles).
  bool per_tile = false;
  // Non-null: `host` lies inside this device-reachable memory, so descriptors point at it
  // directly: nothing is staged or copied, and a descriptor may carry up to 4 GiB - 1
  // (whole slices) instead of chunk_bytes.
  HostMemory* mapped = nullptr;
};

// What a channel has posted since open.
struct DmaCounts {
  uint64_t descriptors = 0, batches = 0, bytes = 0;
};

class DmaChannel {
 public:
  DmaChannel(Transport& transport, IrqEvent& irq, unsigned channel, const OpenOptions& options);

  // Writes RING_LO / HI / SIZE (after open and after every CTRL.RESET, which clears them).
  void program();

  // Moves every request in order; returns bytes moved per request (channel 1 may move
  // fewer than asked from a stream FIFO). Throws DmaError with the device's error
  // registers when a descriptor fails (the channel is re-programmed, ready again),
  // TimeoutError when the device does not retire the batch within `timeout`.
  std::vector<uint64_t> transfer(std::span<const DmaRequest> requests,
                                 std::chrono::milliseconds timeout = std::chrono::seconds(120));

  DmaCounts counts() const { return counts_; }

 private:
  struct Piece {
    size_t request;
    uint64_t offset;     // within the request's bytes (host part, then zeros)
    uint32_t length;
    uint64_t staging;    // offset in the staging area (unused for a mapped request)
  };
  void run_batch(std::span<const DmaRequest> requests, std::span<const Piece> batch,
                 std::vector<uint64_t>& moved, std::chrono::milliseconds timeout);
  uint32_t reg(uint32_t ch0_offset) const;

  Transport& t_;
  IrqEvent& irq_;
  unsigned channel_;
  OpenOptions options_;
  std::unique_ptr<HostMemory> ring_;
  std::unique_ptr<HostMemory> staging_;
  uint32_t tail_ = 0;
  DmaCounts counts_;
};

DeviceErrorInfo read_error_registers(Transport& t);

}  // namespace ipudrv::detail
