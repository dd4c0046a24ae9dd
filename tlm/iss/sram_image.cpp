// A program's image in a memfd, mapped copy-on-write over tiles' SRAM (see sram_image.h).
#include "iss/sram_image.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <fstream>

#include "iss/program.h"
#include "iss/tile_core.h"  // kSramBase

namespace ipusim::iss {

namespace {

uint64_t page_bytes() {
  static const uint64_t page = [] {
    const long p = sysconf(_SC_PAGESIZE);
    return p > 0 ? uint64_t(p) : uint64_t{4096};
  }();
  return page;
}

uint64_t default_limit() {
  uint64_t max_maps = 65530;  // the kernel's default
  std::ifstream in("/proc/sys/vm/max_map_count");
  in >> max_maps;
  return max_maps / 2;
}

std::atomic<uint64_t>& limit() {
  static std::atomic<uint64_t> value{default_limit()};
  return value;
}

bool write_all(int fd, const uint8_t* bytes, size_t size, off_t offset) {
  while (size > 0) {
    const ssize_t n = pwrite(fd, bytes, size, offset);
    if (n <= 0) return false;
    bytes += n;
    size -= size_t(n);
    offset += n;
  }
  return true;
}

}  // namespace

std::atomic<uint64_t> g_shared_images_mapped{0};  // Sram::map_image / unmap (sram.cpp)

std::shared_ptr<const SramImage> SramImage::make(const Program& program, uint32_t sram_bytes) {
  const int fd = memfd_create("ipusim-sram-image", MFD_CLOEXEC);
  if (fd < 0) return nullptr;
  const uint64_t page = page_bytes();
  const uint64_t stride = (uint64_t{sram_bytes} + page - 1) / page * page;  // an arena slot's
  uint64_t end = 0;
  bool ok = ftruncate(fd, off_t(stride * kSramImageCopies)) == 0;
  for (uint32_t copy = 0; copy < kSramImageCopies; ++copy)
    for (const Segment& s : program.segments()) {
      if (!ok || s.bytes.empty()) continue;
      const uint64_t offset = s.vaddr - kSramBase;
      ok = write_all(fd, s.bytes.data(), s.bytes.size(), off_t(copy * stride + offset));
      end = std::max(end, offset + s.bytes.size());
    }
  if (!ok) {
    close(fd);
    return nullptr;
  }
  const uint64_t image_bytes = std::min(stride, (end + page - 1) / page * page);
  return std::shared_ptr<const SramImage>(new SramImage(fd, sram_bytes, uint32_t(image_bytes)));
}

SramImage::SramImage(int fd, uint32_t sram_bytes, uint32_t image_bytes)
    : fd_(fd), sram_bytes_(sram_bytes), image_bytes_(image_bytes) {
  static std::atomic<uint64_t> next_id{1};
  id_ = next_id.fetch_add(1);
}

SramImage::~SramImage() {
  if (fd_ >= 0) close(fd_);  // the SRAMs that map it keep its pages
}

uint64_t shared_image_limit() { return limit().load(); }
void set_shared_image_limit(uint64_t mappings) { limit().store(mappings); }
uint64_t shared_images_mapped() { return g_shared_images_mapped.load(); }

uint64_t tiles_sharing(uint64_t tiles) {
  const uint64_t limit = shared_image_limit();
  if (limit < 2) return 0;
  return std::min(tiles, (limit - 1) * uint64_t{kSramImageCopies});
}

}  // namespace ipusim::iss
