// A tile's SRAM: an anonymous private mapping, so untouched pages cost no host memory
// (1472 tiles x 624 KiB with only code loaded stay far below the full size), and a
// reset returns the pages to the kernel instead of clearing them byte by byte.
// A Sram may also borrow another Sram's mapping (Sram::Borrow): a core (TileCore) boots
// over SRAM a host already wrote (load_image, or a device's DMA) and uses the tile's own
// mapping.
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>

namespace ipusim::iss {

// The host could not map a tile's SRAM (out of address space or memory).
class SramError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class Sram {
 public:
  explicit Sram(uint32_t bytes);
  // A view of `other`'s bytes: same data, never unmapped by this object.
  struct Borrow {};
  Sram(Borrow, Sram& other) : data_(other.data_), size_(other.size_), owned_(false) {}
  ~Sram();
  Sram(const Sram&) = delete;
  Sram& operator=(const Sram&) = delete;

  uint8_t* data() { return data_; }
  const uint8_t* data() const { return data_; }
  uint32_t size() const { return size_; }
  void clear();  // every byte zero again, pages released

 private:
  uint8_t* data_ = nullptr;
  uint32_t size_ = 0;
  bool owned_ = true;
};

}  // namespace ipusim::iss
