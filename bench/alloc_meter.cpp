// The replaceable global operator new / delete of a benchmark that links this file
// (alloc_meter.h). malloc_usable_size() gives each block's size at delete without a
// header of our own, so the figures are the allocator's, not a model of it.
#include "alloc_meter.h"

#include <malloc.h>

#include <atomic>
#include <algorithm>
#include <cstdlib>
#include <new>

namespace ipusim::bench {
namespace {

std::atomic<size_t> held{0};
std::atomic<size_t> most{0};

// glibc's chunk header: one size_t before the usable bytes.
size_t cost(void* p) { return malloc_usable_size(p) + sizeof(size_t); }

void* counted(void* p) {
  if (!p) throw std::bad_alloc();
  const size_t now = held.fetch_add(cost(p), std::memory_order_relaxed) + cost(p);
  size_t seen = most.load(std::memory_order_relaxed);
  while (now > seen && !most.compare_exchange_weak(seen, now, std::memory_order_relaxed)) {
  }
  return p;
}

void* take(size_t n) { return counted(std::malloc(n ? n : 1)); }

}  // namespace

// aligned_alloc's blocks are freed with free() and sized by malloc_usable_size() alike.
void* take_aligned(size_t n, size_t align) {
  return counted(std::aligned_alloc(align, (std::max<size_t>(n, 1) + align - 1) / align * align));
}

namespace {

void give(void* p) {
  if (!p) return;
  held.fetch_sub(cost(p), std::memory_order_relaxed);
  std::free(p);
}

}  // namespace

size_t AllocMeter::current() { return held.load(std::memory_order_relaxed); }
size_t AllocMeter::peak() { return most.load(std::memory_order_relaxed); }
void AllocMeter::reset_peak() { most.store(held.load(std::memory_order_relaxed), std::memory_order_relaxed); }

}  // namespace ipusim::bench

void* operator new(size_t n) { return ipusim::bench::take(n); }
void* operator new[](size_t n) { return ipusim::bench::take(n); }
void operator delete(void* p) noexcept { ipusim::bench::give(p); }
void operator delete[](void* p) noexcept { ipusim::bench::give(p); }
void operator delete(void* p, size_t) noexcept { ipusim::bench::give(p); }
void operator delete[](void* p, size_t) noexcept { ipusim::bench::give(p); }
// Over-aligned types (a tile core's state) come through these.
void* operator new(size_t n, std::align_val_t a) { return ipusim::bench::take_aligned(n, size_t(a)); }
void* operator new[](size_t n, std::align_val_t a) { return ipusim::bench::take_aligned(n, size_t(a)); }
void operator delete(void* p, std::align_val_t) noexcept { ipusim::bench::give(p); }
void operator delete[](void* p, std::align_val_t) noexcept { ipusim::bench::give(p); }
void operator delete(void* p, size_t, std::align_val_t) noexcept { ipusim::bench::give(p); }
void operator delete[](void* p, size_t, std::align_val_t) noexcept { ipusim::bench::give(p); }
