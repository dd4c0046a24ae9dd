// A device-side endpoint of the DMA engine other than tile SRAM: the board's streaming
// memory (descriptor target SMEM) and its host stream FIFOs (target STREAM). The host
// interface attaches the streaming gateway's ports (gateway_ports.h) at construction;
// a target with no port attached fails with IPU_ERR_DMA_DESC "not available".
//
// Timing (dma_channel.cpp): a descriptor occupies its channel for occupancy(), the next
// descriptor's bytes follow at once, and it retires host_link.latency_ns + latency()
// after its last byte.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>

#include <systemc>

#include "common/problem.h"
#include "ipu/hostif_regs.h"

namespace ipusim::host_if {

// A descriptor's transfer: the bytes moved, or the problem (nothing moved).
struct DmaTransfer {
  uint32_t bytes_done = 0;
  std::optional<Problem> problem;
};

class DmaPort {
 public:
  virtual ~DmaPort() = default;
  // Checks a descriptor for this endpoint when its channel issues it: nothing, or the
  // problem record (code, kind, detail e.g. "streaming memory 0x... + 4096 bytes is
  // beyond its 1 GiB", address: the device-side address involved).
  virtual std::optional<Problem> check(const ipu_dma_desc& desc, unsigned channel) = 0;
  // How long the descriptor holds its channel, given the time its bytes take on the host
  // link alone: e.g. longer for a streaming memory slower than the link.
  virtual sc_core::sc_time occupancy(const ipu_dma_desc& desc, sc_core::sc_time link_bytes_time) {
    (void)desc;
    return link_bytes_time;
  }
  // What the endpoint adds to the host link's latency.
  virtual sc_core::sc_time latency(const ipu_dma_desc& desc) {
    (void)desc;
    return sc_core::SC_ZERO_TIME;
  }
  // Moves the bytes when the descriptor retires, on the model thread: channel 0 from
  // `host` into the endpoint, channel 1 from the endpoint into `host`. Returns the bytes
  // done (at most host.size()), or the problem (nothing moved).
  virtual DmaTransfer transfer(const ipu_dma_desc& desc, unsigned channel, std::span<std::byte> host) = 0;
};

}  // namespace ipusim::host_if
