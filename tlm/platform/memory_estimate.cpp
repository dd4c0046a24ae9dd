// memory_estimate.h. The constants come from the calibration runs of docs/platform.md
// ("Memory estimate"): peak resident set (VmHWM) and address space (VmPeak) of `ipusim
// run` on one host thread, fitted as fixed + per IPU + per tile.
#include "platform/memory_estimate.h"

#include <sys/resource.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "iss/program.h"
#include "iss/sram_image.h"

namespace ipusim::platform {

namespace {

constexpr uint64_t kKiB = 1024, kMiB = kKiB * 1024, kGiB = kMiB * 1024;
constexpr uint64_t kPage = 4096;

// Resident: the process with its libraries, the SystemC kernel and one host thread.
constexpr uint64_t kFixed = 13 * kMiB;
// An IPU's sync controller, exchange fabric and link ports.
constexpr uint64_t kPerIpu = 64 * kKiB;
// A tile's SystemC module, sockets and bookkeeping, elaborated.
constexpr uint64_t kPerTile = 7 * kKiB;
// A loaded tile's core state (ISS, the supervisor's context: 1.5 KB; the workers' 2.7 KB
// more once one starts), what its run keeps on the heap and the stack page its
// supervisor touches; its image's pages come on top.
constexpr uint64_t kPerLoadedTile = 7 * kKiB;
// Address space beside the tiles' (their SRAM mapped whole, and kPerTile): libraries
// and the main thread's heap; and per host thread after the first its stack and malloc
// arena.
constexpr uint64_t kFixedAddress = 48 * kMiB;
constexpr uint64_t kPerThreadAddress = 136 * kMiB;

uint64_t page_round(uint64_t bytes) { return (bytes + kPage - 1) / kPage * kPage; }

uint64_t saturating_add(uint64_t a, uint64_t b) { return a > UINT64_MAX - b ? UINT64_MAX : a + b; }
uint64_t saturating_mul(uint64_t a, uint64_t b) { return b != 0 && a > UINT64_MAX / b ? UINT64_MAX : a * b; }

// The value of `key` (kB) in a /proc file such as /proc/meminfo, in bytes.
std::optional<uint64_t> proc_kib(const char* path, const std::string& key) {
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind(key + ":", 0) != 0) continue;
    std::istringstream fields(line.substr(key.size() + 1));
    uint64_t kib = 0;
    if (fields >> kib) return kib * kKiB;
  }
  return std::nullopt;
}

std::optional<uint64_t> read_number(const std::string& path) {
  std::ifstream in(path);
  std::string text;
  if (!(in >> text) || text == "max") return std::nullopt;
  try {
    return std::stoull(text);
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

// The value of `key` (bytes) in a cgroup's memory.stat.
std::optional<uint64_t> stat_bytes(const std::string& path, const std::string& key) {
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind(key + " ", 0) != 0) continue;
    std::istringstream fields(line.substr(key.size() + 1));
    uint64_t bytes = 0;
    if (fields >> bytes) return bytes;
  }
  return std::nullopt;
}

}  // namespace

std::optional<MemoryLimit> cgroup_room(const std::string& root, std::string path) {
  if (path.empty()) return std::nullopt;
  std::optional<MemoryLimit> lowest;
  for (;;) {
    const std::string dir = root + (path == "/" ? std::string() : path);
    const auto max = read_number(dir + "/memory.max");
    const auto high = read_number(dir + "/memory.high");
    if (max || high) {
      const bool by_high = high && (!max || *high < *max);
      const uint64_t limit = by_high ? *high : *max;
      // memory.current counts the page cache too, most of it reclaimable: a container
      // that has just compiled something would refuse even the smallest system. The
      // working set (what Kubernetes evicts on) leaves the inactive file pages out.
      const uint64_t current = read_number(dir + "/memory.current").value_or(0);
      const uint64_t inactive = std::min(stat_bytes(dir + "/memory.stat", "inactive_file").value_or(0), current);
      const uint64_t working_set = current - inactive;
      const uint64_t room = limit > working_set ? limit - working_set : 0;
      if (!lowest || room < lowest->bytes)
        lowest = MemoryLimit{room,
                             fmt::format("{} less the working set (memory.current - inactive_file) of cgroup {}",
                                         by_high ? "memory.high" : "memory.max", dir),
                             false};
    }
    if (path == "/") break;
    const size_t slash = path.rfind('/');
    path = slash == 0 || slash == std::string::npos ? "/" : path.substr(0, slash);
  }
  return lowest;
}

