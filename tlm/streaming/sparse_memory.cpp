#include "streaming/sparse_memory.h"

#include <algorithm>
#include <cstring>

namespace ipusim::streaming {

const SparseMemory::Page* SparseMemory::find(uint64_t page) const {
  const auto it = pages_.find(page);
  return it == pages_.end() ? nullptr : it->second.get();
}

std::vector<uint64_t> SparseMemory::page_numbers() const {
  std::vector<uint64_t> out;
  out.reserve(pages_.size());
  for (const auto& [number, page] : pages_) out.push_back(number);
  std::sort(out.begin(), out.end());
  return out;
}

SparseMemory::Page& SparseMemory::touch(uint64_t page) {
  std::unique_ptr<Page>& slot = pages_[page];
  if (!slot) slot.reset(new Page{});  // value-initialised: zeros
  return *slot;
}

bool SparseMemory::read(uint64_t addr, std::span<uint8_t> out) const {
  if (!contains(addr, out.size())) return false;
  uint64_t done = 0;
  while (done < out.size()) {
    const uint64_t a = addr + done, offset = a % kPageBytes;
    const uint64_t n = std::min<uint64_t>(kPageBytes - offset, out.size() - done);
    if (const Page* p = find(a / kPageBytes))
      std::memcpy(out.data() + done, p->bytes + offset, n);
    else
      std::memset(out.data() + done, 0, n);
    done += n;
  }
  return true;
}

bool SparseMemory::write(uint64_t addr, std::span<const uint8_t> in) {
  if (!contains(addr, in.size())) return false;
  uint64_t done = 0;
  while (done < in.size()) {
    const uint64_t a = addr + done, offset = a % kPageBytes;
    const uint64_t n = std::min<uint64_t>(kPageBytes - offset, in.size() - done);
    std::memcpy(touch(a / kPageBytes).bytes + offset, in.data() + done, n);
    done += n;
  }
  return true;
}

bool SparseMemory::fill(uint64_t addr, uint64_t len, uint8_t value) {
  if (!contains(addr, len)) return false;
  uint64_t done = 0;
  while (done < len) {
    const uint64_t a = addr + done, offset = a % kPageBytes;
    const uint64_t n = std::min<uint64_t>(kPageBytes - offset, len - done);
    if (value != 0) {
      std::memset(touch(a / kPageBytes).bytes + offset, value, n);
    } else if (Page* p = const_cast<Page*>(find(a / kPageBytes))) {
      std::memset(p->bytes + offset, 0, n);
    }
    done += n;
  }
  return true;
}

}  // namespace ipusim::streaming
