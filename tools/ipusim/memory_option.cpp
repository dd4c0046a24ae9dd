#include "memory_option.h"

#include "platform/memory_estimate.h"

namespace ipusim::cli {

std::optional<uint64_t> max_memory_bytes(const std::optional<std::string>& max_memory) {
  if (!max_memory) return std::nullopt;
  return platform::parse_memory_size(*max_memory, "--max-memory");
}

}  // namespace ipusim::cli
