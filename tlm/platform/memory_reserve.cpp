#include "platform/memory_reserve.h"

#include <sys/mman.h>

namespace ipusim::platform {

// mmap, not malloc: free() may keep a block in the heap (glibc raises its mmap threshold
// after large frees), where it would not count as address space given back.
MemoryReserve::MemoryReserve(size_t bytes) {
  void* p = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p != MAP_FAILED) {
    base_ = p;
    bytes_ = bytes;
  }
}

void MemoryReserve::release() {
  if (base_) ::munmap(base_, bytes_);
  base_ = nullptr;
}

}  // namespace ipusim::platform
