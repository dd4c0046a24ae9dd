// HostInterface's DMA channels: one SC_THREAD per channel retires the descriptors of its
// ring in order (docs/host_if.md "DMA"). A descriptor occupies the host link for its
// bytes at the link's rate (a broadcast to tiles: its bytes once; a per-tile scatter or
// gather: its length, every slice crossing once) and retires the link's
// latency later: its bytes move, its status is written back into the ring, HEAD
// advances and the interrupt cause is raised if asked for. A failing descriptor halts
// the channel (what was issued after it is dropped) and records ERR_*.
#include <algorithm>
#include <cstring>
#include <deque>

#include <fmt/format.h>

#include "host_if/host_interface.h"
#include "iss/tile_core.h"

namespace ipusim::host_if {
namespace {

constexpr uint64_t kDescBytes = sizeof(ipu_dma_desc);
constexpr size_t kStatusOffset = offsetof(ipu_dma_desc, status);
constexpr size_t kStatusBytes = sizeof(ipu_dma_desc) - kStatusOffset;  // status, error, bytes_done

}  // namespace

DmaPort* HostInterface::port_of(uint16_t target) const {
  if (target == IPU_DMA_TARGET_SMEM) return smem_;
  if (target == IPU_DMA_TARGET_STREAM) return streams_;
  return nullptr;
}

// Descriptors are issued onto the link back to back (the link carries one descriptor's
// bytes after another's) and each retires its latency after its last byte, in order. So
// a ring of descriptors moves at the link's rate, the latency paid once per stream.
// While the run is paused on a host stream, simulated time stands still: descriptors
// retire in zero time, so the host's service costs the run nothing and the run goes on
// from the cycle it paused at (RunDomain::still).
void HostInterface::channel_thread(unsigned ch) {
  const double rate = config_.board.host_link_bytes_per_second;
  const sc_core::sc_time latency(config_.board.host_link_latency_ns, sc_core::SC_NS);
  std::deque<DmaInFlight> inflight;
  sc_core::sc_time link_free = sc_core::SC_ZERO_TIME;
  uint64_t generation = ~uint64_t{0};
  uint32_t next_issue = 0;
  for (;;) {
    const sc_core::sc_time now = sc_core::sc_time_stamp();
    const bool still = domain_.still();
    if (still) {  // what was in flight when the run paused retires now too
      link_free = std::min(link_free, now);
      for (DmaInFlight& f : inflight) f.done = std::min(f.done, now);
    }
    uint64_t ring = 0;
    uint32_t size = 0;
    bool can_issue;
    {
      // What to issue comes from the doorbells the model took (doorbell_), in command
      // order; the mirror (channels_) only says whether the host has since reset or
      // re-programmed the ring, which drops what was posted before.
      std::lock_guard<std::mutex> lock(mutex_);
      const Channel& c = channels_[ch];
      const Doorbell& d = doorbell_[ch];
      if (d.generation != generation) {  // a doorbell of a new ring (HEAD starts at 0)
        inflight.clear();
        generation = d.generation;
        next_issue = 0;
        link_free = now;
      }
      const bool current = c.generation == generation;
      if (!current) inflight.clear();  // new ring or RESET written: what was in flight is dropped
      ring = d.ring;
      size = d.size;
      can_issue = current && size != 0 && !c.halted && next_issue != d.tail &&
                  (inflight.empty() || inflight.back().e.code == ProblemCode::None);
    }
    if (can_issue && link_free <= now) {
      DmaInFlight f = issue(ch, next_issue++, ring, size);
      if (still) {
        f.done = now;
      } else if (f.e.code == ProblemCode::None) {
        const sc_core::sc_time bytes(double(f.d.length) / rate, sc_core::SC_SEC);
        DmaPort* port = port_of(f.d.target);
        link_free = now + (port ? port->occupancy(f.d, bytes) : bytes);
        f.done = link_free + latency + (port ? port->latency(f.d) : sc_core::SC_ZERO_TIME);
      } else {
        f.done = now + latency;
      }
      inflight.push_back(std::move(f));
      continue;
    }
    if (!inflight.empty() && inflight.front().done <= now) {
      DmaInFlight f = std::move(inflight.front());
      inflight.pop_front();
      if (retire(ch, f, generation) && f.e.code != ProblemCode::None) inflight.clear();  // nothing after a failed descriptor runs
      continue;
    }
    // Sleep until the next retirement, the link frees for the next issue, or a doorbell.
    sc_core::sc_time next = sc_core::SC_ZERO_TIME;
    bool timed = false;
    if (!inflight.empty()) {
      next = inflight.front().done - now;
      timed = true;
    }
    if (can_issue && (!timed || link_free - now < next)) {
      next = link_free - now;
      timed = true;
    }
    if (timed)
      wait(next, kick_[ch]);
    else
      wait(kick_[ch]);
  }
}

HostInterface::DmaInFlight HostInterface::issue(unsigned ch, uint32_t index, uint64_t ring, uint32_t size) {
  DmaInFlight f;
  f.index = index;
  f.done = sc_core::sc_time_stamp();
  f.desc_addr = ring + uint64_t(index & (size - 1)) * kDescBytes;
  {
    HostMemory::Access host(host_memory_);
    if (const std::byte* p = host.find(f.desc_addr, kDescBytes)) {
      std::memcpy(&f.d, p, kDescBytes);
      f.have_desc = true;
    }
  }
  if (!f.have_desc) {
    f.e.code = ProblemCode::DmaHostAddr;
    f.e.address = f.desc_addr;
    f.e.detail = fmt::format("the descriptor's bus address 0x{:x} is not in mapped host memory", f.desc_addr);
  } else {
    check_descriptor(ch, f.d, f.e);
  }
  return f;
}

bool HostInterface::retire(unsigned ch, DmaInFlight& f, uint64_t generation) {
  if (f.e.code == ProblemCode::None) f.bytes_done = transfer(ch, f.d, f.e);
  if (f.have_desc) {
    f.d.status = f.e.code == ProblemCode::None ? IPU_DESC_STATUS_OK : IPU_DESC_STATUS_ERROR;
    f.d.error = uint32_t(f.e.code);
    f.d.bytes_done = f.e.code == ProblemCode::None ? f.bytes_done : 0;
    HostMemory::Access host(host_memory_);
    if (std::byte* p = host.find(f.desc_addr, kDescBytes))
      std::memcpy(p + kStatusOffset, reinterpret_cast<const std::byte*>(&f.d) + kStatusOffset, kStatusBytes);
  }
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (channels_[ch].generation != generation) return false;
  }
  // ERR_* before HEAD moves: a host that sees the descriptor retired sees its error.
  if (f.e.code != ProblemCode::None) {
    f.e.detail = fmt::format("DMA channel {} descriptor {} (bus address 0x{:x}): {}", ch, f.index, f.desc_addr, f.e.detail);
    record(f.e);
  }
  {
    std::lock_guard<std::mutex> lock(mutex_);
    Channel& c = channels_[ch];
    if (c.generation != generation) return false;
    ++c.head;  // retired, with OK or ERROR
    if (f.e.code != ProblemCode::None) c.halted = true;
  }
  if (f.e.code != ProblemCode::None || (f.d.flags & IPU_DESC_FLAG_IRQ))
    raise(ch == 0 ? IPU_IRQ_STATUS_DMA0_MASK : IPU_IRQ_STATUS_DMA1_MASK);
  return true;
}

