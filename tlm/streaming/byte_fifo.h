// A bounded FIFO of bytes (one host stream, one direction). Storage grows with the bytes
// held, never beyond the capacity, so 128 idle FIFOs cost nothing.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <span>
#include <vector>

namespace ipusim::streaming {

class ByteFifo {
 public:
  explicit ByteFifo(uint32_t capacity = 0) : capacity_(capacity) {}

  uint32_t capacity() const { return capacity_; }
  uint32_t level() const { return uint32_t(bytes_.size() - head_); }
  uint32_t space() const { return capacity_ - level(); }

  // Appends as many bytes of `in` as fit; returns how many.
  uint32_t push(std::span<const uint8_t> in) {
    const uint32_t n = uint32_t(std::min<size_t>(in.size(), space()));
    if (head_ > 0 && head_ >= bytes_.size() / 2) compact();
    bytes_.insert(bytes_.end(), in.begin(), in.begin() + n);
    return n;
  }
  // Removes up to out.size() bytes into `out`; returns how many.
  uint32_t pop(std::span<uint8_t> out) {
    const uint32_t n = uint32_t(std::min<size_t>(out.size(), level()));
    std::memcpy(out.data(), bytes_.data() + head_, n);
    head_ += n;
    if (head_ == bytes_.size()) clear();
    return n;
  }
  // The bytes held, oldest first.
  std::span<const uint8_t> contents() const { return {bytes_.data() + head_, level()}; }
  void clear() {
    bytes_.clear();
    bytes_.shrink_to_fit();
    head_ = 0;
  }

 private:
  void compact() {
    bytes_.erase(bytes_.begin(), bytes_.begin() + std::ptrdiff_t(head_));
    head_ = 0;
  }

  uint32_t capacity_;
  std::vector<uint8_t> bytes_;
  size_t head_ = 0;
};

}  // namespace ipusim::streaming
