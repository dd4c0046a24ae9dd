// The one interface the driver reaches a device through: BAR0 register reads and writes,
// host memory the device's DMA may touch, and the interrupt. Implementations:
// inproc_transport.cpp (a DeviceLink in this process) and socket_transport.cpp (a
// socket to `ipusim serve`, host memory shared by memfd).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "host_if/device_link.h"
#include "ipudrv/device.h"

namespace ipudrv::detail {

// Host memory the device can reach at bus addresses [bus_addr, bus_addr + size).
// Destroying it unmaps it from the device first.
class HostMemory {
 public:
  virtual ~HostMemory() = default;
  virtual std::span<std::byte> bytes() = 0;
  virtual uint64_t bus_addr() const = 0;
};

// HostMemory mmap'd into this process: a transport's memory sets data_ once its mmap
// succeeded and unmaps the range from the device in its own destructor; this one then
// munmaps (also when the derived constructor throws after the mmap).
class MappedHostMemory : public HostMemory {
 public:
  std::span<std::byte> bytes() override { return {data_, size_}; }
  uint64_t bus_addr() const override { return bus_; }

 protected:
  MappedHostMemory(uint64_t bus, size_t bytes) : bus_(bus), size_(bytes) {}
  ~MappedHostMemory() override;

  const uint64_t bus_;
  const size_t size_;
  std::byte* data_ = nullptr;
};

// Where the device sends the tiles' console (host_if/device_link.h, set_console_handler).
enum class ConsoleRoute {
  kDevice,   // the device's own output (the model's stdout / IPUSIM_CONSOLE, the server's)
  kDrop,     // nowhere: dropped and counted (the driver holds it; no run() collects)
  kCollect,  // queued for take_console(); a full queue makes the simulation wait
};

// What take_console() found.
struct ConsoleTake {
  std::vector<ConsoleLine> lines;  // oldest first
  uint64_t dropped = 0;            // lines dropped so far (kDrop)
  bool more = false;               // lines still wait after these
};

class Transport {
 public:
  virtual ~Transport() = default;
  // Throw TransportError when the link to the device fails.
  virtual uint32_t read32(uint32_t offset) = 0;
  virtual void write32(uint32_t offset, uint32_t value) = 0;
  // `bytes` rounded up to pages; zero-filled.
  virtual std::unique_ptr<HostMemory> alloc_host_memory(size_t bytes) = 0;
  // The caller's own memory made reachable by the device while the result lives, so a
  // transfer needs no copy (in process: the model reads and writes it directly); null
  // when the transport cannot (a socket's server reaches only memory shared with it).
  virtual std::unique_ptr<HostMemory> map_caller_memory(std::span<std::byte> /*bytes*/) { return nullptr; }
  // Called on a transport or device thread on each interrupt; must not call back into
  // the transport. Empty: none.
  virtual void set_interrupt_handler(std::function<void()> handler) = 0;
  // The device's profiling side channel (host_if/device_link.h): the superstep trace of
  // the next runs (UsageError if the device cannot write `path`), and IPU `ipu`'s
  // per-superstep totals as of the last stop.
  virtual void set_trace_file(const std::string& path) = 0;
  virtual std::vector<SuperstepStats> supersteps(uint32_t ipu) = 0;
  // The system's IPU-Links (host_if/device_link.h): fault injection for the next runs
  // (UsageError naming a bad item) and their figures as of the last stop.
  virtual void set_link_faults(const std::string& items) = 0;
  virtual std::vector<LinkStats> link_stats() = 0;
  // The system's console (any board's transport reaches it; the driver uses board 0's):
  // its route; `pending` is called on a transport or device thread when lines wait (it
  // must not call back into the transport); the lines waiting, a page at a time. IPUs are
  // the system's, which are the device's.
  virtual void set_console(ConsoleRoute route) = 0;
  virtual void set_console_pending(std::function<void()> pending) = 0;
  virtual ConsoleTake take_console() = 0;
  // "in-process m2000.yaml board 1", "unix:/tmp/ipu.sock".
  virtual std::string describe() const = 0;
  // The device runs in this process (DeviceInfo::in_process).
  virtual bool in_process() const { return false; }
};

// Page-granular bus addresses for host memory, unique in the process and never reused,
// so a late DMA to a freed range fails with DMA_HOST_ADDR instead of hitting new memory,
// and two sessions on one in-process link never collide.
uint64_t allocate_bus_range(size_t bytes);

size_t round_to_pages(size_t bytes);

// A 64-bit _LO/_HI register pair. _LO is read first, in its own statement: reading _LO
// latches _HI (registers.yaml), and the order of the operands of `|` is unspecified.
uint64_t read64(Transport& t, uint32_t lo_offset, uint32_t hi_offset);

}  // namespace ipudrv::detail
