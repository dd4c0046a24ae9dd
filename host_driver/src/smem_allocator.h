// First-fit allocator over the board's streaming memory [0, size). Host-side
// bookkeeping only: the device knows nothing of allocations.
#pragma once

#include <cstdint>
#include <map>

namespace ipudrv::detail {

class SmemAllocator {
 public:
  explicit SmemAllocator(uint64_t size);
  // Throws UsageError (bytes 0, align not a power of 2) or StreamingMemoryError (no room).
  uint64_t allocate(uint64_t bytes, uint64_t align);
  // Throws UsageError unless [offset, offset + bytes) is exactly one live allocation.
  void release(uint64_t offset, uint64_t bytes);
  uint64_t free_bytes() const;

 private:
  uint64_t size_;
  std::map<uint64_t, uint64_t> free_;  // offset -> bytes, coalesced
  std::map<uint64_t, uint64_t> used_;  // offset -> bytes
};

}  // namespace ipudrv::detail
