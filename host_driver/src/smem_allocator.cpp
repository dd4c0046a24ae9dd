// smem_allocator.h
#include "smem_allocator.h"

#include <string>

#include "ipudrv/errors.h"

namespace ipudrv::detail {

SmemAllocator::SmemAllocator(uint64_t size) : size_(size) {
  if (size_ > 0) free_[0] = size_;
}

uint64_t SmemAllocator::allocate(uint64_t bytes, uint64_t align) {
  if (bytes == 0) throw UsageError("alloc_smem: 0 bytes");
  if (align == 0 || (align & (align - 1)) != 0) throw UsageError("alloc_smem: alignment " + std::to_string(align) + " is not a power of 2");
  for (auto it = free_.begin(); it != free_.end(); ++it) {
    const uint64_t start = (it->first + align - 1) / align * align;
    const uint64_t end = it->first + it->second;
    if (start < it->first || start > end || end - start < bytes) continue;
    const uint64_t before = start - it->first, after = end - start - bytes;
    const uint64_t block = it->first;
    free_.erase(it);
    if (before) free_[block] = before;
    if (after) free_[start + bytes] = after;
    used_[start] = bytes;
    return start;
  }
  throw StreamingMemoryError("alloc_smem: no free range of " + std::to_string(bytes) + " bytes (aligned to " +
                             std::to_string(align) + ") in " + std::to_string(size_) + " bytes of streaming memory, " +
                             std::to_string(free_bytes()) + " free");
}

void SmemAllocator::release(uint64_t offset, uint64_t bytes) {
  auto it = used_.find(offset);
  if (it == used_.end() || it->second != bytes)
    throw UsageError("free_smem: [" + std::to_string(offset) + ", +" + std::to_string(bytes) + ") is not an allocation");
  used_.erase(it);
  auto [at, inserted] = free_.emplace(offset, bytes);
  // Coalesce with the neighbours.
  if (auto next = std::next(at); next != free_.end() && at->first + at->second == next->first) {
    at->second += next->second;
    free_.erase(next);
  }
  if (at != free_.begin()) {
    auto prev = std::prev(at);
    if (prev->first + prev->second == at->first) {
      prev->second += at->second;
      free_.erase(at);
    }
  }
}

uint64_t SmemAllocator::free_bytes() const {
  uint64_t n = 0;
  for (const auto& [o, b] : free_) n += b;
  return n;
}

}  // namespace ipudrv::detail
