// /proc/self/pagemap (Linux, docs: admin-guide/mm/pagemap): one 64-bit entry per virtual
// page, bit 63 present, bit 62 swapped; readable by the process itself without privileges
// (only the frame numbers are hidden).
#include "iss/jit/touched_pages.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>

#include "iss/sram.h"

namespace ipusim::iss {

namespace {

int pagemap_fd() {
  static const int fd = [] {
    if (sysconf(_SC_PAGESIZE) != kTouchPage) return -1;  // another page size: read every page
    return open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
  }();
  return fd;
}

}  // namespace

void touched_pages(const Sram& sram, std::vector<uint8_t>& out) {
  const uint8_t* base = sram.data();
  const size_t pages = (size_t{sram.size()} + kTouchPage - 1) / kTouchPage;
  out.assign(pages, 1);
  const int fd = pagemap_fd();
  if (fd < 0) return;
  const size_t image_pages = std::min<size_t>(pages, sram.image_bytes() / kTouchPage);
  uint64_t entries[512];
  const uint64_t first = reinterpret_cast<uintptr_t>(base) / kTouchPage;
  for (size_t done = 0; done < pages;) {
    const size_t n = std::min<size_t>(std::size(entries), pages - done);
    const ssize_t got = pread(fd, entries, n * sizeof(uint64_t), static_cast<off_t>((first + done) * sizeof(uint64_t)));
    if (got != static_cast<ssize_t>(n * sizeof(uint64_t))) {
      std::fill(out.begin(), out.end(), 1);
      return;
    }
    for (size_t i = 0; i < n; ++i)
      out[done + i] = (entries[i] >> 62) != 0 || done + i < image_pages;  // present or swapped, or the image
    done += n;
  }
}

}  // namespace ipusim::iss
