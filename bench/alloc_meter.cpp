// The replaceable global operator new / delete of a benchmark that links this file
// (alloc_meter.h). malloc_usable_size() gives each block's size at delete without a
// header of our own, so the figures are the allocator's, not a model of it.
#include "alloc_meter.h"

#include <malloc.h>

#include <atomic>
#include <cstdlib>
#include <new>

namespace ipusim::bench {
namespace {

std::atomic<size_t> held{0};
std::atomic<size_t> most{0};

// glibc's chunk header: one size_t before the usable bytes.
size_t cost(void* p) { return malloc_usable_size(p) + sizeof(size_t); }

void* take(size_t n) {
  void* p = std::malloc(n ? n : 1);
  if (!p) throw std::bad_alloc();
  const size_t now = held.fetch_add(cost(p), std::memory_order_relaxed) + cost(p);
  size_t seen = most.load(std::memory_order_relaxed);
  while (now > seen && !most.compare_exchange_weak(seen, now, std::memory_order_relaxed)) {
  }
  return p;
}

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

// Aligned forms are not replaced: nothing measured here over-aligns.
void* operator new(size_t n) { return ipusim::bench::take(n); }
void* operator new[](size_t n) { return ipusim::bench::take(n); }
void operator delete(void* p) noexcept { ipusim::bench::give(p); }
void operator delete[](void* p) noexcept { ipusim::bench::give(p); }
void operator delete(void* p, size_t) noexcept { ipusim::bench::give(p); }
void operator delete[](void* p, size_t) noexcept { ipusim::bench::give(p); }
