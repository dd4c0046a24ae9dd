// Tile SRAM: a slot of the SRAM arena, anonymous or with a shared image mapped over it
// (see sram.h; the mappings themselves are sram_arena.cpp's).
#include "iss/sram.h"

#include <sys/mman.h>

#include <atomic>
#include <cstring>

#include "iss/sram_image.h"

namespace ipusim::iss {

extern std::atomic<uint64_t> g_shared_images_mapped;  // sram_image.cpp

Sram::Sram(uint32_t bytes) : slot_(sram_arena::take(bytes)), size_(bytes) {}

Sram::~Sram() {
  if (!owned_) return;
  sram_arena::give_back(slot_);
  if (image_bytes_ != 0) g_shared_images_mapped.fetch_sub(1);
}

void Sram::clear() {
  if (image_bytes_ != 0) return unmap_image();
  if (image_bytes() != 0) {  // a borrow of an SRAM with an image: only its owner can unmap it
    std::memset(data(), 0, size_);
    return;
  }
  // MADV_DONTNEED on a private anonymous mapping makes the pages read back as zeros.
  if (madvise(data(), size_, MADV_DONTNEED) != 0) std::memset(data(), 0, size_);
}

bool Sram::map_image(const SramImage& image) {
  if (!owned_ || image.sram_bytes() != size_ || image.image_bytes() == 0) return false;
  if (image_bytes_ != 0) unmap_image();
  if (!sram_arena::map_image(slot_, image)) return false;
  g_shared_images_mapped.fetch_add(1);
  image_bytes_ = image.image_bytes();
  return true;
}

// The image's pages and the tile's copies go; the range is an anonymous (zero) mapping again.
void Sram::unmap_image() {
  sram_arena::unmap_image(slot_);
  image_bytes_ = 0;
  g_shared_images_mapped.fetch_sub(1);
}

}  // namespace ipusim::iss
