// Host memory a board's DMA engine may touch: bus address ranges a host mapped through
// its DeviceLink (map_host_memory), each backed by bytes the host keeps alive until it
// unmaps them. Thread-safe: hosts map and unmap on their threads while the model's DMA
// channels copy on the model thread; a copy holds the lock (Access), so unmap waits
// for it and never frees memory under a transfer.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <span>

namespace ipusim::host_if {

class HostMemory {
 public:
  // Throws std::invalid_argument for an empty range, a range that wraps, or one that
  // overlaps a mapped one; unmap: for a bus address no range starts at.
  void map(uint64_t bus_addr, std::span<std::byte> memory);
  void unmap(uint64_t bus_addr);
  void unmap_all();

  // Holds the lock while the model reads or writes the bytes it found.
  class Access {
   public:
    explicit Access(HostMemory& m) : m_(m), lock_(m.mutex_) {}
    // The bytes [bus_addr, bus_addr + length) if one mapped range holds them all.
    std::byte* find(uint64_t bus_addr, uint64_t length) const;

   private:
    HostMemory& m_;
    std::lock_guard<std::mutex> lock_;
  };

 private:
  std::mutex mutex_;
  std::map<uint64_t, std::span<std::byte>> ranges_;  // by bus address
};

}  // namespace ipusim::host_if
