// The system configuration as plain, validated structs. configs/*.yaml are parsed once
// (tlm/config/config_loader.cpp, the only place that reads YAML) into these; models take the
// part they need in their constructor. Units are in the names.
//
// Member initializers are the defaults the loader applies to optional keys, so a file
// that leaves a key out and a struct built in code agree. Every key's type, unit, range,
// default, doc and the source of its figure are in tlm/config/schema.yaml, once; the
// defaults below come from the header generated from it (config_schema.h), as do the
// loader's checks, the writer, `ipusim info --json` and docs/config.md's key tables.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "common/config_schema.h"
#include "common/iss_core.h"

namespace ipusim::config {

// The exchange's unit of time: 1 / (2 x out x in) of a cycle, in which a message of whole
// bytes leaves and arrives in whole ticks at both ports (docs/exchange.md). The one place
// it is computed: TileConfig and exchange::ExchangeTiming both call it.
constexpr uint64_t exchange_ticks_per_cycle(uint32_t in_bytes_per_cycle, uint32_t out_bytes_per_cycle) {
  return 2 * uint64_t(out_bytes_per_cycle) * in_bytes_per_cycle;
}

struct TileConfig {
  uint64_t sram_bytes = 0;                 // per tile (required)
  uint32_t workers = defaults::tile::workers;  // worker contexts (the supervisor is extra)
  uint32_t exchange_in_bytes_per_cycle = defaults::tile::exchange_in_bytes_per_cycle;
  uint32_t exchange_out_bytes_per_cycle = defaults::tile::exchange_out_bytes_per_cycle;
  uint32_t amp_f16_macs_per_cycle = 0;     // AMP peak, f16 multiply-accumulates per cycle (required)
  uint32_t amp_f32_macs_per_cycle = 0;     // (required)
  uint32_t thread_quantum = defaults::tile::thread_quantum;  // ISS: instructions per thread quantum
  // The memory paths and co-issue (docs/xipu.md "Timing"; iss::TileParams has the same
  // defaults: 128-bit loads, 64-bit stores, co-issue on, as on the published chips).
  uint32_t load_bytes_per_cycle = defaults::tile::load_bytes_per_cycle;
  uint32_t store_bytes_per_cycle = defaults::tile::store_bytes_per_cycle;
  bool co_issue = defaults::tile::co_issue;
  // The ISS engine of every tile (docs/iss.md "Translator (--iss jit)"): the interpreter,
  // or the x86-64 translator. A simulator setting (`ipusim run --iss`, OpenOptions::iss),
  // not part of a config file: both give the same results. Unset: iss::default_core()
  // (IPUSIM_ISS, else the translator where it is built), resolved where the tiles are
  // configured, so a build without the translator runs the interpreter without a word.
  std::optional<IssCore> iss;

  uint64_t exchange_ticks_per_cycle() const {
    return config::exchange_ticks_per_cycle(exchange_in_bytes_per_cycle, exchange_out_bytes_per_cycle);
  }
  bool operator==(const TileConfig&) const = default;
};

struct LinkConfig {
  uint32_t count = defaults::ipu_links::count;                        // IPU-Links per IPU
  double bytes_per_second = defaults::ipu_links::bytes_per_second;    // each link, each direction
  double latency_ns = defaults::ipu_links::latency_ns;  // one way, first byte out to first byte in
  // One hop of the external sync signal (zone 2) between linked IPUs: a sync group's
  // latency is 2 x (the sync master's farthest member in hops) x this (docs/sync.md).
  // 0: an ideal external sync.
  double sync_hop_ns = defaults::ipu_links::sync_hop_ns;

  bool operator==(const LinkConfig&) const = default;
};

// On-chip latencies grow with distance; a model interpolates linearly between the
// nearest and the farthest case (docs/config.md says how distance is measured).
struct ExchangeConfig {
  uint32_t latency_min_cycles = defaults::exchange::latency_min_cycles;  // send to arrival, nearest tiles
  uint32_t latency_max_cycles = defaults::exchange::latency_max_cycles;  // send to arrival, farthest tiles

  bool operator==(const ExchangeConfig&) const = default;
};

struct SyncConfig {
  uint32_t latency_min_cycles = defaults::sync::latency_min_cycles;  // last arrival to release, nearest tile
  uint32_t latency_max_cycles = defaults::sync::latency_max_cycles;  // last arrival to release, farthest tile

  bool operator==(const SyncConfig&) const = default;
};

struct ChipConfig {
  std::string name;                        // e.g. "gc200"
  std::string source;                      // file it was read from
  uint32_t tiles = 0;                      // tiles per IPU
  double clock_hz = 0;                     // tile clock
  TileConfig tile;
  LinkConfig ipu_links;
  ExchangeConfig exchange;
  SyncConfig sync;
  // Vendor figures, shown against the model's peak; 0 = none.
  double published_f16_tflops = defaults::published::published_f16_tflops;
  double published_f32_tflops = defaults::published::published_f32_tflops;

