// Helpers shared by the transports.
#include "transport.h"

#include <sys/mman.h>

#include <atomic>

#include "ipudrv/errors.h"

namespace ipudrv::detail {

size_t round_to_pages(size_t bytes) {
  constexpr size_t kPage = 4096;
  if (bytes == 0) bytes = 1;
  return (bytes + kPage - 1) / kPage * kPage;
}

uint64_t allocate_bus_range(size_t bytes) {
  // Leave a guard page between ranges so an overrun is a DMA_HOST_ADDR error.
  static std::atomic<uint64_t> next{uint64_t{1} << 32};  // away from 0: a null host_addr never maps
  const uint64_t span = round_to_pages(bytes) + 4096;
  return next.fetch_add(span);
}

MappedHostMemory::~MappedHostMemory() {
  if (data_) ::munmap(data_, size_);
}

uint64_t read64(Transport& t, uint32_t lo_offset, uint32_t hi_offset) {
  const uint64_t lo = t.read32(lo_offset);
  return lo | uint64_t(t.read32(hi_offset)) << 32;
}

}  // namespace ipudrv::detail
