// The board's streaming gateway (tlm/streaming) as DMA endpoints of its host interface
// (docs/host_if.md "DMA", "Streaming memory", "Host streams").
//
//   SmemPort     target SMEM: dev_addr = byte offset in streaming memory. Checked at
//                issue (the whole range inside SMEM_SIZE, else IPU_ERR_SMEM_RANGE with
//                ERR_ADDR = the offset). The bytes move at min(host link, streaming
//                memory) rate: the descriptor holds its channel for
//                max(bytes / link rate, bytes / streaming_memory.gbytes_per_s) and
//                retires host_link.latency_ns + streaming_memory.latency_ns after.
//   StreamPort   target STREAM: ipu = stream id (< IPU_STREAMS, else IPU_ERR_STREAM).
//                Channel 0 pushes the descriptor's bytes into the stream's
//                host-to-device FIFO, all or nothing: a descriptor longer than the
//                FIFO's room when it retires fails with IPU_ERR_STREAM_OVERFLOW (nothing
//                moved). Channel 1 pops at most `length` bytes from the device-to-host
//                FIFO: bytes_done = what it held (possibly 0), status OK. The bytes cross
//                the host link only (no streaming memory).
//
// Both call the gateway on the model thread (the DMA channel's SystemC thread).
#pragma once

#include "host_if/dma_port.h"
#include "streaming/gateway.h"

namespace ipusim::host_if {

class SmemPort : public DmaPort {
 public:
  explicit SmemPort(streaming::Gateway& gateway) : gateway_(gateway) {}
  std::optional<Problem> check(const ipu_dma_desc& desc, unsigned channel) override;
  sc_core::sc_time occupancy(const ipu_dma_desc& desc, sc_core::sc_time link_bytes_time) override;
  sc_core::sc_time latency(const ipu_dma_desc& desc) override;
  DmaTransfer transfer(const ipu_dma_desc& desc, unsigned channel, std::span<std::byte> host) override;

 private:
  streaming::Gateway& gateway_;
};

class StreamPort : public DmaPort {
 public:
  explicit StreamPort(streaming::Gateway& gateway) : gateway_(gateway) {}
  std::optional<Problem> check(const ipu_dma_desc& desc, unsigned channel) override;
  DmaTransfer transfer(const ipu_dma_desc& desc, unsigned channel, std::span<std::byte> host) override;

 private:
  streaming::Gateway& gateway_;
};

}  // namespace ipusim::host_if
