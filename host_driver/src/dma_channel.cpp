// dma_channel.h
#include "dma_channel.h"

#include <ipu/hostif_regs.h>

#include <algorithm>
#include <cstring>

namespace ipudrv::detail {

namespace {

// A NUL-terminated text window of BAR0.
std::string read_text(Transport& t, uint32_t window, uint32_t bytes) {
  std::string s;
  for (uint32_t at = 0; at < bytes; at += 4) {
    const uint32_t w = t.read32(window + at);
    for (int b = 0; b < 4; ++b) {
      const char c = char(w >> (8 * b));
      if (c == '\0') return s;
      s.push_back(c);
    }
  }
  return s;
}

}  // namespace

DeviceErrorInfo read_error_registers(Transport& t) {
  DeviceErrorInfo e;
  e.code = t.read32(IPU_REG_ERR_CODE);
  e.ipu = t.read32(IPU_REG_ERR_IPU);
  e.tile = t.read32(IPU_REG_ERR_TILE);
  e.thread = t.read32(IPU_REG_ERR_THREAD);
  e.pc = t.read32(IPU_REG_ERR_PC);
  e.addr = read64(t, IPU_REG_ERR_ADDR_LO, IPU_REG_ERR_ADDR_HI);
  e.cycle = read64(t, IPU_REG_ERR_CYCLE_LO, IPU_REG_ERR_CYCLE_HI);
  e.count = t.read32(IPU_REG_ERR_COUNT);
  e.superstep = t.read32(IPU_REG_ERR_SUPERSTEP);
  e.peer_ipu = t.read32(IPU_REG_ERR_PEER_IPU);
  e.peer_tile = t.read32(IPU_REG_ERR_PEER_TILE);
  e.peer_pc = t.read32(IPU_REG_ERR_PEER_PC);
  e.waiting = t.read32(IPU_REG_ERR_WAITING);
  e.absent_count = t.read32(IPU_REG_ERR_ABSENT_COUNT);
  for (uint32_t i = 0; i < std::min<uint32_t>(e.absent_count, IPU_ERR_ABSENT_MAX); ++i) {
    const uint32_t w = t.read32(IPU_WIN_ERR_ABSENT + 4 * i);
    e.absent.push_back({w >> 16, w & 0xFFFF});
  }
  e.kind = read_text(t, IPU_WIN_ERR_KIND, IPU_WIN_ERR_KIND_BYTES);
  e.text = read_text(t, IPU_WIN_ERR_TEXT, IPU_WIN_ERR_TEXT_BYTES);
  return e;
}

DmaChannel::DmaChannel(Transport& transport, IrqEvent& irq, unsigned channel, const OpenOptions& options)
    : t_(transport), irq_(irq), channel_(channel), options_(options) {
  const uint32_t n = options_.ring_entries;
  if (n == 0 || n > IPU_DMA_RING_MAX || (n & (n - 1)) != 0)
    throw UsageError("ring_entries " + std::to_string(n) + ": a power of 2 from 1 to " + std::to_string(IPU_DMA_RING_MAX));
  if (options_.chunk_bytes == 0 || options_.staging_bytes < options_.chunk_bytes)
    throw UsageError("chunk_bytes must be > 0 and at most staging_bytes");
  ring_ = t_.alloc_host_memory(size_t(n) * sizeof(ipu_dma_desc));
  staging_ = t_.alloc_host_memory(options_.staging_bytes);
}

uint32_t DmaChannel::reg(uint32_t ch0_offset) const {
  return ch0_offset + channel_ * (IPU_REG_DMA1_RING_LO - IPU_REG_DMA0_RING_LO);
}

void DmaChannel::program() {
  const uint64_t bus = ring_->bus_addr();
  t_.write32(reg(IPU_REG_DMA0_RING_LO), uint32_t(bus));
  t_.write32(reg(IPU_REG_DMA0_RING_HI), uint32_t(bus >> 32));
  t_.write32(reg(IPU_REG_DMA0_RING_SIZE), options_.ring_entries);  // HEAD = TAIL = 0, HALTED cleared
  tail_ = 0;
}

std::vector<uint64_t> DmaChannel::transfer(std::span<const DmaRequest> requests, std::chrono::milliseconds timeout) {
  std::vector<uint64_t> moved(requests.size(), 0);
  std::vector<Piece> batch;
  uint64_t staged = 0;
  auto flush = [&] {
    if (batch.empty()) return;
    run_batch(requests, batch, moved, timeout);
    batch.clear();
    staged = 0;
  };
  for (size_t i = 0; i < requests.size(); ++i) {
    const DmaRequest& r = requests[i];
    if (channel_ == 1 && r.zeros != 0) throw UsageError("DMA: zero fill is for host-to-device transfers");
    const uint64_t total = r.host.size() + r.zeros;
    // A per-tile request is cut at whole slices; one in mapped memory only at the u32
    // length of a descriptor.
    uint64_t slice = 1;
    if (r.per_tile) {
      if (r.zeros != 0 || r.tile_count == 0 || total % r.tile_count != 0)
        throw UsageError("DMA: a per-tile request needs tile_count equal slices and no zero fill");
      slice = total / r.tile_count;
    }
    const uint64_t limit = r.mapped ? uint64_t(UINT32_MAX) : options_.chunk_bytes;
    const uint64_t piece_max = std::max(slice, limit / slice * slice);
    if (piece_max > UINT32_MAX || (!r.mapped && piece_max > options_.staging_bytes))
      throw UsageError("DMA: a per-tile slice of " + std::to_string(slice) + " bytes does not fit a descriptor" +
                       (r.mapped ? "" : " or the staging area"));
    for (uint64_t off = 0; off < total;) {
      const uint32_t len = uint32_t(std::min<uint64_t>(piece_max, total - off));
      const uint64_t room = r.mapped ? 0 : len;
      if (batch.size() == options_.ring_entries || staged + room > options_.staging_bytes) flush();
      batch.push_back({i, off, len, staged});
      staged += (room + 63) / 64 * 64;  // keep each piece cache-line aligned in staging
      off += len;
    }
  }
  flush();
  return moved;
}

void DmaChannel::run_batch(std::span<const DmaRequest> requests, std::span<const Piece> batch,
                           std::vector<uint64_t>& moved, std::chrono::milliseconds timeout) {
  auto* ring = reinterpret_cast<ipu_dma_desc*>(ring_->bytes().data());
  std::byte* staging = staging_->bytes().data();
  const uint32_t mask = options_.ring_entries - 1;
  for (size_t k = 0; k < batch.size(); ++k) {
    const Piece& p = batch[k];
    const DmaRequest& r = requests[p.request];
    if (channel_ == 0 && !r.mapped) {
      // Host bytes first, then the zero fill.
      const uint64_t host_end = r.host.size();
      const uint64_t from_host = p.offset < host_end ? std::min<uint64_t>(p.length, host_end - p.offset) : 0;
      if (from_host) std::memcpy(staging + p.staging, r.host.data() + p.offset, from_host);
      std::memset(staging + p.staging + from_host, 0, p.length - from_host);
    }
    ipu_dma_desc d{};
    d.host_addr = r.mapped ? r.mapped->bus_addr() + uint64_t(r.host.data() - r.mapped->bytes().data()) + p.offset
                           : staging_->bus_addr() + p.staging;
    d.length = p.length;
    d.target = r.target;
    d.flags = k + 1 == batch.size() ? IPU_DESC_FLAG_IRQ : 0;
    d.ipu = r.ipu;
    if (r.per_tile) {  // a run of whole slices: the same address on each of its tiles
      const uint64_t slice = r.host.size() / r.tile_count;
      d.dev_addr = r.dev_addr;
      d.tile_first = r.tile_first + uint32_t(p.offset / slice);
      d.tile_count = uint32_t(p.length / slice);
      if (d.tile_count > 1) d.flags |= IPU_DESC_FLAG_PER_TILE;
    } else {
      d.dev_addr = r.target == IPU_DMA_TARGET_STREAM ? 0 : r.dev_addr + p.offset;
      d.tile_first = r.tile_first;
      d.tile_count = r.tile_count;
    }
    std::memcpy(&ring[(tail_ + k) & mask], &d, sizeof d);
  }
  const uint32_t irq_bit = channel_ == 0 ? IPU_IRQ_STATUS_DMA0_MASK : IPU_IRQ_STATUS_DMA1_MASK;
  t_.write32(IPU_REG_IRQ_STATUS, irq_bit);
  const uint32_t new_tail = tail_ + uint32_t(batch.size());
  t_.write32(reg(IPU_REG_DMA0_TAIL), new_tail);  // the doorbell
  ++counts_.batches;
  counts_.descriptors += batch.size();
  for (const Piece& p : batch) counts_.bytes += p.length;

  const PollPolicy poll{options_.use_interrupts};
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (int round = 0;; ++round) {
    const uint64_t gen = irq_.generation();
    if (t_.read32(reg(IPU_REG_DMA0_HEAD)) == new_tail) break;
    if (t_.read32(reg(IPU_REG_DMA0_STATUS)) & IPU_DMA0_STATUS_HALTED_MASK) break;
    if (std::chrono::steady_clock::now() > deadline) {
      throw TimeoutError("DMA channel " + std::to_string(channel_) + ": " + std::to_string(batch.size()) +
                         " descriptors not retired within " + std::to_string(timeout.count()) + " ms (head " +
                         std::to_string(t_.read32(reg(IPU_REG_DMA0_HEAD))) + ", tail " + std::to_string(new_tail) + ")");
    }
    irq_.wait(gen, poll.next(round));
  }

  for (size_t k = 0; k < batch.size(); ++k) {
    const Piece& p = batch[k];
    const DmaRequest& r = requests[p.request];
    ipu_dma_desc d;
    std::memcpy(&d, &ring[(tail_ + k) & mask], sizeof d);
    if (d.status == IPU_DESC_STATUS_OK) {
      const uint32_t done = std::min(d.bytes_done, p.length);
      if (channel_ == 1 && !r.mapped) std::memcpy(r.host.data() + p.offset, staging + p.staging, done);
      moved[p.request] += done;
      continue;
    }
    // The channel halted at this descriptor (nothing after it ran).
    DeviceErrorInfo info = read_error_registers(t_);
    if (d.status == IPU_DESC_STATUS_ERROR && (info.code != d.error || info.count > 1)) {
      // ERR_* hold the first error since reset: after an earlier one (a run error, or a DMA
      // error the channel recovered from) they describe that one, even when the codes are
      // equal. Name what the descriptor itself says instead.
      const uint32_t count = info.count;
      info = DeviceErrorInfo{};
      info.code = d.error;
      info.count = count;
      info.addr = d.dev_addr;
      if (d.target == IPU_DMA_TARGET_TILE) {
        info.ipu = d.ipu;
        if (d.tile_count == 1) info.tile = d.tile_first;
      }
      info.text = "this descriptor failed with " + std::string(device_error_name(d.error)) + " (" +
                  std::to_string(d.error) + "); the error registers (ERR_*) hold an earlier error, not this one";
    }
    program();
    static const char* kTargets[] = {"tile", "streaming memory", "stream"};
    const std::string where = "DMA channel " + std::to_string(channel_) + " (" +
                              (r.target < 3 ? kTargets[r.target] : "?") + ", " + std::to_string(p.length) +
                              " bytes at device address " + std::to_string(d.dev_addr) + "): ";
    if (d.status != IPU_DESC_STATUS_ERROR)
      throw DmaError(where + "the channel halted before this descriptor retired (status " + std::to_string(d.status) + ")",
                     info);
    throw_device_error(where, info);
  }
  tail_ = new_tail;
}

}  // namespace ipudrv::detail