void HostInterface::retire_without_kernel(unsigned ch) {
  for (;;) {
    uint64_t ring = 0, generation = 0;
    uint32_t size = 0, index = 0;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      const Channel& c = channels_[ch];
      const Doorbell& d = doorbell_[ch];
      if (d.generation != c.generation || d.size == 0 || c.halted || c.head == d.tail) return;
      ring = d.ring;
      size = d.size;
      index = c.head;
      generation = c.generation;
    }
    DmaInFlight f = issue(ch, index, ring, size);
    if (!retire(ch, f, generation)) return;
  }
}

void HostInterface::check_descriptor(unsigned ch, const ipu_dma_desc& d, Error& e) {
  auto fail = [&](ProblemCode code, std::string text) {
    e.code = code;
    e.detail = std::move(text);
  };
  if (d.length == 0) return fail(ProblemCode::DmaDesc, "length 0");
  if ((d.flags & IPU_DESC_FLAG_PER_TILE) && d.target != IPU_DMA_TARGET_TILE)
    return fail(ProblemCode::DmaDesc, fmt::format("DESC_FLAG_PER_TILE on target {}: it is for TILE descriptors", d.target));
  {
    HostMemory::Access host(host_memory_);
    if (!host.find(d.host_addr, d.length)) {
      e.address = d.host_addr;
      return fail(ProblemCode::DmaHostAddr, fmt::format("host range 0x{:x} + {} bytes is not in mapped host memory",
                                                     d.host_addr, d.length));
    }
  }
  if (d.target == IPU_DMA_TARGET_TILE) {
    const config::ChipConfig& chip = config_.board.chip;
    if (d.ipu >= config_.board.ipus)
      return fail(ProblemCode::DmaDesc, fmt::format("ipu {}: the board has IPUs 0..{}", d.ipu, config_.board.ipus - 1));
    if (d.tile_count == 0 || d.tile_first >= chip.tiles || d.tile_count > chip.tiles - d.tile_first)
      return fail(ProblemCode::DmaDesc, fmt::format("tiles {} + {}: the IPU has tiles 0..{}", d.tile_first, d.tile_count,
                                                chip.tiles - 1));
    const bool per_tile = (d.flags & IPU_DESC_FLAG_PER_TILE) != 0;
    if (ch == 1 && d.tile_count != 1 && !per_tile)
      return fail(ProblemCode::DmaDesc, fmt::format("tile_count {}: device-to-host reads one tile (or DESC_FLAG_PER_TILE "
                                                    "gathers a slice of each)", d.tile_count));
    if (per_tile && d.length % d.tile_count != 0)
      return fail(ProblemCode::DmaDesc, fmt::format("DESC_FLAG_PER_TILE: length {} is not a multiple of tile_count {} "
                                                    "(each tile takes an equal slice)", d.length, d.tile_count));
    const uint32_t slice = per_tile ? d.length / d.tile_count : d.length;
    const uint64_t sram_end = uint64_t(iss::kSramBase) + chip.tile.sram_bytes;
    if (d.dev_addr < iss::kSramBase || d.dev_addr + slice > sram_end) {
      e.ipu = first_ipu_ + d.ipu;  // ERR_IPU: the system's number
      e.tile = d.tile_first;
      e.address = d.dev_addr;
      return fail(ProblemCode::DmaTile, fmt::format("tile range 0x{:x} + {} bytes is outside SRAM 0x{:08x}..0x{:08x}",
                                                d.dev_addr, slice, iss::kSramBase, sram_end));
    }
    return;
  }
  if (d.target == IPU_DMA_TARGET_SMEM || d.target == IPU_DMA_TARGET_STREAM) {
    DmaPort* port = port_of(d.target);
    if (!port)
      return fail(ProblemCode::DmaDesc, d.target == IPU_DMA_TARGET_SMEM ? "target SMEM: no streaming memory attached"
                                                                    : "target STREAM: no host streams attached");
    if (std::optional<Problem> p = port->check(d, ch)) e = std::move(*p);
    return;
  }
  fail(ProblemCode::DmaDesc, fmt::format("unknown target {}", d.target));
}

