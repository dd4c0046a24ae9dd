// A program's loaded image as SRAM pages that every tile running it shares until it
// writes them (copy on write, done by the host's MMU: docs/iss.md "Shared image pages").
//
// The image (the program's segments at their SRAM offsets, zeros between and after them)
// is written into an in-memory file (memfd), kSramImageCopies times, one copy per SRAM
// slot of an arena chunk (sram_arena.h), each the size of a tile's SRAM; a tile's load
// maps its slot's copy privately over its SRAM (Sram::map_image). Reads of a page any
// tile reads share one host page; the first write to a page (the tile's store, a host's
// write, DMA) gives that tile its own copy, and no other tile sees it. Pages no one
// touches cost nothing, so neither the ISS's loads and stores (the interpreter's and
// the translator's direct host pointers) nor any other reader of SRAM changes: the
// bytes are the same as a copied image's.
//
// The kernel limits a process's mappings (VMAs; vm.max_map_count, 65530 by default).
// Neighbouring slots that map one image merge into one mapping (contiguous in memory and
// in the file), so a chunk of tiles running one program costs one: a POD64's 94,208
// tiles, 2,944. The arena's mappings are kept under shared_image_limit() (half the cap
// by default, leaving the rest to the process); a load that would pass it gets the image
// copied, as without sharing.
#pragma once

#include <cstdint>
#include <memory>

namespace ipusim::iss {

class Program;

// The copies of the image a shared image holds, and the SRAMs an arena chunk holds: the
// pages a tile reads are shared by every kSramImageCopies-th tile (resident once per
// copy), and a chunk of tiles running one program is one host mapping.
inline constexpr uint32_t kSramImageCopies = 32;

class SramImage {
 public:
  // `program`'s image for a tile of `sram_bytes`; nullptr when the host has no memfd (the
  // image is then copied). The segments must fit (load_image checks them first).
  static std::shared_ptr<const SramImage> make(const Program& program, uint32_t sram_bytes);
  ~SramImage();
  SramImage(const SramImage&) = delete;
  SramImage& operator=(const SramImage&) = delete;

  int fd() const { return fd_; }
  uint64_t id() const { return id_; }  // unique in the process, never 0
  uint32_t sram_bytes() const { return sram_bytes_; }
  uint32_t image_bytes() const { return image_bytes_; }  // offset of the image's end, page-rounded

 private:
  SramImage(int fd, uint32_t sram_bytes, uint32_t image_bytes);
  int fd_ = -1;
  uint64_t id_ = 0;
  uint32_t sram_bytes_ = 0, image_bytes_ = 0;
};

// How many host mappings the SRAMs may make (process-wide, sram_arena::mappings()) for
// an image still to be shared; set_shared_image_limit(0) turns sharing off (every image
// copied: the benchmark's "before"); the default is half of vm.max_map_count.
uint64_t shared_image_limit();
void set_shared_image_limit(uint64_t mappings);
// The SRAMs that map a shared image now, and the host mappings all SRAMs make.
uint64_t shared_images_mapped();
uint64_t sram_mappings();
// The tiles of `tiles` that share an image when every tile of a system loads one program
// (the others copy it): a chunk's tiles take one mapping.
uint64_t tiles_sharing(uint64_t tiles);

}  // namespace ipusim::iss
