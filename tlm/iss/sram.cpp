// Tile SRAM backed by an anonymous mapping, or a shared image mapped over it (see sram.h).
#include "iss/sram.h"

#include <fcntl.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>
#if __has_include(<linux/userfaultfd.h>)
#include <linux/userfaultfd.h>
#endif

#include <atomic>
#include <cerrno>
#include <cstring>
#include <new>
#include <stdexcept>
#include <string>

#include "iss/sram_image.h"

namespace ipusim::iss {

extern std::atomic<uint64_t> g_shared_images_mapped;  // sram_image.cpp

namespace {

constexpr int kAnonymous = MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE;

// One more shared image, unless the limit is reached.
bool take_image_slot() {
  uint64_t now = g_shared_images_mapped.load();
  do {
    if (now >= shared_image_limit()) return false;
  } while (!g_shared_images_mapped.compare_exchange_weak(now, now + 1));
  return true;
}

// A read fault in a file mapping maps the neighbouring pages the file holds in memory too
// (the kernel's fault-around, 64 KiB): every page of the image would then count in each
// tile's resident set, read or not. Linux skips fault-around in a range registered for
// userfaultfd write-protection; registering is all that is done (nothing is ever
// write-protected, so no fault reaches the descriptor, which stays open for the process's
// life). Where userfaultfd is refused, the pages are mapped around and still shared.
void no_fault_around(uint8_t* data, uint32_t size) {
#if defined(__linux__) && defined(UFFD_USER_MODE_ONLY) && defined(UFFD_FEATURE_WP_HUGETLBFS_SHMEM)
  static const int uffd = [] {
    const int fd = int(syscall(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK | UFFD_USER_MODE_ONLY));
    if (fd < 0) return -1;
    uffdio_api api{};
    api.api = UFFD_API;
    api.features = UFFD_FEATURE_WP_HUGETLBFS_SHMEM;
    if (ioctl(fd, UFFDIO_API, &api) != 0) {
      close(fd);
      return -1;
    }
    return fd;
  }();
  if (uffd < 0) return;
  uffdio_register reg{};
  reg.range.start = reinterpret_cast<uintptr_t>(data);
  reg.range.len = size;
  reg.mode = UFFDIO_REGISTER_MODE_WP;
  ioctl(uffd, UFFDIO_REGISTER, &reg);
#else
  (void)data;
  (void)size;
#endif
}

}  // namespace

Sram::Sram(uint32_t bytes) : size_(bytes) {
  void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, kAnonymous, -1, 0);
  if (p == MAP_FAILED)
    throw SramError("tile SRAM: mmap of " + std::to_string(bytes) + " bytes failed: " + std::strerror(errno));
  data_ = static_cast<uint8_t*>(p);
}

Sram::~Sram() {
  if (!owned_) return;
  munmap(data_, size_);
  if (image_bytes_ != 0) g_shared_images_mapped.fetch_sub(1);
}

void Sram::clear() {
  if (image_bytes_ != 0) return unmap_image();
  if (image_bytes() != 0) {  // a borrow of an SRAM with an image: only its owner can unmap it
    std::memset(data_, 0, size_);
    return;
  }
  // MADV_DONTNEED on a private anonymous mapping makes the pages read back as zeros.
  if (madvise(data_, size_, MADV_DONTNEED) != 0) std::memset(data_, 0, size_);
}

bool Sram::map_image(const SramImage& image) {
  if (!owned_ || image.sram_bytes() != size_ || image.image_bytes() == 0) return false;
  if (image_bytes_ != 0) unmap_image();
  if (!take_image_slot()) return false;
  void* p = mmap(data_, size_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_FIXED | MAP_NORESERVE, image.fd(), 0);
  if (p == MAP_FAILED) {
    // A failed MAP_FIXED may have unmapped the range: map it anonymous (zeros) again.
    g_shared_images_mapped.fetch_sub(1);
    if (mmap(data_, size_, PROT_READ | PROT_WRITE, kAnonymous | MAP_FIXED, -1, 0) == MAP_FAILED)
      throw SramError(std::string("tile SRAM: remapping after a failed image mapping: ") + std::strerror(errno));
    return false;
  }
  no_fault_around(data_, size_);
  image_bytes_ = image.image_bytes();
  return true;
}

// The image's pages and the tile's copies go; the range is an anonymous (zero) mapping again.
void Sram::unmap_image() {
  if (mmap(data_, size_, PROT_READ | PROT_WRITE, kAnonymous | MAP_FIXED, -1, 0) == MAP_FAILED)
    throw SramError(std::string("tile SRAM: unmapping its image: ") + std::strerror(errno));
  image_bytes_ = 0;
  g_shared_images_mapped.fetch_sub(1);
}

}  // namespace ipusim::iss
