// tile_memory: the host bytes of a tile, by owner. A config (a chip: one IPU) is elaborated,
// loaded with a program on every tile and run to its end in this process (one host
// thread), and what each step added is measured:
//   module     the elaborated platform per tile (the Tile module, its sockets, payloads
//              and bookkeeping, plus the IPU's share of the sync controller and fabric):
//              heap from the allocator (alloc_meter.h), resident set from /proc
//   parts      one probe Tile module and its parts built alone under the meter: the
//              module, its memory target socket, its two initiator sockets, a payload;
//              sizeof of the core's state, a thread context, the postings, the statistics
//   load       the program's load per tile: the core's state (heap) and the SRAM pages
//              the load made resident
//   run        the run per tile: heap (postings, console, statistics) and resident set
//   sram       every tile's SRAM pages after the run, from /proc/self/pagemap, by kind of
//              tile address (code: the executable segment; data: the other segments,
//              .bss included, and a page they share with the code; stack: the supervisor's and the workers' stacks below the
//              SRAM's top; heap: between them) and by state: private (the tile's own
//              page), shared (the program's image page, mapped: the pages of the image
//              the tiles share are counted once, in shared_image_bytes), untouched
//   mappings   the tiles sharing the image, the host mappings their SRAMs make
//              (sram_arena.h) and the process's (/proc/self/maps)
// Then, as whole runs, `ipusim run --quiet` of the program on each --runs config and its
// peak resident set (wait4's rusage), alternated with --base-ipusim's when given.
// Prints one JSON line on stdout and the same figures as a table on stderr.
//
//   tile_memory [--config configs/gc200.yaml] [--elf hello.elf] [--iss interp|jit]
//               [--no-share] [--runs configs/gc200.yaml configs/pod16.yaml]
//               [--ipusim B] [--base-ipusim B0] [--reps 1]
#include <sys/stat.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "alloc_meter.h"
#include "child_run.h"
#include "config/config_loader.h"
#include "common/iss_core.h"
#include "iss/core_state.h"
#include "iss/posting_log.h"
#include "iss/sram_image.h"
#include "platform/platform.h"
#include "tile/superstep.h"
#include "tile/tile.h"
#include "tile/tile_config.h"

