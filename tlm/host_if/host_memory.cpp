#include "host_if/host_memory.h"

#include <stdexcept>

#include <fmt/format.h>

namespace ipusim::host_if {

void HostMemory::map(uint64_t bus_addr, std::span<std::byte> memory) {
  if (memory.empty()) throw std::invalid_argument(fmt::format("map_host_memory: empty range at bus address 0x{:x}", bus_addr));
  if (bus_addr + memory.size() < bus_addr)
    throw std::invalid_argument(fmt::format("map_host_memory: range at 0x{:x} of {} bytes wraps", bus_addr, memory.size()));
  std::lock_guard<std::mutex> lock(mutex_);
  const uint64_t end = bus_addr + memory.size();
  auto next = ranges_.lower_bound(bus_addr);
  if (next != ranges_.end() && next->first < end)
    throw std::invalid_argument(fmt::format("map_host_memory: 0x{:x}..0x{:x} overlaps the range mapped at 0x{:x}",
                                            bus_addr, end, next->first));
  if (next != ranges_.begin()) {
    auto prev = std::prev(next);
    if (prev->first + prev->second.size() > bus_addr)
      throw std::invalid_argument(fmt::format("map_host_memory: 0x{:x}..0x{:x} overlaps the range mapped at 0x{:x}",
                                              bus_addr, end, prev->first));
  }
  ranges_.emplace(bus_addr, memory);
}

void HostMemory::unmap(uint64_t bus_addr) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (ranges_.erase(bus_addr) == 0)
    throw std::invalid_argument(fmt::format("unmap_host_memory: no range is mapped at bus address 0x{:x}", bus_addr));
}

void HostMemory::unmap_all() {
  std::lock_guard<std::mutex> lock(mutex_);
  ranges_.clear();
}

std::byte* HostMemory::Access::find(uint64_t bus_addr, uint64_t length) const {
  auto it = m_.ranges_.upper_bound(bus_addr);
  if (it == m_.ranges_.begin()) return nullptr;
  --it;
  const uint64_t offset = bus_addr - it->first;
  if (offset > it->second.size() || it->second.size() - offset < length) return nullptr;
  return it->second.data() + offset;
}

}  // namespace ipusim::host_if
