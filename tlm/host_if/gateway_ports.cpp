// SmemPort and StreamPort: the streaming gateway's memory and FIFOs behind the DMA
// engine (gateway_ports.h has the rules).
#include "host_if/gateway_ports.h"

#include <algorithm>

#include <fmt/format.h>

namespace ipusim::host_if {
namespace {

std::string size_text(uint64_t bytes) {
  if (bytes != 0 && bytes % (uint64_t{1} << 30) == 0) return fmt::format("{} GiB", bytes >> 30);
  if (bytes != 0 && bytes % (uint64_t{1} << 20) == 0) return fmt::format("{} MiB", bytes >> 20);
  return fmt::format("{} bytes", bytes);
}

std::span<uint8_t> as_u8(std::span<std::byte> s) { return {reinterpret_cast<uint8_t*>(s.data()), s.size()}; }

}  // namespace

// ---- SMEM --------------------------------------------------------------------------------

uint32_t SmemPort::check(const ipu_dma_desc& d, unsigned, std::string& why, uint64_t& addr) {
  const uint64_t size = gateway_.smem_size();
  if (d.dev_addr > size || size - d.dev_addr < d.length) {
    addr = d.dev_addr;
    why = size == 0 ? fmt::format("streaming memory 0x{:x} + {} bytes: the board has no streaming memory", d.dev_addr,
                                  d.length)
                    : fmt::format("streaming memory 0x{:x} + {} bytes is beyond its {} (SMEM_SIZE 0x{:x})", d.dev_addr,
                                  d.length, size_text(size), size);
    return IPU_ERR_SMEM_RANGE;
  }
  return IPU_ERR_NONE;
}

// The bytes cross the host link and the streaming memory at once: the slower sets the pace.
sc_core::sc_time SmemPort::occupancy(const ipu_dma_desc& d, sc_core::sc_time link_bytes_time) {
  const sc_core::sc_time smem = gateway_.smem_transfer_time(d.length) - gateway_.smem_transfer_time(0);
  return std::max(link_bytes_time, smem);
}

sc_core::sc_time SmemPort::latency(const ipu_dma_desc&) { return gateway_.smem_transfer_time(0); }

uint32_t SmemPort::transfer(const ipu_dma_desc& d, unsigned channel, std::span<std::byte> host, uint32_t& bytes_done,
                            std::string& why, uint64_t& addr) {
  const uint32_t code = channel == 0 ? gateway_.write_smem(d.dev_addr, as_u8(host)) : gateway_.read_smem(d.dev_addr, as_u8(host));
  if (code != IPU_ERR_NONE) {  // checked at issue; only a changed size could get here
    addr = d.dev_addr;
    why = fmt::format("streaming memory 0x{:x} + {} bytes is beyond its {}", d.dev_addr, host.size(),
                      size_text(gateway_.smem_size()));
    return code;
  }
  bytes_done = uint32_t(host.size());
  return IPU_ERR_NONE;
}

// ---- STREAM ------------------------------------------------------------------------------

uint32_t StreamPort::check(const ipu_dma_desc& d, unsigned channel, std::string& why, uint64_t& addr) {
  if (d.ipu >= IPU_STREAMS) {
    addr = d.ipu;
    why = fmt::format("stream id {} (the descriptor's ipu field): ids are 0..{}", d.ipu, IPU_STREAMS - 1);
    return IPU_ERR_STREAM;
  }
  if (channel == 0 && d.length > gateway_.fifo_bytes()) {
    addr = d.ipu;
    why = fmt::format("host stream {}: {} bytes can never fit its host-to-device FIFO of {} bytes", d.ipu, d.length,
                      gateway_.fifo_bytes());
    return IPU_ERR_STREAM_OVERFLOW;
  }
  return IPU_ERR_NONE;
}

uint32_t StreamPort::transfer(const ipu_dma_desc& d, unsigned channel, std::span<std::byte> host, uint32_t& bytes_done,
                              std::string& why, uint64_t& addr) {
  if (channel == 0) {
    const uint32_t level = gateway_.h2d_level(d.ipu);
    const uint32_t room = gateway_.fifo_bytes() - level;
    if (host.size() > room) {
      addr = d.ipu;
      why = fmt::format("host stream {}: {} bytes do not fit its host-to-device FIFO ({} of {} bytes free); nothing moved",
                        d.ipu, host.size(), room, gateway_.fifo_bytes());
      return IPU_ERR_STREAM_OVERFLOW;
    }
    const streaming::FifoResult r = gateway_.push_h2d(d.ipu, as_u8(host));
    bytes_done = r.bytes;
    return r.error;
  }
  const streaming::FifoResult r = gateway_.pop_d2h(d.ipu, as_u8(host));
  bytes_done = r.bytes;
  return r.error;
}

}  // namespace ipusim::host_if
