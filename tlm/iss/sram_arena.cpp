// Tile SRAMs side by side in chunks, shared images mapped so neighbours merge (sram_arena.h).
#include "iss/sram_arena.h"

#include <fcntl.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>
#if __has_include(<linux/userfaultfd.h>)
#include <linux/userfaultfd.h>
#endif

#include <array>
#include <cerrno>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "iss/sram.h"
#include "iss/sram_image.h"

namespace ipusim::iss {

struct SramChunk {
  uint8_t* base = nullptr;
  uint32_t stride = 0;
  uint32_t number = 0;  // its place among the chunks of its stride (free slots taken lowest first)
  // The image each slot maps (its SramImage::id(); 0: anonymous).
  std::array<uint64_t, kSramImageCopies> image{};
};

namespace sram_arena {
namespace {

constexpr int kAnonymous = MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE;

uint64_t page_bytes() {
  static const uint64_t page = [] {
    const long p = sysconf(_SC_PAGESIZE);
    return p > 0 ? uint64_t(p) : uint64_t{4096};
  }();
  return page;
}

struct Stride {
  std::vector<std::unique_ptr<SramChunk>> chunks;  // never unmapped: address space only
  uint32_t fresh = kSramImageCopies;               // the last chunk's next never-used slot
  std::set<std::pair<uint32_t, uint32_t>> free;    // (chunk number, slot) given back
};

struct Arena {
  std::mutex mutex;
  std::map<uint32_t, Stride> by_stride;
  uint64_t runs = 0;  // sum over chunks of their runs of neighbouring slots in one state
};

Arena& arena() {
  static Arena* a = new Arena;  // SRAMs may outlive static destruction (never torn down)
  return *a;
}

// The runs `chunk` gains when slot `index` goes to state `next` (boundaries with the two
// neighbours only change).
int64_t runs_delta(const SramChunk& chunk, uint32_t index, uint64_t next) {
  const uint64_t now = chunk.image[index];
  int64_t delta = 0;
  const auto boundary = [&](uint32_t neighbour) {
    const uint64_t n = chunk.image[neighbour];
    delta += int64_t(n != next) - int64_t(n != now);
  };
  if (index > 0) boundary(index - 1);
  if (index + 1 < kSramImageCopies) boundary(index + 1);
  return delta;
}

void set_state(SramChunk& chunk, uint32_t index, uint64_t next) {
  Arena& a = arena();
  a.runs = uint64_t(int64_t(a.runs) + runs_delta(chunk, index, next));
  chunk.image[index] = next;
}

// A read fault in a file mapping maps the neighbouring pages the file holds in memory too
// (the kernel's fault-around, 64 KiB): every page of the image would then count in each
// tile's resident set, read or not. Linux skips fault-around in a range registered for
// userfaultfd write-protection; registering is all that is done (nothing is ever
// write-protected, so no fault reaches the descriptor, which stays open for the process's
// life). One descriptor for every range, so registered neighbours still merge. Where
// userfaultfd is refused, the pages are mapped around and still shared.
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

void map_anonymous(const SramSlot& slot, const char* why) {
  if (mmap(slot.data, slot.stride, PROT_READ | PROT_WRITE, kAnonymous | MAP_FIXED, -1, 0) == MAP_FAILED)
    throw SramError(std::string("tile SRAM: ") + why + ": " + std::strerror(errno));
}

}  // namespace

SramSlot take(uint32_t bytes) {
  const uint64_t page = page_bytes();
  const uint32_t stride = uint32_t((uint64_t{bytes} + page - 1) / page * page);
  Arena& a = arena();
  std::lock_guard lock(a.mutex);
  Stride& s = a.by_stride[stride];
  if (!s.free.empty()) {
    const auto [number, index] = *s.free.begin();
    s.free.erase(s.free.begin());
    SramChunk* chunk = s.chunks[number].get();
    return {chunk, chunk->base + uint64_t{index} * stride, stride, index};
  }
  if (s.fresh == kSramImageCopies) {
    const uint64_t chunk_bytes = uint64_t{stride} * kSramImageCopies;
    void* p = mmap(nullptr, chunk_bytes, PROT_READ | PROT_WRITE, kAnonymous, -1, 0);
    if (p == MAP_FAILED)
      throw SramError("tile SRAM: mmap of " + std::to_string(chunk_bytes) + " bytes (" +
                      std::to_string(kSramImageCopies) + " SRAMs of " + std::to_string(bytes) +
                      " bytes) failed: " + std::strerror(errno));
    auto chunk = std::make_unique<SramChunk>();
    chunk->base = static_cast<uint8_t*>(p);
    chunk->stride = stride;
    chunk->number = uint32_t(s.chunks.size());
    s.chunks.push_back(std::move(chunk));
    s.fresh = 0;
    ++a.runs;
  }
  SramChunk* chunk = s.chunks.back().get();
  const uint32_t index = s.fresh++;
  return {chunk, chunk->base + uint64_t{index} * stride, stride, index};
}

void give_back(const SramSlot& slot) {
  Arena& a = arena();
  std::lock_guard lock(a.mutex);
  // Anonymous again, whatever it held: the pages go back to the kernel.
  map_anonymous(slot, "releasing");
  set_state(*slot.chunk, slot.index, 0);
  a.by_stride[slot.stride].free.insert({slot.chunk->number, slot.index});
}

bool map_image(const SramSlot& slot, const SramImage& image) {
  Arena& a = arena();
  std::lock_guard lock(a.mutex);
  // A mapping grows the count by two at most (a slot in the middle of another state's run).
  if (a.runs + 2 > shared_image_limit()) return false;
  const off_t offset = off_t(uint64_t{slot.index} * slot.stride);
  void* p = mmap(slot.data, slot.stride, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_FIXED | MAP_NORESERVE, image.fd(),
                 offset);
  if (p == MAP_FAILED) {
    // A failed MAP_FIXED may have unmapped the range: map it anonymous (zeros) again.
    map_anonymous(slot, "remapping after a failed image mapping");
    set_state(*slot.chunk, slot.index, 0);
    return false;
  }
  no_fault_around(slot.data, slot.stride);
  set_state(*slot.chunk, slot.index, image.id());
  return true;
}

void unmap_image(const SramSlot& slot) {
  Arena& a = arena();
  std::lock_guard lock(a.mutex);
  map_anonymous(slot, "unmapping its image");
  set_state(*slot.chunk, slot.index, 0);
}

uint64_t mappings() {
  Arena& a = arena();
  std::lock_guard lock(a.mutex);
  return a.runs;
}

}  // namespace sram_arena

uint64_t sram_mappings() { return sram_arena::mappings(); }  // sram_image.h

}  // namespace ipusim::iss
