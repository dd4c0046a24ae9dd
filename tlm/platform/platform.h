// The simulated system: config -> netlist, program loading, one run, results.
//
//   Platform (plain C++: owns the SystemC modules of one process)
//     engine     tile::TileEngine: runs the tiles' compute stretches in parallel batches
//     control    RunControl: ends the simulation at the first stop in simulated time
//     ipu<I>     Ipu (netlist.h), I = 0 .. boards * ipus_per_board - 1
//       tile<T>  tile::Tile
//       sync     sync::SyncController
//     gateway<B> streaming::Gateway of board B (streaming memory, host streams); every
//                IPU fabric of the board binds its gateway_socket to it
//   group sync   sync::GroupSync (zone 2 across the IPUs; plain C++)
//
// A process elaborates one Platform and runs it once (SystemC allows one elaboration per
// process). run() simulates until every loaded tile has halted, or until the first (in
// simulated time) fault, failed exchange or sync deadlock. Console lines are printed as
// each compute batch ends (platform_console.h). docs/platform.md and docs/chip.md.
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
#include "platform/platform_supersteps.h"
#include "platform/platform_tiles.h"
#include "platform/platform_timeline.h"
#include "platform/platform_trace.h"
#include "platform/run_control.h"
#include "streaming/gateway.h"
#include "sync/group_sync.h"
#include "tile/tile.h"
#include "tile/tile_engine.h"

namespace ipusim::platform {

struct PlatformOptions {
  ConsoleMode console = ConsoleMode::Tagged;
  std::FILE* console_out = stdout;  // null: count console lines, print none
  std::string itrace_path;          // non-empty: trace every retired instruction there
  // Disassembler for the trace (the ISS's); required when itrace_path is set.
  InstructionTrace::Disassembler disassemble;
  unsigned host_threads = 1;        // >= 1: threads computing tiles (the kernel's included)
  std::string timeline_path;        // non-empty: write the superstep trace there (--trace)
  uint32_t timeline_tracks_max = 64;  // tracks per IPU in that trace before grouping tiles
  // Keep every tile's superstep records in the result when at most this many tiles run.
  uint32_t per_tile_supersteps_max = 64;
  // A host serves the host streams (the device model): a copy that finds its stream's
  // FIFO short waits for it. false (`ipusim run`, no host): such a copy fails the exchange.
  bool stream_host = true;
};

struct TileResult {
  uint32_t ipu = 0;
  uint32_t tile = 0;
  tile::TileState state = tile::TileState::Idle;
  uint64_t cycles = 0;
  uint64_t instructions = 0;
  uint32_t syncs = 0;
  uint64_t sync_stall_cycles = 0;
  uint32_t exchanges = 0;
  uint64_t exchange_stall_cycles = 0;
  uint64_t exchange_bytes_out = 0;
  uint64_t exchange_bytes_in = 0;
  int32_t exit_code = 0;      // state Halted
  std::string fault;          // state Faulted: Fault::message
  std::vector<tile::SuperstepRecord> supersteps;  // when kept (per_tile_supersteps_max)
};

struct RunResult {
  std::vector<TileResult> tiles;  // every loaded tile, in (ipu, tile) order
  uint32_t ipus = 0;              // IPUs with at least one loaded tile
  uint64_t tile_cycles = 0;       // max over tiles
  double simulated_seconds = 0;   // tile_cycles at the tile clock
  uint64_t instructions = 0;      // sum over tiles
  uint64_t console_lines = 0;
  // Per IPU (index = IPU), per superstep: totals over the IPU's tiles.
  std::vector<std::vector<SuperstepTotals>> supersteps;
  // Set when the run did not end with every tile halted (at most one of the three).
  std::optional<std::string> fault;          // the first fault's message
  std::vector<std::string> exchange_errors;  // every problem of the first failed exchange
  std::optional<std::string> deadlock;       // tiles left waiting at a sync nobody completes

  // Host figures (differ from run to run and with host_threads; nothing else does).
  double host_seconds = 0;        // wall time of the simulation itself
  double iss_seconds = 0;         // of which in the ISS (engine: batches minus finishes)
  double batch_seconds = 0;       // of which inside the engine's batches (the parallel part)
  unsigned host_threads = 1;
  uint64_t batches = 0;           // compute batches the engine ran
  double exchange_plan_seconds = 0;  // inside plan_exchange(), all fabrics

  // Exchange totals over every IPU's fabric.
  uint64_t exchanges = 0;         // exchange phases planned (failed ones included)
  uint64_t exchange_messages = 0; // deliveries made (a multicast: one per destination)
  uint64_t exchange_bytes = 0;    // bytes delivered
  uint64_t streaming_copies = 0;  // streaming-memory and host-stream copies done (docs/streaming.md)
  uint64_t streaming_bytes = 0;   // their bytes

  // Simulated instructions per host second, in millions.
  double mips() const { return host_seconds > 0 ? double(instructions) / host_seconds / 1e6 : 0; }
  // The share of the run's wall time spent outside the ISS batches (SystemC kernel,
  // models, accounting).
  // Counts the kernel thread's model work during batches too, though other threads compute
  // meanwhile: an upper bound with several host threads.
  double kernel_share() const { return host_seconds > 0 ? 1.0 - iss_seconds / host_seconds : 0; }
  // The share of the run's wall time outside the batches, when no tile computes.
  double serial_share() const { return host_seconds > 0 ? 1.0 - batch_seconds / host_seconds : 0; }
  // 0 if every tile exited 0; else the exit code of the lowest-numbered tile with a
  // non-zero code, clamped to 1..255. (Faults, exchange errors and deadlocks are the
  // caller's to map.)
  int exit_status() const;
};

class Platform : private tile::TileListener, private sync::SyncObserver {
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
  // The gateway of board `b` (streaming memory and host streams).
  streaming::Gateway& gateway(uint32_t b) { return *gateways_.at(b); }
  uint32_t loaded_tiles() const { return loaded_; }
  const tile::TileEngine& engine() const { return *engine_; }

  // Checks that `program` fits a tile of `chip`: every segment inside SRAM. Throws
  // std::invalid_argument naming the program, the segment and the SRAM end.
  static void check_fits(const iss::Program& program, const config::ChipConfig& chip);

 private:
  // tile::TileListener
  void console_line(const tile::Tile& tile, uint64_t batch, uint32_t thread,
                    std::string_view text) override;
  void tile_stopped(const tile::Tile& tile) override;
  void superstep_closed(const tile::Tile& tile, const tile::SuperstepRecord& record) override;
  // sync::SyncObserver
  void sync_deadlock(const sync::SyncDeadlock& deadlock) override;

  std::string describe_stuck() const;
  void collect(RunResult& result, uint64_t end_cycle);

  config::SystemConfig config_;
  PlatformOptions options_;
  ConsoleCollector console_;
  std::unique_ptr<InstructionTrace> trace_;
  std::unique_ptr<Timeline> timeline_;
  std::unique_ptr<tile::TileEngine> engine_;
  std::unique_ptr<RunControl> control_;
  std::unique_ptr<sync::GroupSync> group_;
  std::vector<std::unique_ptr<Ipu>> ipus_;
  std::vector<std::unique_ptr<streaming::Gateway>> gateways_;  // one per board
  SuperstepAccounts accounts_;
  std::vector<std::vector<tile::SuperstepRecord>> tile_supersteps_;  // by global tile, when kept
  bool keep_tile_supersteps_ = false;
  uint32_t loaded_ = 0;
  uint32_t halted_ = 0;
  uint64_t last_halt_cycle_ = 0;
  bool ran_ = false;
};

}  // namespace ipusim::platform