namespace {

using ipusim::bench::AllocMeter;
using nlohmann::json;

// A "VmRSS:" figure of /proc/self/status, bytes.
size_t rss_bytes() {
  std::ifstream in("/proc/self/status");
  std::string word;
  while (in >> word)
    if (word == "VmRSS:") {
      size_t kib = 0;
      in >> kib;
      return kib * 1024;
    }
  return 0;
}

struct Step {
  size_t heap = 0, rss = 0;
};
Step now() { return {AllocMeter::current(), rss_bytes()}; }

// The heap one construction takes, measured alone: the object's own bytes when `make`
// heap-allocates it, and whatever it allocates.
template <typename Make>
size_t heap_of(Make&& make) {
  const size_t before = AllocMeter::current();
  make();
  return AllocMeter::current() - before;
}

// A module that builds a Tile's parts one at a time (sockets need a parent module).
struct PartsProbe : sc_core::sc_module {
  // The Tile's memory target socket type, on this module.
  using MemSocket = tlm_utils::multi_passthrough_target_socket<PartsProbe, 32, tlm::tlm_base_protocol_types, 0,
                                                               sc_core::SC_ZERO_OR_MORE_BOUND>;
  size_t mem_socket = 0, initiator_socket = 0, payload = 0;
  void b_transport(int, tlm::tlm_generic_payload&, sc_core::sc_time&) {}
  explicit PartsProbe(sc_core::sc_module_name name) : sc_module(name) {
    // Registered, as the tile's is (an unregistered target socket fails elaboration).
    mem_socket = heap_of([this] {
      (new MemSocket("probe_mem_socket"))->register_b_transport(this, &PartsProbe::b_transport);
    });
    initiator_socket = heap_of([] {
      new tlm_utils::simple_initiator_socket_optional<PartsProbe>("probe_initiator_socket");
    });
    payload = heap_of([] { new tlm::tlm_generic_payload(); });
  }
};

enum Kind { kCode, kData, kStack, kHeap, kKinds };
constexpr std::array<const char*, kKinds> kKindNames{"code", "data", "stack", "heap"};
enum State { kPrivate, kShared, kUntouched, kStates };
constexpr std::array<const char*, kStates> kStateNames{"private", "shared", "untouched"};

struct PageCounts {
  uint64_t pages[kKinds][kStates] = {};
};

// The kind of each page of a tile's SRAM, by the tile address of its first byte.
std::vector<Kind> page_kinds(const ipusim::iss::Program& program, uint32_t sram_bytes, uint32_t workers,
                             uint32_t page) {
  using ipusim::iss::kSramBase;
  std::vector<Kind> kinds((sram_bytes + page - 1) / page, kHeap);
  // A page holding two kinds is the later one's: data over code (its page is written).
  const auto mark = [&](uint64_t begin, uint64_t end, Kind kind) {  // SRAM offsets
    for (uint64_t p = begin / page; p < kinds.size() && p * page < end; ++p)
      if (kinds[p] != kStack) kinds[p] = kind;
  };
  // The stacks crt0 lays out below the top (firmware/runtime/crt0.S), sizes from the ELF.
  const uint64_t stack = program.symbol("__ipu_stack_size").value_or(8192);
  const uint64_t worker_stack = program.symbol("__ipu_worker_stack_size").value_or(4096);
  const uint64_t stacks = std::min<uint64_t>(sram_bytes, stack + uint64_t{workers} * worker_stack);
  mark(sram_bytes - stacks, sram_bytes, kStack);
  mark(program.code_begin() - kSramBase, program.code_end() - kSramBase, kCode);
  for (const ipusim::iss::Segment& s : program.segments())
    if (!s.executable) mark(s.vaddr - kSramBase, uint64_t{s.vaddr - kSramBase} + s.mem_size, kData);
  return kinds;
}

// /proc/self/pagemap: bit 63 present, 62 swapped, 61 a file page (here: the shared image).
void count_pages(const uint8_t* base, const std::vector<Kind>& kinds, uint32_t page, int pagemap, PageCounts& out) {
  std::vector<uint64_t> entries(kinds.size());
  const off_t at = off_t(reinterpret_cast<uintptr_t>(base) / page * sizeof(uint64_t));
  if (pread(pagemap, entries.data(), entries.size() * sizeof(uint64_t), at) !=
      ssize_t(entries.size() * sizeof(uint64_t)))
    return;
  for (size_t p = 0; p < kinds.size(); ++p) {
    const uint64_t e = entries[p];
    const State s = (e >> 62) == 0 ? kUntouched : (e >> 61 & 1) ? kShared : kPrivate;
    ++out.pages[kinds[p]][s];
  }
}

// The bytes the shared image's in-memory file holds (its pages, counted once).
uint64_t shared_image_bytes(const ipusim::iss::Program& program, uint32_t sram_bytes) {
  if (ipusim::iss::shared_images_mapped() == 0) return 0;
  const auto image = program.sram_image(sram_bytes);
  struct stat st {};
  if (!image || fstat(image->fd(), &st) != 0) return 0;
  return uint64_t(st.st_blocks) * 512;
}

// The lines of /proc/self/maps: the process's mappings (VMAs), which vm.max_map_count caps.
uint64_t process_mappings() {
  std::ifstream in("/proc/self/maps");
  uint64_t lines = 0;
  for (std::string line; std::getline(in, line);) ++lines;
  return lines;
}

// Between two steps, per tile: signed, as a step may free more than it takes (on hello the
// run does).
double grew(size_t after, size_t before, uint64_t tiles) { return (double(after) - double(before)) / double(tiles); }

// `ipusim run --quiet` of `elf` on `config`, its peak resident set.
ipusim::bench::ChildRun run_ipusim(const std::string& ipusim, const std::string& config, const std::string& elf,
                                   const std::string& iss) {
  return ipusim::bench::run_child(
      {ipusim, "run", "--quiet", "--config", config, "--elf", elf, "--threads", "1", "--iss", iss}, true);
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"tile_memory: the host bytes of a tile, by owner, and whole runs' peak resident sets"};
  std::string config_path = "configs/gc200.yaml";
  std::string elf = std::string(IPUSIM_FIRMWARE_DIR) + "/hello.elf";
  std::string iss = "jit";
  bool no_share = false;
  std::vector<std::string> runs{"configs/gc200.yaml", "configs/pod16.yaml"};
  std::string ipusim = IPUSIM_BINARY, base_ipusim;
  unsigned reps = 1;
  app.add_option("--config", config_path, "the config measured in process (a chip: one IPU)")
      ->check(CLI::ExistingFile);
  app.add_option("--elf", elf, "the program every tile runs")->check(CLI::ExistingFile);
  app.add_option("--iss", iss, "the tiles' engine")->check(CLI::IsMember({"interp", "jit"}));
  app.add_flag("--no-share", no_share, "copy the image into every tile (no shared image pages)");
  app.add_option("--runs", runs, "configs run whole by `ipusim run` for their peak resident set (none: --runs '')");
  app.add_option("--ipusim", ipusim, "the ipusim binary of the whole runs")->check(CLI::ExistingFile);
  app.add_option("--base-ipusim", base_ipusim, "another build run alternately with it (the build before a change)")
      ->check(CLI::ExistingFile);
  app.add_option("--reps", reps, "whole runs per config and build; the median is reported")->check(CLI::PositiveNumber);
  CLI11_PARSE(app, argc, argv);
  runs.erase(std::remove(runs.begin(), runs.end(), std::string()), runs.end());
  if (no_share) ipusim::iss::set_shared_image_limit(0);

