// Where tile SRAMs live in the host's address space, and the mappings they cost.
//
// SRAMs of one size are carved from chunks of kSramImageCopies slots, side by side, so
// that neighbouring tiles' SRAMs are neighbours in memory. A shared image
// (sram_image.h) holds kSramImageCopies copies of the program's image, one per slot,
// in the same order: slot j maps copy j, so the mappings of neighbouring slots that map
// one image are contiguous in the address space and in the file, and the kernel merges
// them into one mapping (VMA). A chunk whose tiles all run one program is then one
// mapping however many tiles share the image, and the process's mapping cap
// (vm.max_map_count) bounds chunks, not tiles.
//
// The arena counts the mappings its chunks make as runs of neighbouring slots in the
// same state (one image, or anonymous): the mappings the kernel keeps when it merges
// what it can. Sram (sram.h) is its only user.
#pragma once

#include <cstdint>

namespace ipusim::iss {

class SramImage;
struct SramChunk;  // sram_arena.cpp

// One SRAM's place: slot `index` of `chunk`, `stride` bytes (the size, page-rounded).
struct SramSlot {
  SramChunk* chunk = nullptr;
  uint8_t* data = nullptr;
  uint32_t stride = 0;
  uint32_t index = 0;
};

namespace sram_arena {

// A slot of `bytes` (zero, anonymous: untouched pages cost nothing). Throws SramError
// when the host refuses the address space.
SramSlot take(uint32_t bytes);
// The slot's pages released (an image unmapped first) and the slot free for another SRAM.
void give_back(const SramSlot& slot);
// Maps copy `slot.index` of `image` over the slot, private and copy on write. false
// (nothing changed) when the mappings would pass shared_image_limit() or the host
// refused; the caller copies the image then.
bool map_image(const SramSlot& slot, const SramImage& image);
// The slot anonymous (zeros) again, its image's pages and the tile's copies gone.
void unmap_image(const SramSlot& slot);
// The mappings the arena's chunks make now (merged neighbours counted once).
uint64_t mappings();

}  // namespace sram_arena
}  // namespace ipusim::iss