  // Derived figures.
  double peak_f16_flops() const { return 2.0 * tiles * tile.amp_f16_macs_per_cycle * clock_hz; }
  double peak_f32_flops() const { return 2.0 * tiles * tile.amp_f32_macs_per_cycle * clock_hz; }
  // One tile's exchange ports.
  double tile_exchange_in_bytes_per_second() const { return tile.exchange_in_bytes_per_cycle * clock_hz; }
  double tile_exchange_out_bytes_per_second() const { return tile.exchange_out_bytes_per_cycle * clock_hz; }
  double exchange_bytes_per_second() const {
    return double(tiles) * tile.exchange_in_bytes_per_cycle * clock_hz;
  }
  double exchange_out_bytes_per_second() const {
    return double(tiles) * tile.exchange_out_bytes_per_cycle * clock_hz;
  }
  uint64_t sram_bytes_total() const { return uint64_t(tiles) * tile.sram_bytes; }
  // Every IPU-Link of one IPU, both directions added (the way vendors quote "320 GB/s").
  double ipu_links_bytes_per_second_total() const {
    return 2.0 * ipu_links.count * ipu_links.bytes_per_second;
  }

  bool operator==(const ChipConfig&) const = default;
};

// One IPU-Link, full duplex: port `port_a` of IPU `ipu_a` to port `port_b` of IPU
// `ipu_b` (ports 0 .. ipu_links.count - 1; IPU indices of the system, or of the board in
// BoardConfig::links).
struct LinkWire {
  uint32_t ipu_a = 0, port_a = 0;
  uint32_t ipu_b = 0, port_b = 0;

  bool operator==(const LinkWire&) const = default;
};

struct BoardConfig {
  std::string name;                        // e.g. "m2000"; for a bare chip, the chip's name
  std::string source;
  uint32_t ipus = 1;
  ChipConfig chip;
  uint64_t streaming_memory_bytes = defaults::streaming_memory::streaming_memory_bytes;  // gateway DRAM
  double streaming_memory_bytes_per_second = defaults::streaming_memory::streaming_memory_bytes_per_second;
  double streaming_memory_latency_ns = defaults::streaming_memory::streaming_memory_latency_ns;
  // PCIe-like host link, each direction.
  double host_link_bytes_per_second = defaults::host_link::host_link_bytes_per_second;
  double host_link_latency_ns = defaults::host_link::host_link_latency_ns;
  // How the board's own IPUs are linked: a named wiring ("single", "pair", "m2000";
  // docs/links.md), or "" when the board file lists its links. `links` is that wiring,
  // with board-local IPU indices (0 .. ipus - 1).
  std::string topology = "single";
  std::vector<LinkWire> links;

  bool operator==(const BoardConfig&) const = default;
};

// Faults injected on the IPU-Links (`link_faults`; docs/links.md, "Fault injection"): the
// canonical SPEC text for every link ("none": no faults), and for single links by link
// index, which replaces it there. The loader checks them; the platform parses them into a
// links::FaultPlan.
struct LinkFaultsConfig {
  std::string every = "none";
  std::map<uint32_t, std::string> links;

  bool any() const {
    if (every != "none") return true;
    for (const auto& [link, spec] : links)
      if (spec != "none") return true;
    return false;
  }
  bool operator==(const LinkFaultsConfig&) const = default;
};

// `ranks` of a system file: which boards each MPI rank runs (docs/distributed.md "The
// partition"). The loader checks it with everything else (every board on exactly one rank,
// every rank with a board); whether the list's length is the job's rank count is known
// only when the partition is made, which names `file:line` then. The effective config
// carries it, so a run's `FILE.config.yaml` or a checkpoint runs split as it was.
struct RanksConfig {
  std::vector<std::vector<uint32_t>> boards;  // rank by rank, each ascending; empty: not given
  std::string file;                           // where it was given, for the errors found later
  int line = 0;

  bool given() const { return !boards.empty(); }
  // The choice, not where it was written: a config and its effective copy are equal.
  bool operator==(const RanksConfig& o) const { return boards == o.boards; }
};

// CosimConfig (which blocks run as their Verilated RTL: `cosim`, `--rtl`) is generated from
// schema.yaml's rtl_blocks into config_schema.h: one entry registers a block.

struct SystemConfig {
  std::string source;                      // the file given on the command line
  std::string kind;                        // "chip", "board" or "system"
  uint32_t boards = 1;                     // above 1 only in a system
  BoardConfig board;                       // every board of a system is alike
  // What only a system file says; empty for a chip or board file, whose name and wiring
  // are its board's. Read them through name(), topology() and links(), which give the
  // figure whatever the kind of file.
  std::string system_name;                 // e.g. "pod16"
  std::string system_topology;             // how the boards are joined: "ladder", "torus2d"; "" when the file lists its links
  // Every IPU-Link of the system, derived once at load (global IPU indices: board b's IPU
  // i is b * board.ipus + i): each board's wiring and then the joins, or the file's
  // explicit `links:` list (docs/links.md).
  std::vector<LinkWire> system_links;
  LinkFaultsConfig link_faults;  // `link_faults` of the file given (a board or system file)
  RanksConfig ranks;             // `ranks` of a system file (not given: balanced by tiles)
  CosimConfig cosim;             // `cosim` of the file given

  bool is_system() const { return kind == "system"; }
  // The name of what the file describes: the system's, or else the board's (a chip file's
  // board is named after its chip).
  const std::string& name() const { return is_system() ? system_name : board.name; }
  // The wiring the file named: how a system's boards are joined, or else the board's own
  // ("single" for a chip); "" when the file lists its links instead.
  const std::string& topology() const { return is_system() ? system_topology : board.topology; }
  // Every IPU-Link of the system, global IPU indices; index = link id.
  const std::vector<LinkWire>& links() const { return is_system() ? system_links : board.links; }

  uint32_t total_ipus() const { return boards * board.ipus; }
  uint64_t total_tiles() const { return uint64_t(total_ipus()) * board.chip.tiles; }

  bool operator==(const SystemConfig&) const = default;
};

}  // namespace ipusim::config
