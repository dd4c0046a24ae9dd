// Tile SRAM backed by an anonymous mapping (see sram.h).
#include "iss/sram.h"

#include <sys/mman.h>

#include <cerrno>
#include <cstring>
#include <new>
#include <stdexcept>
#include <string>

namespace ipusim::iss {

Sram::Sram(uint32_t bytes) : size_(bytes) {
  void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED)
    throw SramError("tile SRAM: mmap of " + std::to_string(bytes) + " bytes failed: " + std::strerror(errno));
  data_ = static_cast<uint8_t*>(p);
}

Sram::~Sram() {
  if (owned_) munmap(data_, size_);
}

void Sram::clear() {
  // MADV_DONTNEED on a private anonymous mapping makes the pages read back as zeros.
  if (madvise(data_, size_, MADV_DONTNEED) != 0) std::memset(data_, 0, size_);
}

}  // namespace ipusim::iss
