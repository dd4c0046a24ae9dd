// How much host memory a system will take, known before anything is elaborated, and
// the limit it must fit: `ipusim info` prints the estimate; `ipusim run`, `ipusim serve`
// and in-process devices refuse a system whose estimate exceeds the limit before they
// elaborate it (docs/platform.md, "Memory estimate").
//
// The estimate is a fixed cost plus a cost per IPU and per tile, calibrated from the peak
// resident set of real runs (the table in docs/platform.md). Tile SRAM is an anonymous
// mapping (iss/sram.h): only the pages a program touches are resident, so a tile costs its
// module and core state, the pages of its program image it holds (all of them when the
// image is copied, its own and the ones it reads when shared: iss/sram_image.h) and the
// stack pages it touches.
// Data a program writes adds up to the tile's SRAM size on top (`upper_bytes`).
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/config.h"

namespace ipusim::iss {
class Program;
}

namespace ipusim::platform {

struct MemoryEstimate {
  uint64_t resident_bytes = 0;  // the peak resident set expected
  uint64_t address_bytes = 0;   // the peak address space (a loaded tile's SRAM is mapped whole)
  uint64_t upper_bytes = 0;     // resident, if every tile wrote its whole SRAM
  uint32_t ipus = 0;
  uint64_t tiles = 0;
};

// The program a tile runs, as far as memory goes: bytes of its loadable image, and what a
// tile holds of it when the tiles share it (iss/sram_image.h): its writable segments'
// pages (written: the tile's own copies) and a page of the read-only data it reads (a
// shared page, but counted in every resident set that maps it).
struct ProgramFootprint {
  uint64_t image_bytes = 0;
  uint64_t shared_tile_bytes = 0;
};

// The bytes `program` writes into each tile's SRAM when loaded.
ProgramFootprint footprint_of(const iss::Program& program);

// A short firmware's footprint (the reference examples' code and data pages: hello.elf
// has four of code and one of data; shared, a tile holds its data page and one page of
// read-only data), assumed when the program is not known yet (`info`, `serve`, devices).
inline constexpr ProgramFootprint kShortProgram{20 * 1024, 8 * 1024};

// The system with `program` on `loaded_tiles` of its tiles (all of them by default),
// simulated on `host_threads` threads (each adds a stack and a malloc arena to the
// address space, not to the resident set).
MemoryEstimate estimate_memory(const config::SystemConfig& system, const ProgramFootprint& program = kShortProgram,
                               std::optional<uint64_t> loaded_tiles = std::nullopt, unsigned host_threads = 1);

// The memory this process may use and where that figure comes from.
struct MemoryLimit {
  uint64_t bytes = 0;
  std::string source;          // e.g. "MemAvailable in /proc/meminfo", "--max-memory"
  bool address_space = false;  // a limit on the address space (RLIMIT_AS), not on resident memory
};

// The lowest room the cgroup (v2) `cgroup` (a path such as "/user.slice/session-1.scope"
// under the cgroup2 mount `root`) and its ancestors leave: the lower of memory.max and
// memory.high less the working set (memory.current less inactive_file in memory.stat), at
// every level that sets a limit; nullopt when none does.
std::optional<MemoryLimit> cgroup_room(const std::string& root, std::string cgroup);

// The limits a system must fit: `max_memory` alone when given (the user's limit replaces
// the machine's, e.g. to allow more than MemAvailable says); otherwise the machine's: the
// lower of MemAvailable (/proc/meminfo) and what the process's cgroups allow
// (cgroup_room) for the resident set, and RLIMIT_AS
// less the address space in use, when set, for the address space.
// `max_memory_source` names the user's limit in the refusal ("--max-memory",
// "OpenOptions::max_memory", "IPUSIM_MAX_MEMORY").
std::vector<MemoryLimit> memory_limits(std::optional<uint64_t> max_memory,
                                       const std::string& max_memory_source = "--max-memory");

// Thrown for a system that does not fit: the message names the system, the estimate and
// the limit with its source.
class SystemTooLarge : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Throws SystemTooLarge when `estimate` exceeds one of `limits`; the message ends with
// `hint`, how the caller's user sets another limit.
void check_fits_memory(const config::SystemConfig& system, const MemoryEstimate& estimate,
                       const std::vector<MemoryLimit>& limits,
                       const std::string& hint = "--max-memory SIZE sets another limit");

// "512M", "4G", "1.5GiB", "100000" (bytes): K / M / G / T are powers of 1024, with an
// optional "iB" or "B". Throws std::invalid_argument naming `what` and the value.
uint64_t parse_memory_size(const std::string& text, const std::string& what);

// "1.5 GiB", "640 MiB", "13.2 MiB" (one decimal below 100 MiB), "12 KiB", "100 B".
std::string memory_text(uint64_t bytes);

}  // namespace ipusim::platform
