// A large, mostly empty byte-addressed memory (the board's streaming memory: up to 256 GiB
// and beyond on a host with far less RAM). Plain C++, no SystemC.
//
// Storage comes in 4 KiB pages allocated on the first write that touches them; a read of
// bytes no write has touched returns zeros and allocates nothing. The page table is a hash
// map from page number to page, so its size follows the pages touched, not the capacity:
// 1 GiB touched anywhere in 256 GiB costs 262,144 pages plus ~64 bytes of table each.
//
// Every access is range-checked against size(): an access that does not lie wholly inside
// [0, size()) returns false and changes nothing.
//
// Thread safety: none; the gateway uses it from the SystemC kernel's thread only.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <unordered_map>
#include <vector>

namespace ipusim::streaming {

class SparseMemory {
 public:
  static constexpr uint64_t kPageBytes = 4096;

  explicit SparseMemory(uint64_t size_bytes) : size_(size_bytes) {}

  uint64_t size() const { return size_; }
  // True if [addr, addr + len) lies inside the memory (len 0: addr <= size()).
  bool contains(uint64_t addr, uint64_t len) const { return addr <= size_ && len <= size_ - addr; }

  bool read(uint64_t addr, std::span<uint8_t> out) const;
  bool write(uint64_t addr, std::span<const uint8_t> in);
  // Sets [addr, addr + len) to `value`. Filling with 0 frees nothing but allocates no page
  // that is not already there (untouched pages read as zeros anyway).
  bool fill(uint64_t addr, uint64_t len, uint8_t value);
  // Forgets every page: the whole memory reads zeros again.
  void clear() { pages_.clear(); }

  uint64_t pages_allocated() const { return pages_.size(); }
  // The allocated pages' numbers in increasing order, and a page's bytes (nullptr: not
  // allocated): a checkpoint's sparse copy (docs/checkpoints.md).
  std::vector<uint64_t> page_numbers() const;
  const uint8_t* page(uint64_t number) const {
    const Page* p = find(number);
    return p ? p->bytes : nullptr;
  }
  uint64_t bytes_allocated() const { return pages_.size() * kPageBytes; }

 private:
  struct Page {
    uint8_t bytes[kPageBytes];
  };
  const Page* find(uint64_t page) const;
  Page& touch(uint64_t page);

  uint64_t size_;
  std::unordered_map<uint64_t, std::unique_ptr<Page>> pages_;
};

}  // namespace ipusim::streaming
