// A device-side endpoint of the DMA engine other than tile SRAM: the board's streaming
// memory (descriptor target SMEM) and its host stream FIFOs (target STREAM). The
// streaming gateway (tlm/streaming) implements it and attaches itself to the board's
// HostInterface (attach_smem / attach_streams); until then those targets fail with
// IPU_ERR_DMA_DESC "not available yet".
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

#include <systemc>

#include "ipu/hostif_regs.h"

namespace ipusim::host_if {

class DmaPort {
 public:
  virtual ~DmaPort() = default;
  // Checks a descriptor for this endpoint before it runs: IPU_ERR_NONE, or an IPU_ERR_*
  // code with `why` (e.g. "streaming memory 0x... + 4096 bytes is beyond its 1 GiB").
  virtual uint32_t check(const ipu_dma_desc& desc, unsigned channel, std::string& why) = 0;
  // How long the descriptor takes, given what the host link alone would take (its
  // latency plus the bytes at its rate): e.g. longer for a slower streaming memory.
  virtual sc_core::sc_time duration(const ipu_dma_desc& desc, sc_core::sc_time link_time) {
    (void)desc;
    return link_time;
  }
  // Moves the bytes at the end of that time, on the model thread: channel 0 from `host`
  // into the endpoint, channel 1 from the endpoint into `host`. IPU_ERR_NONE or a code
  // with `why`.
  virtual uint32_t transfer(const ipu_dma_desc& desc, unsigned channel, std::span<std::byte> host,
                            std::string& why) = 0;
};

}  // namespace ipusim::host_if
