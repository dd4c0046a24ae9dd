// Which pages of a tile's SRAM mapping were ever touched (lockstep.cpp). An untouched page
// of an anonymous mapping reads as zeros, and reading it maps it: on hosts without a
// shared zero page (some VMs) a comparison that read every page would make every tile's
// SRAM resident twice over. ISS-internal.
#pragma once

#include <cstdint>
#include <vector>

namespace ipusim::iss {

inline constexpr uint32_t kTouchPage = 4096;  // the granule the lockstep compares and copies

class Sram;

// out[i] = whether page i of `sram` may hold data: present or swapped in
// /proc/self/pagemap, or backed by its shared image (Sram::image_bytes: such a page holds
// the image before anything touched it). Every page where pagemap cannot be read.
void touched_pages(const Sram& sram, std::vector<uint8_t>& out);

}  // namespace ipusim::iss