namespace {

// The room of the process's own cgroup (v2), from /proc/self/cgroup.
std::optional<MemoryLimit> cgroup_limit() {
  std::ifstream in("/proc/self/cgroup");
  std::string path;
  for (std::string line; std::getline(in, line);)
    if (line.rfind("0::", 0) == 0) path = line.substr(3);
  return cgroup_room("/sys/fs/cgroup", path);
}

}  // namespace

ProgramFootprint footprint_of(const iss::Program& program) {
  ProgramFootprint f;
  for (const iss::Segment& s : program.segments()) {
    f.image_bytes += page_round(s.bytes.size());
    if (!s.executable) f.shared_tile_bytes += page_round(s.bytes.size());
  }
  f.shared_tile_bytes = std::min(f.image_bytes, f.shared_tile_bytes + kPage);
  return f;
}

MemoryEstimate estimate_memory(const config::SystemConfig& system, const ProgramFootprint& program,
                               std::optional<uint64_t> loaded_tiles, unsigned host_threads) {
  MemoryEstimate e;
  e.ipus = system.total_ipus();
  e.tiles = system.total_tiles();
  const uint64_t loaded = std::min(loaded_tiles.value_or(e.tiles), e.tiles);
  // --iss lockstep: every loaded tile has a shadow SRAM, mapped whole, holding what the
  // tile's holds (docs/iss.md "Lockstep").
  const uint64_t copies = system.board.chip.tile.iss == IssCore::lockstep ? 2 : 1;
  const uint64_t sram = system.board.chip.tile.sram_bytes * copies;
  const uint64_t image_once = std::min(page_round(program.image_bytes), system.board.chip.tile.sram_bytes);
  const uint64_t image = image_once * copies;
  // The tiles sharing the image (iss::tiles_sharing: as many as the host's mapping cap
  // allows) each hold their part, the image is held once per copy of it in the shared
  // file (iss::kSramImageCopies); the others, and every shadow, hold a copy.
  const uint64_t sharing = iss::tiles_sharing(loaded);
  const uint64_t shared_tile = std::min(image_once, page_round(program.shared_tile_bytes)) + image_once * (copies - 1);
  const uint64_t image_held = image_once * std::min<uint64_t>(sharing, iss::kSramImageCopies);
  const uint64_t tiles_image = saturating_add(saturating_add(saturating_mul(shared_tile, sharing), image_held),
                                              saturating_mul(image, loaded - sharing));
  e.resident_bytes = saturating_add(saturating_add(kFixed, saturating_mul(kPerIpu, e.ipus)),
                                    saturating_add(saturating_mul(kPerTile, e.tiles),
                                                   saturating_add(saturating_mul(kPerLoadedTile, loaded), tiles_image)));
  // A loaded tile's SRAM is mapped whole: a run maps the tiles it loads, a host interface
  // (loaded_tiles unset: every tile) all of them. The host pool starts host_threads - 1
  // workers beside the simulation's thread.
  const uint64_t overhead = kFixedAddress + kPerThreadAddress * (std::max(host_threads, 1u) - 1);
  e.address_bytes =
      saturating_add(overhead, saturating_add(saturating_mul(sram, loaded), saturating_mul(kPerTile, e.tiles)));
  e.upper_bytes = saturating_add(e.resident_bytes, saturating_add(saturating_mul(sram - shared_tile, sharing),
                                                                  saturating_mul(sram - image, loaded - sharing)));
  return e;
}

