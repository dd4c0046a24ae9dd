#include "links/crc.h"

#include <zlib.h>

namespace ipusim::links {

uint32_t crc32_of(std::span<const uint8_t> bytes) {
  return static_cast<uint32_t>(
      ::crc32(::crc32(0L, Z_NULL, 0), bytes.data(), static_cast<uInt>(bytes.size())));
}

}  // namespace ipusim::links
