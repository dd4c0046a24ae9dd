// A stand-in for one board's host interface, for testing the driver, the transports and
// the server before the device model exists: a register file, tile SRAM, streaming
// memory and stream FIFOs behind the DeviceLink interface, honouring docs/host_if.md for
// DMA rings and descriptors, boot, states, interrupts and errors. It runs no firmware: a
// test scripts what each RUN does (halt, pause, fault, read or write a host stream).
// Doorbells and RUN take effect on the fake's own "model" thread, as in the real model.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <ipu/hostif_regs.h>

#include "host_if/device_link.h"

namespace fakedev {

struct Geometry {
  uint32_t ipus = 2, tiles_per_ipu = 4, sram_bytes = 64 * 1024, workers = 6;
  uint64_t smem_bytes = 1 << 20;
  uint32_t stream_fifo_bytes = 256;
  uint32_t board_index = 0;
  uint32_t system_ipus = 0;  // SYSTEM_IPUS; 0: `ipus` (a one-board system)
  uint32_t amp_f16_macs = 64, amp_f32_macs = 16;  // AMP_F16_MACS / AMP_F32_MACS
};

struct Step {
  enum class Kind { kHalt, kPause, kError, kStreamRead, kStreamWrite, kHang };
  Step() = default;
  explicit Step(Kind k, int32_t exit = 0) : kind(k), exit_code(exit) {}
  Kind kind = Kind::kHalt;
  int32_t exit_code = 0;
  uint32_t stream = 0, bytes = 0;        // kStreamRead: bytes the tiles read
  std::vector<uint8_t> data;             // kStreamWrite: bytes the tiles write
  uint32_t code = 0, ipu = 0xFFFFFFFF, tile = 0xFFFFFFFF, thread = 0xFFFFFFFF, pc = 0xFFFFFFFF;
  std::string text;                      // kError
};

class FakeDevice : public ipusim::host_if::DeviceLink {
 public:
  explicit FakeDevice(Geometry g = {});
  ~FakeDevice() override;

  uint32_t read32(uint32_t offset) override;
  void write32(uint32_t offset, uint32_t value) override;
  void map_host_memory(uint64_t bus_addr, std::span<std::byte> memory) override;
  void unmap_host_memory(uint64_t bus_addr) override;
  void set_interrupt_handler(InterruptHandler handler) override;

  // Test controls and observations (thread-safe).
  void script(std::vector<Step> steps);
  void set_run_delay(std::chrono::milliseconds d);
  std::vector<uint8_t> tile_bytes(uint32_t ipu, uint32_t tile, uint32_t addr, uint32_t n);
  std::vector<uint8_t> smem_bytes(uint64_t offset, uint32_t n);
  std::vector<uint8_t> consumed(uint32_t stream);  // bytes tiles read from a host stream
  struct Counters {
    uint64_t doorbells = 0, descriptors = 0, broadcast_descriptors = 0, resets = 0, interrupts = 0, boots = 0;
    uint32_t largest_descriptor = 0;
  };
  Counters counters();
  size_t mappings();
  uint32_t last_boot_entry();
  // Blocks until the model thread has done everything queued so far.
  void settle();

 private:
  struct Channel {
    uint64_t ring = 0;
    uint32_t size = 0, head = 0, tail = 0;
    bool halted = false;
  };
  uint32_t read_locked(uint32_t offset);
  void write_locked(uint32_t offset, uint32_t value, std::vector<std::function<void()>>& queued);
  void raise(uint32_t causes);  // with mu_ held: marks an interrupt to deliver
  void record_error(uint32_t code, uint32_t ipu, uint32_t tile, uint32_t thread, uint32_t pc, uint64_t addr,
                    const std::string& text);
  std::byte* host(uint64_t bus, uint64_t n);
  std::vector<uint8_t>* tile_mem(uint32_t ipu, uint32_t tile);
  void run_channel(unsigned ch);
  uint32_t do_descriptor(unsigned ch, ::ipu_dma_desc& d, uint64_t& bad_addr);
  void boot();
  void do_run();
  void reset_locked();
  void model_loop();
  void deliver_interrupts();

  Geometry g_;
  std::mutex mu_;
  std::map<uint64_t, std::span<std::byte>> host_;
  std::vector<std::vector<uint8_t>> tiles_;
  std::vector<uint8_t> smem_;
  std::vector<std::deque<uint8_t>> h2d_, d2h_;
  std::vector<std::vector<uint8_t>> consumed_;
  std::deque<Step> steps_;
  Channel ch_[2];
  uint32_t state_ = 0, run_supersteps_ = 0, exit_code_ = 0, supersteps_ = 0, booted_ = 0;
  uint64_t cycles_ = 0, instret_ = 0;
  uint32_t boot_[6] = {};
  std::vector<bool> booted_tiles_;
  uint32_t irq_status_ = 0, irq_mask_ = 0, pending_irqs_ = 0;
  uint32_t wait_id_ = 0, wait_bytes_ = 0, wait_dir_ = 0;
  uint32_t err_code_ = 0, err_ipu_ = ~0u, err_tile_ = ~0u, err_thread_ = ~0u, err_pc_ = ~0u, err_count_ = 0;
  uint64_t err_addr_ = 0;
  std::string err_text_;
  uint32_t last_entry_ = 0;
  Counters counters_;
  std::chrono::milliseconds run_delay_{0};
  InterruptHandler handler_;
  std::mutex handler_mu_;

  std::deque<std::function<void()>> work_;
  std::condition_variable work_cv_, idle_cv_;
  bool busy_ = false, quit_ = false;
  std::thread model_;
};

}  // namespace fakedev
