// A minimal host for device tests: host memory mapped into a DeviceLink, a descriptor
// ring per DMA channel, and the steps a driver takes (DMA to / from tiles, load an ELF by
// DMA + BOOT, run, wait), all through BAR0 registers and descriptors.
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <cstring>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "host_if/device_link.h"
#include "ipu/hostif_regs.h"
#include "iss/program.h"

namespace ipusim::test {

class TestHost {
 public:
  static constexpr uint64_t kBus = 0x1'0000'0000ull;  // bus address of the host buffer
  static constexpr uint32_t kRing = 64;              // descriptors per ring
  static constexpr size_t kRingBytes = kRing * sizeof(ipu_dma_desc);

  TestHost(host_if::DeviceLink& dev, size_t data_bytes = 4 << 20) : dev_(dev), mem_(2 * kRingBytes + data_bytes) {
    dev_.map_host_memory(kBus, mem_);
    for (uint32_t ch = 0; ch < 2; ++ch) setup_ring(ch);
  }
  ~TestHost() { dev_.unmap_host_memory(kBus); }

  host_if::DeviceLink& dev() { return dev_; }
  uint32_t reg(uint32_t offset) { return dev_.read32(offset); }
  void set(uint32_t offset, uint32_t value) { dev_.write32(offset, value); }
  uint64_t reg64(uint32_t lo_offset) {
    const uint32_t lo = reg(lo_offset);
    return uint64_t(reg(lo_offset + 4)) << 32 | lo;
  }
  uint32_t state() { return reg(IPU_REG_STATUS) & IPU_STATUS_STATE_MASK; }
  std::string err_text() {
    std::string s;
    for (uint32_t off = 0; off < IPU_WIN_ERR_TEXT_BYTES; off += 4) {
      const uint32_t w = reg(IPU_WIN_ERR_TEXT + off);
      for (int i = 0; i < 4; ++i) {
        const char c = char(w >> (8 * i));
        if (c == 0) return s;
        s += c;
      }
    }
    return s;
  }

  void setup_ring(uint32_t ch) {
    const uint64_t ring = kBus + ch * kRingBytes;
    const uint32_t base = ch == 0 ? IPU_REG_DMA0_RING_LO : IPU_REG_DMA1_RING_LO;
    set(base, uint32_t(ring));
    set(base + (IPU_REG_DMA0_RING_HI - IPU_REG_DMA0_RING_LO), uint32_t(ring >> 32));
    set(base + (IPU_REG_DMA0_RING_SIZE - IPU_REG_DMA0_RING_LO), kRing);
    tail_[ch] = 0;
  }

