// `--max-memory SIZE`, as `run` and `serve` both take it: the host memory the system may
// take, instead of the machine's (platform/memory_estimate.h; docs/platform.md "Memory
// estimate").
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include <CLI/CLI.hpp>

namespace ipusim::cli {

void add_max_memory_option(CLI::App* cmd, std::string& max_memory);

// The option's bytes; nullopt when not given. Throws std::invalid_argument for a bad size.
std::optional<uint64_t> max_memory_bytes(const std::string& max_memory);

}  // namespace ipusim::cli
