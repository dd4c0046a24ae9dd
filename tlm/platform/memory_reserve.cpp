#include "platform/memory_reserve.h"

#include <sys/mman.h>
#include <sys/resource.h>

#include <new>

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

void require_address_space(size_t bytes) {
  rlimit limit{};
  if (::getrlimit(RLIMIT_AS, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY) return;
  void* p = ::mmap(nullptr, bytes, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) throw std::bad_alloc();
  ::munmap(p, bytes);
}

}  // namespace ipusim::platform
