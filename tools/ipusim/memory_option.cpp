#include "memory_option.h"

#include "platform/memory_estimate.h"

namespace ipusim::cli {

void add_max_memory_option(CLI::App* cmd, std::string& max_memory) {
  cmd->add_option("--max-memory", max_memory,
                  "refuse, before elaborating it, a system whose estimated memory (`ipusim info`) exceeds SIZE "
                  "(e.g. 512M, 4G; K, M, G, T are powers of 1024). Default: the memory available to the process "
                  "(MemAvailable, the cgroup's memory.max, ulimit -v)");
}

std::optional<uint64_t> max_memory_bytes(const std::string& max_memory) {
  if (max_memory.empty()) return std::nullopt;
  return platform::parse_memory_size(max_memory, "--max-memory");
}

}  // namespace ipusim::cli