  ipusim::config::SystemConfig system = ipusim::config::load_system(config_path);
  system.board.chip.tile.iss = *ipusim::parse_iss_core(iss);
  const auto program = ipusim::iss::Program::load(elf);
  const uint32_t tiles = uint32_t(system.total_tiles());

  // The parts, alone.
  ipusim::tile::TileModuleConfig tile_config = ipusim::tile::TileModuleConfig::from(system.board.chip, {0, 0, system.board.chip.tiles, 1});
  const size_t tile_module = heap_of([&] { new ipusim::tile::Tile("probe_tile", tile_config); });
  const PartsProbe* parts = new PartsProbe("probe_parts");

  ipusim::platform::PlatformOptions options;
  std::FILE* devnull = std::fopen("/dev/null", "w");
  options.console_out = devnull;
  options.host_threads = 1;
  const Step before_elaboration = now();
  auto* platform = new ipusim::platform::Platform(system, options);  // never destroyed (as ipusim run)
  const Step elaborated = now();
  platform->load(program);
  const Step loaded = now();
  const ipusim::platform::RunResult result = platform->run();
  const Step ran = now();
  if (result.exit_status() != 0) {
    std::fprintf(stderr, "tile_memory: the run ended with status %d\n", result.exit_status());
    return 1;
  }

  const uint32_t page = uint32_t(sysconf(_SC_PAGESIZE));
  const std::vector<Kind> kinds =
      page_kinds(*program, system.board.chip.tile.sram_bytes, system.board.chip.tile.workers, page);
  PageCounts counts;
  const int pagemap = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
  for (uint32_t i = 0; i < platform->ipu_count(); ++i)
    for (uint32_t t = 0; t < platform->ipu(i).tile_count(); ++t)
      if (ipusim::iss::Sram* sram = platform->ipu(i).tile(t).sram(); sram && pagemap >= 0)
        count_pages(sram->data(), kinds, page, pagemap, counts);
  const uint64_t image_once = shared_image_bytes(*program, system.board.chip.tile.sram_bytes);
  const uint64_t maps = process_mappings();

  json sram_json;
  uint64_t sram_private = 0, sram_shared = 0;
  for (int k = 0; k < kKinds; ++k) {
    json by_state;
    for (int s = 0; s < kStates; ++s) by_state[kStateNames[s]] = double(counts.pages[k][s]) * page / tiles;
    sram_json[kKindNames[k]] = by_state;
    sram_private += counts.pages[k][kPrivate];
    sram_shared += counts.pages[k][kShared];
  }
  const double private_per_tile = double(sram_private) * page / tiles;
  const double shared_per_tile = double(sram_shared) * page / tiles;

  json out{{"bench", "tile_memory"},
           {"config", config_path},
           {"elf", elf},
           {"iss", iss},
           {"tiles", tiles},
           {"shared_image", !no_share},
           {"module_heap_per_tile", grew(elaborated.heap, before_elaboration.heap, tiles)},
           {"module_rss_per_tile", grew(elaborated.rss, before_elaboration.rss, tiles)},
           {"parts",
            {{"tile_module_heap", tile_module},
             {"tile_sizeof", sizeof(ipusim::tile::Tile)},
             {"mem_socket_heap", parts->mem_socket},
             {"initiator_socket_heap", parts->initiator_socket},
             {"payload_heap", parts->payload},
             {"core_state_sizeof", sizeof(ipusim::iss::CoreState)},
             {"thread_sizeof", sizeof(ipusim::iss::Thread)},
             {"threads", system.board.chip.tile.workers + 1},
             {"posting_log_sizeof", sizeof(ipusim::iss::PostingLog)},
             {"superstep_tracker_sizeof", sizeof(ipusim::tile::SuperstepTracker)},
             {"sram_sizeof", sizeof(ipusim::iss::Sram)}}},
           {"load_heap_per_tile", grew(loaded.heap, elaborated.heap, tiles)},
           {"load_rss_per_tile", grew(loaded.rss, elaborated.rss, tiles)},
           {"run_heap_per_tile", grew(ran.heap, loaded.heap, tiles)},
           {"run_rss_per_tile", grew(ran.rss, loaded.rss, tiles)},
           {"rss_per_tile", grew(ran.rss, before_elaboration.rss, tiles)},
           {"sram", sram_json},
           {"sram_private_per_tile", private_per_tile},
           {"sram_shared_mapped_per_tile", shared_per_tile},
           {"shared_image_bytes", image_once},
           {"tiles_sharing", ipusim::iss::shared_images_mapped()},
           {"sram_mappings", ipusim::iss::sram_mappings()},
           {"process_mappings", maps},
           {"jit_code_bytes", result.jit_code_bytes}};

