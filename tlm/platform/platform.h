// The simulated system: config -> netlist, program loading, one run, results.
//
//   Platform (plain C++: owns the SystemC modules of one process)
//     ipu<I>     Ipu (netlist.h), I = 0 .. boards * ipus_per_board - 1
//       tile<T>  tile::Tile
//
// A process elaborates one Platform and runs it once (SystemC allows one elaboration
// per process). run() simulates until every loaded tile has halted or one faults; the
// first fault (earliest simulated time, then lowest IPU / tile) stops the simulation at
// the end of its delta cycle, so the other tiles are left between whole stretches.
// Console lines are printed as they become final (platform_console.h).
#pragma once

#include <cstdint>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "iss/program.h"
#include "platform/config.h"
#include "platform/netlist.h"
#include "platform/platform_console.h"
#include "platform/platform_tiles.h"
#include "platform/platform_trace.h"
#include "tile/tile.h"

namespace ipusim::platform {

struct PlatformOptions {
  ConsoleMode console = ConsoleMode::Tagged;
  std::FILE* console_out = stdout;  // null: count console lines, print none
  std::string itrace_path;          // non-empty: trace every retired instruction there
  // Disassembler for the trace (the ISS's); required when itrace_path is set.
  InstructionTrace::Disassembler disassemble;
};

struct TileResult {
  uint32_t ipu = 0;
  uint32_t tile = 0;
  tile::TileState state = tile::TileState::Idle;
  uint64_t cycles = 0;
  uint64_t instructions = 0;
  uint32_t syncs = 0;
  uint64_t sync_stall_cycles = 0;
  int32_t exit_code = 0;      // state Halted
  std::string fault;          // state Faulted: Fault::message
};

struct RunResult {
  std::vector<TileResult> tiles;  // every loaded tile, in (ipu, tile) order
  uint32_t ipus = 0;              // IPUs with at least one loaded tile
  uint64_t tile_cycles = 0;       // max over tiles
  double simulated_seconds = 0;   // tile_cycles at the tile clock
  uint64_t instructions = 0;      // sum over tiles
  double host_seconds = 0;        // wall time of the simulation itself
  uint64_t console_lines = 0;
  // Set when the run did not end with every tile halted.
  std::optional<std::string> fault;     // the first fault's message
  std::optional<std::string> deadlock;  // tiles left waiting at a sync nobody completes

  // Simulated instructions per host second, in millions.
  double mips() const { return host_seconds > 0 ? double(instructions) / host_seconds / 1e6 : 0; }
  // 0 if every tile exited 0; else the exit code of the lowest-numbered tile with a
  // non-zero code, clamped to 1..255. (Faults and deadlocks are the caller's to map.)
  int exit_status() const;
};

class Platform : private tile::TileListener {
 public:
  // Elaborates the whole system. Throws std::invalid_argument for a config the models
  // cannot build, std::runtime_error for an unopenable trace file.
  Platform(const config::SystemConfig& config, const PlatformOptions& options);
  ~Platform() override;
  Platform(const Platform&) = delete;
  Platform& operator=(const Platform&) = delete;

  // Loads `program` onto the selected tiles of every IPU (before run()). Throws
  // std::invalid_argument if its image does not fit a tile's SRAM.
  void load(std::shared_ptr<const iss::Program> program, const TileSelection& tiles = {});

  // Simulates to the end. Once per process.
  RunResult run();

  const config::SystemConfig& config() const { return config_; }
  uint32_t ipu_count() const { return uint32_t(ipus_.size()); }
  Ipu& ipu(uint32_t i) { return *ipus_.at(i); }
  uint32_t loaded_tiles() const { return loaded_; }

  // Checks that `program` fits a tile of `chip`: every segment inside SRAM. Throws
  // std::invalid_argument naming the program, the segment and the SRAM end.
  static void check_fits(const iss::Program& program, const config::ChipConfig& chip);

 private:
  // tile::TileListener
  void console_line(const tile::Tile& tile, const sc_core::sc_time& stretch_start,
                    uint32_t thread, std::string_view text) override;
  void tile_stopped(const tile::Tile& tile) override;

  void stop_simulation();
  std::string describe_deadlock() const;

  config::SystemConfig config_;
  PlatformOptions options_;
  ConsoleCollector console_;
  std::unique_ptr<InstructionTrace> trace_;
  std::unique_ptr<SyncBarrier> group_barrier_;
  std::vector<std::unique_ptr<Ipu>> ipus_;
  uint32_t loaded_ = 0;
  uint32_t stopped_ = 0;
  bool stop_requested_ = false;
  bool ran_ = false;
  // The first fault: (time, ipu, tile) of the earliest faulting tile.
  const tile::Tile* first_fault_ = nullptr;
  sc_core::sc_time first_fault_time_;
};

}  // namespace ipusim::platform