std::vector<MemoryLimit> memory_limits(std::optional<uint64_t> max_memory, const std::string& max_memory_source) {
  if (max_memory) return {MemoryLimit{*max_memory, max_memory_source, false}};
  std::vector<MemoryLimit> limits;
  std::optional<MemoryLimit> resident;
  if (const auto available = proc_kib("/proc/meminfo", "MemAvailable"))
    resident = MemoryLimit{*available, "MemAvailable in /proc/meminfo", false};
  if (const auto cgroup = cgroup_limit(); cgroup && (!resident || cgroup->bytes < resident->bytes)) resident = cgroup;
  if (resident) limits.push_back(*resident);
  rlimit as{};
  if (::getrlimit(RLIMIT_AS, &as) == 0 && as.rlim_cur != RLIM_INFINITY) {
    const uint64_t used = proc_kib("/proc/self/status", "VmSize").value_or(0);
    limits.push_back(MemoryLimit{as.rlim_cur > used ? as.rlim_cur - used : 0,
                                 "RLIMIT_AS (ulimit -v) less the address space in use", true});
  }
  return limits;
}

void check_fits_memory(const config::SystemConfig& system, const MemoryEstimate& estimate,
                       const std::vector<MemoryLimit>& limits, const std::string& hint) {
  for (const MemoryLimit& limit : limits) {
    const uint64_t need = limit.address_space ? estimate.address_bytes : estimate.resident_bytes;
    if (need <= limit.bytes) continue;
    throw SystemTooLarge(fmt::format(
        "config '{}' ({} IPUs, {} tiles): the system needs an estimated {} of {}, more than the {} "
        "allowed ({}); it was not elaborated ({})",
        system.name(), estimate.ipus, estimate.tiles, memory_text(need),
        limit.address_space ? "address space" : "memory", memory_text(limit.bytes), limit.source, hint));
  }
}

uint64_t parse_memory_size(const std::string& text, const std::string& what) {
  auto bad = [&](const std::string& why) {
    return std::invalid_argument(what + " '" + text + "': " + why +
                                 " (a size such as 512M, 4G or 1.5GiB; K, M, G, T are powers of 1024)");
  };
  size_t end = 0;
  double number = 0;
  if (text.empty() || text.find_first_not_of("0123456789.") == 0) throw bad("not a size");
  try {
    number = std::stod(text, &end);
  } catch (const std::exception&) {
    throw bad("not a size");
  }
  if (text.find_first_not_of("0123456789.") < end || !std::isfinite(number) || number <= 0)
    throw bad("not a positive size");
  std::string unit = text.substr(end);
  for (char& c : unit) c = char(std::toupper(static_cast<unsigned char>(c)));
  if (unit.size() == 3 && unit.substr(1) == "IB") unit.resize(1);
  else if (unit.size() == 2 && unit[1] == 'B') unit.resize(1);
  uint64_t scale = 1;
  if (unit == "K") scale = kKiB;
  else if (unit == "M") scale = kMiB;
  else if (unit == "G") scale = kGiB;
  else if (unit == "T") scale = kGiB * 1024;
  else if (!unit.empty() && unit != "B") throw bad("unknown unit '" + text.substr(end) + "'");
  const double bytes = std::floor(number * double(scale));
  if (bytes < 1) throw bad("less than one byte");
  if (bytes >= 18446744073709551615.0) throw bad("too large");
  return uint64_t(bytes);
}

std::string memory_text(uint64_t bytes) {
  if (bytes >= kGiB) return fmt::format("{:.1f} GiB", double(bytes) / double(kGiB));
  // One decimal below 100 MiB: "13 MiB more than the 13 MiB allowed" said nothing.
  if (bytes >= 100 * kMiB) return fmt::format("{:.0f} MiB", double(bytes) / double(kMiB));
  if (bytes >= kMiB) return fmt::format("{:.1f} MiB", double(bytes) / double(kMiB));
  if (bytes >= kKiB) return fmt::format("{:.0f} KiB", double(bytes) / double(kKiB));
  return fmt::format("{} B", bytes);
}

}  // namespace ipusim::platform
