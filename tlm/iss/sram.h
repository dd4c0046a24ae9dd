// A tile's SRAM: an anonymous private mapping, so untouched pages cost no host memory
// (1472 tiles x 624 KiB with only code loaded stay far below the full size), and a
// reset returns the pages to the kernel instead of clearing them byte by byte. Its place
// is a slot of the SRAM arena (sram_arena.h): SRAMs made one after another are
// neighbours in memory, so their shared images merge into few host mappings.
// A loaded program's image may be mapped over it copy on write (map_image, sram_image.h):
// its pages are then shared with every tile running the same program until the tile
// writes them; the bytes read are the same as a copied image's.
// A Sram may also borrow another Sram's mapping (Sram::Borrow): a core (TileCore) boots
// over SRAM a host already wrote (load_image, or a device's DMA) and uses the tile's own
// mapping.
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>

#include "iss/sram_arena.h"

namespace ipusim::iss {

class SramImage;

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
  Sram(Borrow, Sram& other) : slot_(other.slot_), size_(other.size_), owned_(false), owner_(&other) {}
  ~Sram();
  Sram(const Sram&) = delete;
  Sram& operator=(const Sram&) = delete;

  uint8_t* data() { return slot_.data; }
  const uint8_t* data() const { return slot_.data; }
  uint32_t size() const { return size_; }
  void clear();  // every byte zero again, pages released (a mapped image too)

  // Maps `image` (of this SRAM's size) over the whole SRAM, copy on write, in place of
  // what it held. false (nothing changed) when the process's SRAM mappings are at their
  // limit (shared_image_limit()), the image is for another size, or the host refused the
  // mapping: the caller then copies the image. Owned SRAMs only.
  bool map_image(const SramImage& image);
  // The bytes from the start that a mapped image backs (page-rounded; 0: none): pages
  // there hold the image though no access may have touched them yet.
  uint32_t image_bytes() const { return owner_ ? owner_->image_bytes_ : image_bytes_; }

 private:
  void unmap_image();
  SramSlot slot_;
  uint32_t size_ = 0;
  bool owned_ = true;
  const Sram* owner_ = nullptr;  // Borrow: the SRAM whose mapping this is
  uint32_t image_bytes_ = 0;
};

}  // namespace ipusim::iss