  // Whole runs.
  json run_list = json::array();
  for (const std::string& config : runs) {
    std::vector<long> mine, base;
    for (unsigned r = 0; r < reps; ++r) {
      for (int side = 0; side < (base_ipusim.empty() ? 1 : 2); ++side) {
        const bool is_base = side == 1;
        const ipusim::bench::ChildRun c = run_ipusim(is_base ? base_ipusim : ipusim, config, elf, iss);
        if (c.exit_status != 0) {
          std::fprintf(stderr, "tile_memory: %s run of %s exited with status %d\n", is_base ? "base" : "this",
                       config.c_str(), c.exit_status);
          return 1;
        }
        (is_base ? base : mine).push_back(c.max_rss_kib);
      }
    }
    const auto median = [](std::vector<long> v) {
      std::sort(v.begin(), v.end());
      return v.empty() ? 0.0 : double(v[v.size() / 2]) * 1024;
    };
    const ipusim::config::SystemConfig s = ipusim::config::load_system(config);
    json r{{"config", config}, {"tiles", s.total_tiles()}, {"max_rss_bytes", median(mine)},
           {"rss_per_tile", median(mine) / double(s.total_tiles())}};
    if (!base.empty()) {
      r["base_max_rss_bytes"] = median(base);
      r["rss_ratio"] = median(mine) / median(base);
    }
    run_list.push_back(r);
  }
  out["runs"] = run_list;
  std::printf("%s\n", out.dump().c_str());
  std::fflush(stdout);  // before _Exit below

  // The table.
  std::fprintf(stderr, "tile_memory: %s on %s (%u tiles), --iss %s, image %s\n", elf.c_str(),
               config_path.c_str(), tiles, iss.c_str(), no_share ? "copied" : "shared");
  std::fprintf(stderr, "  %-44s %10s\n", "owner", "bytes/tile");
  const auto row = [](const std::string& what, double bytes) {
    std::fprintf(stderr, "  %-44s %10.0f\n", what.c_str(), bytes);
  };
  row("elaborated platform: heap", grew(elaborated.heap, before_elaboration.heap, tiles));
  row("elaborated platform: resident", grew(elaborated.rss, before_elaboration.rss, tiles));
  row("  Tile module alone: heap", double(tile_module));
  row("  Tile object (sizeof)", double(sizeof(ipusim::tile::Tile)));
  row("  memory target socket: heap", double(parts->mem_socket));
  row("  initiator socket (x2): heap", double(parts->initiator_socket));
  row("  generic payload (x3): heap", double(parts->payload));
  row("load: heap (core state)", grew(loaded.heap, elaborated.heap, tiles));
  row("  core state (sizeof)", double(sizeof(ipusim::iss::CoreState)));
  row("  thread context (sizeof, each)", double(sizeof(ipusim::iss::Thread)));
  row("  postings (sizeof)", double(sizeof(ipusim::iss::PostingLog)));
  row("  superstep statistics (sizeof)", double(sizeof(ipusim::tile::SuperstepTracker)));
  row("load: resident", grew(loaded.rss, elaborated.rss, tiles));
  row("run: heap", grew(ran.heap, loaded.heap, tiles));
  row("run: resident", grew(ran.rss, loaded.rss, tiles));
  for (int k = 0; k < kKinds; ++k)
    for (int s = 0; s < kStates; ++s)
      row(fmt::format("SRAM {} pages, {}", kKindNames[k], kStateNames[s]), double(counts.pages[k][s]) * page / tiles);
  row(fmt::format("shared image ({} copies, over all tiles)", ipusim::iss::kSramImageCopies), double(image_once) / tiles);
  row("total resident, elaboration to end", grew(ran.rss, before_elaboration.rss, tiles));
  std::fprintf(stderr, "  tiles sharing the image %llu of %u; SRAM mappings %llu; process mappings %llu\n",
               static_cast<unsigned long long>(ipusim::iss::shared_images_mapped()), tiles,
               static_cast<unsigned long long>(ipusim::iss::sram_mappings()), static_cast<unsigned long long>(maps));
  for (const json& r : run_list) {
    std::fprintf(stderr, "  ipusim run %s: peak RSS %.1f MB (%.0f bytes/tile)", r["config"].get<std::string>().c_str(),
                 r["max_rss_bytes"].get<double>() / 1e6, r["rss_per_tile"].get<double>());
    if (r.contains("base_max_rss_bytes"))
      std::fprintf(stderr, ", base %.1f MB (ratio %.3f)", r["base_max_rss_bytes"].get<double>() / 1e6,
                   r["rss_ratio"].get<double>());
    std::fprintf(stderr, "\n");
  }
  std::_Exit(0);  // the netlist is never torn down (as ipusim run)
}