  // Waits until `done` holds (polling), up to `seconds`.
  static bool wait_for(const std::function<bool()>& done, double seconds = 60) {
    const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
    while (!done()) {
      if (std::chrono::steady_clock::now() > end) return false;
      std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
    return true;
  }

  // Bytes of the data area (after the rings) and their bus address.
  std::byte* data(size_t offset = 0) { return mem_.data() + 2 * kRingBytes + offset; }
  uint64_t data_bus(size_t offset = 0) { return kBus + 2 * kRingBytes + offset; }
  size_t data_size() const { return mem_.size() - 2 * kRingBytes; }
  ipu_dma_desc& desc(uint32_t ch, uint32_t index) {
    return reinterpret_cast<ipu_dma_desc*>(mem_.data() + ch * kRingBytes)[index % kRing];
  }

  // Posts `d` on channel `ch` (status cleared) and rings the doorbell; returns its index.
  uint32_t post(uint32_t ch, ipu_dma_desc d) {
    d.status = d.error = d.bytes_done = 0;
    const uint32_t index = tail_[ch]++;
    desc(ch, index) = d;
    set(ch == 0 ? IPU_REG_DMA0_TAIL : IPU_REG_DMA1_TAIL, tail_[ch]);
    return index;
  }
  // Posts several descriptors with one doorbell (the device sees them together); returns
  // the last one's index.
  uint32_t post_batch(uint32_t ch, const std::vector<ipu_dma_desc>& ds) {
    for (ipu_dma_desc d : ds) {
      d.status = d.error = d.bytes_done = 0;
      desc(ch, tail_[ch]++) = d;
    }
    set(ch == 0 ? IPU_REG_DMA0_TAIL : IPU_REG_DMA1_TAIL, tail_[ch]);
    return tail_[ch] - 1;
  }
  // Waits until descriptor `index` of `ch` retired; returns its status.
  uint32_t wait_desc(uint32_t ch, uint32_t index) {
    const uint32_t head = ch == 0 ? IPU_REG_DMA0_HEAD : IPU_REG_DMA1_HEAD;
    EXPECT_TRUE(wait_for([&] { return reg(head) - index - 1 < 0x8000'0000u; })) << "DMA channel " << ch << " stuck";
    return desc(ch, index).status;
  }

  static ipu_dma_desc tile_desc(uint64_t host, uint32_t addr, uint32_t length, uint32_t ipu, uint32_t first,
                                uint32_t count = 1) {
    ipu_dma_desc d{};
    d.host_addr = host;
    d.dev_addr = addr;
    d.length = length;
    d.target = IPU_DMA_TARGET_TILE;
    d.ipu = ipu;
    d.tile_first = first;
    d.tile_count = count;
    return d;
  }

  // Host -> tiles [first, first + count) of `ipu`, through the data area at `offset`.
  void write_tiles(uint32_t ipu, uint32_t first, uint32_t count, uint32_t addr, const void* bytes, uint32_t length,
                   size_t offset = 0) {
    std::memcpy(data(offset), bytes, length);
    const uint32_t i = post(0, tile_desc(data_bus(offset), addr, length, ipu, first, count));
    ASSERT_EQ(wait_desc(0, i), IPU_DESC_STATUS_OK) << err_text();
    ASSERT_EQ(desc(0, i).bytes_done, length);
  }
  std::vector<uint8_t> read_tile(uint32_t ipu, uint32_t tile, uint32_t addr, uint32_t length, size_t offset = 0) {
    const uint32_t i = post(1, tile_desc(data_bus(offset), addr, length, ipu, tile));
    EXPECT_EQ(wait_desc(1, i), IPU_DESC_STATUS_OK) << err_text();
    std::vector<uint8_t> out(length);
    std::memcpy(out.data(), data(offset), length);
    return out;
  }

  // What a driver does with an ELF: one broadcast descriptor per segment (file bytes,
  // then zeros), then BOOT.
  void load(const iss::Program& p, uint32_t ipu, uint32_t first, uint32_t count) {
    for (const iss::Segment& s : p.segments()) {
      std::vector<uint8_t> image(s.mem_size, 0);
      std::memcpy(image.data(), s.bytes.data(), s.bytes.size());
      write_tiles(ipu, first, count, s.vaddr, image.data(), s.mem_size);
    }
    boot(ipu, first, count, p.entry(), p.code_begin(), p.code_end() - p.code_begin());
  }
  void boot(uint32_t ipu, uint32_t first, uint32_t count, uint32_t entry, uint32_t code_base, uint32_t code_size) {
    set(IPU_REG_BOOT_IPU, ipu);
    set(IPU_REG_BOOT_TILE_FIRST, first);
    set(IPU_REG_BOOT_TILE_COUNT, count);
    set(IPU_REG_BOOT_ENTRY, entry);
    set(IPU_REG_BOOT_CODE_BASE, code_base);
    set(IPU_REG_BOOT_CODE_SIZE, code_size);
    set(IPU_REG_BOOT_CMD, IPU_BOOT_CMD_GO_MASK);
  }

  // RUN for `supersteps` (0: to the end); waits for the run to end; returns STATE.
  uint32_t run(uint32_t supersteps = 0, double seconds = 60) {
    set(IPU_REG_RUN_SUPERSTEPS, supersteps);
    set(IPU_REG_CTRL, IPU_CTRL_RUN_MASK);
    EXPECT_TRUE(wait_for([&] { return state() != IPU_STATE_RUNNING; }, seconds)) << "run did not end";
    return state();
  }
  void reset() {
    set(IPU_REG_CTRL, IPU_CTRL_RESET_MASK);
    for (uint32_t ch = 0; ch < 2; ++ch) setup_ring(ch);
  }

 private:
  host_if::DeviceLink& dev_;
  std::vector<std::byte> mem_;
  uint32_t tail_[2] = {0, 0};
};

}  // namespace ipusim::test
