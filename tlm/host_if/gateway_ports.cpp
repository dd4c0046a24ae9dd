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

// A descriptor's problem: made here, where the endpoint finds it.
Problem problem(ProblemCode code, std::string kind, uint64_t address, std::string detail) {
  Problem p;
  p.code = code;
  p.kind = std::move(kind);
  p.address = address;
  p.detail = std::move(detail);
  return p;
}

// The gateway's FIFO calls answer with an ERR_* code (a stream id out of range).
DmaTransfer fifo_result(const streaming::FifoResult& r, uint32_t stream) {
  DmaTransfer t;
  t.bytes_done = r.bytes;
  if (r.error != IPU_ERR_NONE)
    t.problem = problem(ProblemCode(r.error), "no such stream", stream,
                        fmt::format("stream id {}: ids are 0..{}", stream, IPU_STREAMS - 1));
  return t;
}

}  // namespace

// ---- SMEM --------------------------------------------------------------------------------

std::optional<Problem> SmemPort::check(const ipu_dma_desc& d, unsigned) {
  const uint64_t size = gateway_.smem_size();
  if (d.dev_addr > size || size - d.dev_addr < d.length)
    return problem(ProblemCode::SmemRange, size == 0 ? "no streaming memory" : "beyond streaming memory", d.dev_addr,
                   size == 0 ? fmt::format("streaming memory 0x{:x} + {} bytes: the board has no streaming memory",
                                           d.dev_addr, d.length)
                             : fmt::format("streaming memory 0x{:x} + {} bytes is beyond its {} (SMEM_SIZE 0x{:x})",
                                           d.dev_addr, d.length, size_text(size), size));
  return std::nullopt;
}

// The bytes cross the host link and the streaming memory at once: the slower sets the pace.
sc_core::sc_time SmemPort::occupancy(const ipu_dma_desc& d, sc_core::sc_time link_bytes_time) {
  const sc_core::sc_time smem = gateway_.smem_transfer_time(d.length) - gateway_.smem_transfer_time(0);
  return std::max(link_bytes_time, smem);
}

sc_core::sc_time SmemPort::latency(const ipu_dma_desc&) { return gateway_.smem_transfer_time(0); }

DmaTransfer SmemPort::transfer(const ipu_dma_desc& d, unsigned channel, std::span<std::byte> host) {
  const uint32_t code = channel == 0 ? gateway_.write_smem(d.dev_addr, as_u8(host)) : gateway_.read_smem(d.dev_addr, as_u8(host));
  DmaTransfer t;
  if (code != IPU_ERR_NONE) {  // checked at issue; only a changed size could get here
    t.problem = problem(ProblemCode(code), "beyond streaming memory", d.dev_addr,
                        fmt::format("streaming memory 0x{:x} + {} bytes is beyond its {}", d.dev_addr, host.size(),
                                    size_text(gateway_.smem_size())));
    return t;
  }
  t.bytes_done = uint32_t(host.size());
  return t;
}

// ---- STREAM ------------------------------------------------------------------------------

std::optional<Problem> StreamPort::check(const ipu_dma_desc& d, unsigned channel) {
  if (d.ipu >= IPU_STREAMS)
    return problem(ProblemCode::Stream, "no such stream", d.ipu,
                   fmt::format("stream id {} (the descriptor's ipu field): ids are 0..{}", d.ipu, IPU_STREAMS - 1));
  if (channel == 0 && d.length > gateway_.fifo_bytes())
    return problem(ProblemCode::StreamOverflow, "never fits", d.ipu,
                   fmt::format("host stream {}: {} bytes can never fit its host-to-device FIFO of {} bytes", d.ipu,
                               d.length, gateway_.fifo_bytes()));
  return std::nullopt;
}

DmaTransfer StreamPort::transfer(const ipu_dma_desc& d, unsigned channel, std::span<std::byte> host) {
  if (channel == 0) {
    const uint32_t level = gateway_.h2d_level(d.ipu);
    const uint32_t room = gateway_.fifo_bytes() - level;
    if (host.size() > room) {
      DmaTransfer t;
      t.problem = problem(ProblemCode::StreamOverflow, "no room", d.ipu,
                          fmt::format("host stream {}: {} bytes do not fit its host-to-device FIFO ({} of {} bytes "
                                      "free); nothing moved",
                                      d.ipu, host.size(), room, gateway_.fifo_bytes()));
      return t;
    }
    return fifo_result(gateway_.push_h2d(d.ipu, as_u8(host)), d.ipu);
  }
  return fifo_result(gateway_.pop_d2h(d.ipu, as_u8(host)), d.ipu);
}

}  // namespace ipusim::host_if
