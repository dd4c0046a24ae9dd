// `--max-memory SIZE`, as `run` and `serve` both take it (main.cpp): the host memory the system may
// take, instead of the machine's (platform/memory_estimate.h; docs/platform.md "Memory
// estimate").
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace ipusim::cli {

// The option's bytes; nullopt when not given (given empty: an error). Throws std::invalid_argument for a bad size.
std::optional<uint64_t> max_memory_bytes(const std::optional<std::string>& max_memory);

}  // namespace ipusim::cli
