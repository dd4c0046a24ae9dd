// A program's loaded image as SRAM pages that every tile running it shares until it
// writes them (copy on write, done by the host's MMU: docs/iss.md "Shared image pages").
//
// The image (the program's segments at their SRAM offsets, zeros between and after them)
// is written once into an in-memory file (memfd) the size of a tile's SRAM; a tile's
// load maps that file privately over its SRAM (Sram::map_image). Reads of a page any
// tile reads share one host page; the first write to a page (the tile's store, a host's
// write, DMA) gives that tile its own copy, and no other tile sees it. Pages no one
// touches cost nothing, so neither the ISS's loads and stores (the interpreter's and
// the translator's direct host pointers) nor any other reader of SRAM changes: the
// bytes are the same as a copied image's.
//
// Each such mapping is one mapping (VMA) of the process, which the kernel limits
// (vm.max_map_count, 65530 by default); copied images merge into a few. So at most
// shared_image_limit() tiles share at a time (half the limit by default, leaving the
// rest to the process); the tiles beyond get the image copied, as without sharing.
#pragma once

#include <cstdint>
#include <memory>

namespace ipusim::iss {

class Program;

class SramImage {
 public:
  // `program`'s image for a tile of `sram_bytes`; nullptr when the host has no memfd (the
  // image is then copied). The segments must fit (load_image checks them first).
  static std::shared_ptr<const SramImage> make(const Program& program, uint32_t sram_bytes);
  ~SramImage();
  SramImage(const SramImage&) = delete;
  SramImage& operator=(const SramImage&) = delete;

  int fd() const { return fd_; }
  uint32_t sram_bytes() const { return sram_bytes_; }
  uint32_t image_bytes() const { return image_bytes_; }  // offset of the image's end, page-rounded

 private:
  SramImage(int fd, uint32_t sram_bytes, uint32_t image_bytes)
      : fd_(fd), sram_bytes_(sram_bytes), image_bytes_(image_bytes) {}
  int fd_ = -1;
  uint32_t sram_bytes_ = 0, image_bytes_ = 0;
};

// How many SRAMs may map a shared image at once (process-wide), and how many do now.
// set_shared_image_limit(0) turns sharing off (every image copied: the benchmark's
// "before"); the default is half of vm.max_map_count.
uint64_t shared_image_limit();
void set_shared_image_limit(uint64_t srams);
uint64_t shared_images_mapped();

}  // namespace ipusim::iss
