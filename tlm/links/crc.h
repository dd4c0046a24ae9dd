// CRC-32 as zlib computes it (IEEE 802.3 polynomial, reflected, init and final xor
// 0xFFFFFFFF): crc32_of("123456789") == 0xCBF43926. One function so the RTL's CRC has
// one reference.
#pragma once

#include <cstdint>
#include <span>

namespace ipusim::links {

uint32_t crc32_of(std::span<const uint8_t> bytes);

}  // namespace ipusim::links
