#include "checkpoint/content_hash.h"

namespace ipusim::checkpoint {

uint64_t content_hash(std::span<const uint8_t> bytes) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (const uint8_t b : bytes) {
    h ^= b;
    h *= 0x100000001b3ull;
  }
  return h;
}

uint64_t content_hash(std::string_view text) {
  return content_hash(std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(text.data()), text.size()));
}

}  // namespace ipusim::checkpoint