uint32_t HostInterface::transfer(unsigned ch, const ipu_dma_desc& d, Error& e) {
  HostMemory::Access host(host_memory_);
  std::byte* bytes = host.find(d.host_addr, d.length);
  if (!bytes) {  // unmapped while the descriptor ran
    e.code = ProblemCode::DmaHostAddr;
    e.address = d.host_addr;
    e.detail = fmt::format("host range 0x{:x} + {} bytes is not in mapped host memory", d.host_addr, d.length);
    return 0;
  }
  if (d.target == IPU_DMA_TARGET_TILE) {
    tile_transfer(ch, d, bytes, e);
    return e.code == ProblemCode::None ? d.length : 0;
  }
  DmaTransfer t = port_of(d.target)->transfer(d, ch, std::span<std::byte>(bytes, d.length));
  if (t.problem) {
    e = std::move(*t.problem);
    return 0;
  }
  return t.bytes_done;
}

// A broadcast hands every tile the same bytes; a per-tile descriptor (DESC_FLAG_PER_TILE)
// hands tile tile_first + i the i-th slice. Either way one b_transport per tile, in
// the descriptor's retirement: no simulated wait per tile (the link time was charged
// for the descriptor's bytes when it was issued).
void HostInterface::tile_transfer(unsigned ch, const ipu_dma_desc& d, std::byte* host, Error& e) {
  tlm::tlm_generic_payload trans;
  const uint32_t tiles = config_.board.chip.tiles;
  const bool per_tile = (d.flags & IPU_DESC_FLAG_PER_TILE) != 0;
  const uint32_t slice = per_tile ? d.length / d.tile_count : d.length;
  for (uint32_t t = d.tile_first; t < d.tile_first + d.tile_count; ++t) {
    std::byte* bytes = per_tile ? host + uint64_t(t - d.tile_first) * slice : host;
    trans.set_command(ch == 0 ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND);
    trans.set_address(d.dev_addr);
    trans.set_data_ptr(reinterpret_cast<unsigned char*>(bytes));
    trans.set_data_length(slice);
    trans.set_streaming_width(slice);
    trans.set_byte_enable_ptr(nullptr);
    trans.set_dmi_allowed(false);
    trans.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
    tile_socket[int(d.ipu * tiles + t)]->b_transport(trans, delay);
    if (!trans.is_response_ok()) {
      e.code = ProblemCode::DmaTile;
      e.ipu = first_ipu_ + d.ipu;
      e.tile = t;
      e.address = d.dev_addr;
      e.detail = fmt::format("tile {} (ipu {}): {} 0x{:x} + {} bytes refused ({}): code of a booted tile is read-only", t,
                           e.ipu, ch == 0 ? "write of" : "read of", d.dev_addr, slice, trans.get_response_string());
      return;
    }
  }
}

}  // namespace ipusim::host_if
