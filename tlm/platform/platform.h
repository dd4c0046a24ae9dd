// The simulated system: config -> netlist, program loading, one run, results.
//
//   Platform (plain C++: owns the SystemC modules of one process)
//     engine     tile::TileEngine: runs the tiles' compute stretches in parallel batches
//     control    RunControl: ends the simulation at the first stop in simulated time, and
//                pauses it when a copy waits on a host stream
//     ipu<I>     Ipu (netlist.h), I = 0 .. boards * ipus_per_board - 1
//       tile<T>  tile::Tile
//       sync     sync::SyncController
//     gateway<B> streaming::Gateway of board B (streaming memory, host streams); every
//                IPU fabric of the board binds its gateway_socket to it
//   group sync   sync::GroupSync (zone 2 across every IPU of the system; plain C++); its
//                latency follows the IPU-Links (links::Topology, docs/sync.md)
//   exchange group  exchange::ExchangeGroup: an exchange after a zone-2 sync, across the
//                system's IPUs over the IPU-Links
//
// A process elaborates one Platform (SystemC allows one elaboration per process). The
// whole system runs as one: every run goes through one lifecycle — boot tiles over their
// SRAM, start the run, simulate, read its outcome, finish it, collect results — whose
// steps the run's state machine (common/run_state.h) allows or refuses; `ipusim run` does
// it once (load() + run()), the host interface (tlm/host_if) as often as the host asks. A
// run lasts until every booted tile has halted, or until the first (in simulated time)
// fault, failed exchange or sync deadlock; a host's run also pauses where a copy starts
// to wait on a host stream. How it ended is one value, common/run_end.h's RunEnd. Console
// lines are printed as each compute batch ends (platform_console.h). docs/platform.md and
// docs/chip.md.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <memory>
#include <optional>
#include <ranges>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "checkpoint/checkpoint_file.h"
#include "platform/departed_rows.h"
#include "iss/program.h"
#include "common/config.h"
#include "common/run_end.h"
#include "common/run_state.h"
#include "common/host_clock.h"
#include "cosim/waves.h"
#include "exchange/exchange_group.h"
#include "links/fault_plan.h"
#include "links/topology.h"
#include "platform/netlist.h"
#include "platform/platform_console.h"
#include "platform/platform_supersteps.h"
#include "platform/platform_tiles.h"
#include "platform/platform_timeline.h"
#include "platform/platform_trace.h"
#include "platform/run_budget.h"
#include "platform/run_control.h"
#include "platform/run_progress.h"
#include "memreport/tile_memory.h"
#include "profile/tile_profile.h"
#include "streaming/gateway.h"
#include "sync/group_sync.h"
#include "tile/tile.h"
#include "tile/tile_engine.h"

namespace ipusim::cosim::link {
class RtlLinkCarrier;  // cosim/link/rtl_link_carrier.h
}

namespace ipusim::platform {

struct PlatformOptions {
  ConsoleMode console = ConsoleMode::Tagged;
  std::FILE* console_out = stdout;  // null: count console lines, print none
  std::string itrace_path;          // non-empty: trace retired instructions there
  TraceFilter itrace_filter;        // which tiles, threads and cycles (default: all)
  // Disassembler for the trace (the ISS's); required when itrace_path is set.
  InstructionTrace::Disassembler disassemble;
  // `--profile FILE` (docs/profiling.md): each profiled tile's threads per function and
  // call, written to this callgrind file when the run ends; which IPUs and tiles.
  std::string profile_path;
  TileSelection profile_ipus, profile_tiles;
  std::string profile_command;  // the file's `cmd:` line
  bool profile_split = false;   // --profile-split: a file per tile and thread as well
  // `--memory-report` (docs/memory_report.md): every loaded tile's memory is watched
  // (iss::TileCore::watch_memory: stack high-water marks, stack overflow faults, buffers).
  bool memory_watch = false;
  unsigned host_threads = 1;        // >= 1: threads computing tiles (the kernel's included)
  std::string timeline_path;        // non-empty: write the superstep trace there (--trace)
  uint32_t timeline_tracks_max = 64;  // tracks per IPU in that trace before grouping tiles
  // Keep every tile's superstep records in the result when at most this many tiles run.
  uint32_t per_tile_supersteps_max = 64;
  // Rows of the run's superstep figures that leave the accounts' window, oldest first,
  // each once and final (platform_supersteps.h): what the result no longer holds. `ipusim
  // run --json` writes them as they come.
  SuperstepAccounts::Sink superstep_sink;
  // Faults injected on the IPU-Links (`--link-faults`; docs/links.md): when set, replaces
  // the config's `link_faults`.
  std::optional<links::FaultPlan> link_faults;
  // run(): how far it has got, between the engine's batches, at most once per period
  // (run_progress.h); unset: never.
  ProgressReport progress;
  double progress_period_seconds = 0.25;
  // Called before console lines are printed (set when the progress display shares a
  // terminal with the console: it blanks its line, and redraws at its next report).
  std::function<void()> progress_hide;
  // Each tile's console buffer (tile::Tile::set_console_buffer; `ipusim run
  // --console-buffer`): what a tile holds before it pauses to hand its lines over. It
  // bounds memory only: the lines, their order and every cycle are the same for any size.
  size_t console_buffer_bytes = tile::kConsoleBufferBytes;
  // Checkpoints (docs/checkpoints.md): run() pauses when every tile waits at its
  // checkpoint_at-th sync counted from the run's start (0: never), calls on_checkpoint
  // with that superstep, and goes on; then again every checkpoint_every syncs (0: once).
  uint32_t checkpoint_at = 0;
  uint32_t checkpoint_every = 0;
  // Or the first sync at or after this cycle (SyncController::set_cycle_limit; 0: none).
  uint64_t checkpoint_at_cycle = 0;
  std::function<void(uint64_t superstep)> on_checkpoint;
  // Waveforms of the blocks that run as RTL (`--waves FILE`, docs/cosim.md); null: none.
  // Which blocks run as RTL is the config's `cosim` (config::CosimConfig).
  std::shared_ptr<cosim::Waves> waves;
};

// One direction of one IPU-Link over a run: what it carried and, with faults, what its
// link layer saw (links::LinkCounters: errors detected, replays, retrains, cycles lost).
struct LinkResult {
  uint32_t link = 0;                   // index in the config's links
  uint32_t from_ipu = 0, to_ipu = 0;
  uint64_t frames = 0, bytes = 0;
  double busy_cycles = 0;              // sending
  links::LinkCounters layer;           // all zero without faults
};

// One board's figures since the last reset (its own tiles and fabrics).
struct BoardStats {
  uint64_t cycles = 0;          // max over the board's booted tiles (where simulated time reached)
  uint64_t instret = 0;         // the board's booted tiles
  uint64_t supersteps = 0;      // syncs released on the board's first IPU with booted tiles
  uint64_t exchange_bytes = 0;  // delivered by the board's fabrics
  uint64_t sim_time_ps = 0;     // SystemC time since the last RUN from READY (or reset)
  uint32_t booted = 0;
  int32_t exit_code = 0;        // lowest-numbered halted tile's non-zero code, else 0
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
  // State Faulted: the fault. A pointer: nearly every tile has none, and a record held
  // inline (648 bytes) made a POD64's results 73 MB (docs/chip.md "Memory per tile").
  std::shared_ptr<const Problem> fault;
  // When kept (per_tile_supersteps_max): the tile's records of the supersteps the result
  // holds (entry j: superstep RunResult::supersteps_first + j), and how many it closed.
  std::vector<tile::SuperstepRecord> supersteps;
  uint64_t superstep_count = 0;
};

// One part of the host's work in a run (docs/platform.md "Where the host time goes"):
// its wall seconds, and of them those in which one host thread worked alone (outside the
// engine's batches and the exchange's parallel work). Host figures.
struct HostComponent {
  std::string name;             // iss, stops, exchange_plan, links, exchange_delivery, sync, console, run_control, other
  double seconds = 0;
  double serial_seconds = 0;
};

struct RunResult {
  std::vector<TileResult> tiles;  // every loaded tile, in (ipu, tile) order
  bool tile_supersteps_kept = false;  // tiles[].supersteps hold the records (per_tile_supersteps_max)
  uint32_t ipus = 0;              // IPUs with at least one loaded tile
  uint64_t tile_cycles = 0;       // max over tiles
  double simulated_seconds = 0;   // tile_cycles at the tile clock
  uint64_t instructions = 0;      // sum over tiles
  uint64_t console_lines = 0;
  // The console FILE could not be written (ConsoleCollector::write_error): the OS error.
  std::optional<std::string> console_error;
  // Per IPU (index = IPU), per superstep: totals over the IPU's tiles, for the supersteps
  // the accounts' window still holds (entry j: superstep supersteps_first + j; the older
  // ones went to PlatformOptions::superstep_sink), up to the IPU's own count.
  std::vector<std::vector<SuperstepTotals>> supersteps;
  uint64_t supersteps_first = 0;
  uint64_t superstep_count = 0;        // the most supersteps of any IPU
  uint64_t late_superstep_records = 0;  // SuperstepAccounts::late_records()
  // How the run ended (common/run_end.h): Halted, or Fault, ExchangeError, Deadlock (a
  // stream or a hold with no host to serve it included), Budget or Interrupted with its
  // problems (and the tiles still running); the CLI renders it (text, JSON, exit status).
  RunEnd end;

  // Host figures (differ from run to run and with host_threads; nothing else does).
  double host_seconds = 0;        // wall time of the simulation itself
  double iss_seconds = 0;         // of which in the ISS (engine: batches minus finishes)
  double batch_seconds = 0;       // of which inside the engine's batches (the parallel part)
  unsigned host_threads = 1;
  uint64_t batches = 0;           // compute batches the engine ran
  double exchange_plan_seconds = 0;  // inside plan_exchange(), all fabrics
  // Of host_seconds, the exchange's work on the engine's pool of host threads (the plans'
  // chunks, the deliveries' parts): parallel, like the batches.
  double exchange_parallel_seconds = 0;
  // host_seconds by component (Platform::run() only), in the order of HostComponent::name;
  // their seconds add up to host_seconds, their serial seconds to serial_share's.
  std::vector<HostComponent> host_components;
  // The tiles' ISS engine (docs/iss.md "Translator (--iss jit)"), as they ran it: jit
  // only where the translator is built. Tiles traced by --itrace step on the interpreter
  // whatever the engine (every instruction is reported). For jit, what the translator did,
  // summed over the tiles (each counts the translations it made: they partition their
  // Programs'); its time is host time on the tiles' threads, part of iss_seconds.
  IssCore iss_core = IssCore::interp;
  uint32_t itrace_tiles = 0;      // loaded tiles that --itrace traces
  uint64_t jit_regions = 0;       // regions translated
  uint64_t jit_code_bytes = 0;    // host code emitted
  double jit_seconds = 0;         // translating

  // Exchange totals over every IPU's fabric.
  uint64_t exchanges = 0;         // exchange phases planned (failed ones included)
  uint64_t exchange_messages = 0; // deliveries made (a multicast: one per destination)
  uint64_t exchange_bytes = 0;    // bytes delivered
  uint64_t streaming_copies = 0;  // streaming-memory and host-stream copies done (docs/streaming.md)
  uint64_t streaming_bytes = 0;   // their bytes
  // Every direction of every link that carried something (link, then direction order).
  std::vector<LinkResult> links;
  uint64_t link_cycles_lost = 0;  // summed over directions: what faults added to the run

  // Simulated instructions per host second, in millions.
  double mips() const { return host_seconds > 0 ? double(instructions) / host_seconds / 1e6 : 0; }
  // The share of the run's wall time spent outside the ISS batches (SystemC kernel,
  // models, accounting).
  // Counts the kernel thread's model work during batches too, though other threads compute
  // meanwhile: an upper bound with several host threads.
  double kernel_share() const { return host_seconds > 0 ? 1.0 - iss_seconds / host_seconds : 0; }
  // The share of the run's wall time in which one host thread works alone: outside the
  // batches and the exchange's parallel work.
  double serial_share() const {
    return host_seconds > 0 ? 1.0 - (batch_seconds + exchange_parallel_seconds) / host_seconds : 0;
  }
  // The share of the run's wall time spent translating (summed over threads: with several
  // host threads an upper bound).
  double jit_share() const { return host_seconds > 0 ? jit_seconds / host_seconds : 0; }
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
  const Ipu& ipu(uint32_t i) const { return *ipus_.at(i); }
  // The gateway of board `b` (streaming memory and host streams).
  streaming::Gateway& gateway(uint32_t b) { return *gateways_.at(b); }
  // Tiles booted (or loaded) since the last reset_run.
  uint32_t loaded_tiles() const { return run_.booted(); }
  // The run's exit status as RunResult::exit_status() gives it, from the tiles as they are.
  int exit_status() const;
  const tile::TileEngine& engine() const { return *engine_; }

  // ---- the lifecycle of a run (docs/platform.md "How a run proceeds") -----------------
  // boot tiles -> start_run -> simulate ... -> outcome -> [hold_run -> continue_run ...]
  // -> finish_run -> results; then reset_run to boot again. load() + run() are this
  // lifecycle once (`ipusim run`); the host interface drives it as the host's commands
  // come, on the thread that runs the kernel, between simulate()s. Each step is an event
  // of the run's state machine (common/run_state.h): a step out of order throws
  // RunStateError naming the state and the event.
  RunState run_state() const { return run_.state(); }
  bool run_in_progress() const { return run_.in_run(); }  // Running, Paused or StreamWait
  // Creates tile `tile` of IPU `ipu`'s core over its SRAM as it is (tile::Tile::boot).
  void boot_tile(uint32_t ipu, uint32_t tile, std::shared_ptr<const iss::Program> program);
  // A run from the booted state: cycle 0 becomes the current SystemC time; the booted
  // tiles become the participants of their IPU's syncs and exchanges and start; IPU i
  // holds its supersteps[i]-th sync release (0 or past the span's end: none). A
  // non-empty `trace_path` gets the run's superstep trace (Timeline, as `--trace`) when
  // it is finished; a path that cannot be written makes the run's OUTPUT problem
  // (output_problem()). continue_run releases what was held (a paused run goes on) and
  // resumes a run paused on a host stream.
  void start_run(std::span<const uint32_t> supersteps, const std::string& trace_path = {});
  void continue_run(std::span<const uint32_t> supersteps);
  // Runs the kernel until nothing is pending, the run stops or pauses (RunControl), or
  // the engine sees `attention` (set_attention). Returns true if the kernel starved.
  // An exception out of the kernel (an RTL block's failed check, a model that gave up)
  // does not leave it: the run ends Aborted with a MODEL problem (gave_up()), and since
  // SystemC cannot simulate after an error, every later simulate() returns at once and
  // every later run ends so again.
  bool simulate();
  // One delta cycle at the current SystemC time, which does not move: while the run is
  // paused on a host stream, the host's DMA retires in zero simulated time. Returns
  // whether anything more is due at this time.
  bool simulate_delta();
  void set_attention(const std::atomic<bool>* flag) { engine_->set_attention(flag); }
  // Run budgets and the interrupt flag (run_budget.h): limits for the runs started from
  // now on; interrupt() from any thread.
  RunBudget& budget() { return budget_; }
  // The tiles computing at `end_cycle` (state_at Running): where each stands.
  std::vector<RunningTile> running_tiles(uint64_t end_cycle) const;
  // The loaded tiles waiting at a sync or an exchange at `end_cycle` (WaitingTile).
  std::vector<WaitingTile> waiting_tiles(uint64_t end_cycle) const;
  // The MODEL problem an exception out of the kernel became (simulate()), or null.
  const Problem* gave_up() const { return gave_up_ ? &*gave_up_ : nullptr; }
  // How the run stands; `starved`: what simulate() returned. None: it is still running.
  // Otherwise how it ended (its problems located), or Paused / StreamWait: every IPU
  // holds a release, or copies wait on host streams (the run paused where the first began
  // to wait, or the kernel starved with one waiting). Deadlock without a stop: why the
  // kernel starved with tiles waiting.
  std::optional<RunEnd> outcome(bool starved) const;
  // The run stops where outcome() found it Paused or StreamWait (`why`), until
  // continue_run.
  void hold_run(RunEndKind why);
  // By board: the board's oldest copy blocked on a host stream (none: no copy of the
  // board waits); empty if none waits.
  std::vector<std::optional<streaming::StreamWait>> stream_waits() const;
  // Stops every tile where it is (an error or an abort): nothing runs again until
  // reset_run().
  void freeze();
  // The run is over (halted, error, abort): closes the supersteps of the tiles that did
  // not halt (marked incomplete), completes the waveforms and writes the run's trace.
  // Once per run (the state machine's End).
  void finish_run();
  // A file finish_run was to write for a host and could not (a waveform on a full disk,
  // the trace start_run was given): an OUTPUT problem (kind "waveform" or "trace") the
  // host interface reports when the run had none of its own. Taken once; each file's
  // failure is named on stderr too. `ipusim run` reads the waveform's from cosim::Waves.
  std::optional<Problem> take_output_problem() { return std::exchange(output_problem_, std::nullopt); }
  // Unboots every tile, zeroes their SRAM, clears the controllers, fabrics, run control
  // and figures (a run in progress is finished first: its trace is written).
  void reset_run();
  // Board `board`'s figures: its tiles and fabrics, where the run's time reached.
  BoardStats board_stats(uint32_t board) const;
  // BoardStats::sim_time_ps alone: where simulated time is since the run's epoch (cheap,
  // unlike board_stats, which visits every tile of the board).
  uint64_t sim_time_ps() const;
  // IPU `ipu`'s totals per superstep since the run's start (the SuperstepTotals
  // `ipusim run --json` reports).
  // IPU `ipu`'s supersteps the accounts' window holds (entry j: superstep
  // superstep_window_first() + j), up to its own count.
  std::vector<SuperstepTotals> ipu_supersteps(uint32_t ipu) const { return accounts_.ipu(ipu); }
  uint64_t superstep_window_first() const { return accounts_.first(); }
  void set_console(std::FILE* out) { console_.set_output(out); }
  // Called once, on the kernel's thread, when writing the console FILE first fails (the OS
  // error's text; ConsoleCollector::set_write_error_hook). `ipusim run` ends the run.
  void set_console_write_error_hook(std::function<void(const std::string&)> hook) {
    console_.set_write_error_hook(std::move(hook));
  }
  // The engine's cycle stepping (a debugger: tlm/debug); nullptr: batches.
  void set_cycle_stepping(tile::CycleStepControl* control) { engine_->set_cycle_stepping(control); }
  // Replaces run()'s one simulate(): `drive` calls simulate() as often as it needs until
  // the run is over (a debugger stopping and resuming it). Before run().
  void set_run_driver(std::function<void()> drive) { run_driver_ = std::move(drive); }
  // Console lines to `sink` rather than the FILE (empty: back to it); platform_console.h.
  void set_console_sink(ConsoleCollector::Sink sink) { console_.set_sink(std::move(sink)); }
  // The faults of the next runs; the link statistics start again from zero. Between
  // runs only.
  void set_link_faults(const links::FaultPlan& plan);
  // The faults the platform was built with (the options', else the config's).
  const links::FaultPlan& initial_link_faults() const { return initial_link_faults_; }
  // Every direction of every link that carried something since the last reset_run (link,
  // then direction order).
  std::vector<LinkResult> link_results() const;
  void flush_console() { console_.flush(); }

  // ---- checkpoints (platform_checkpoint.cpp, docs/checkpoints.md) ----------------------
  // The run's architectural state as checkpoint sections, where run() paused at a
  // checkpoint (PlatformOptions::on_checkpoint): every loaded tile waiting at the held
  // sync (or halted), nothing in flight. Throws checkpoint::CheckpointError (Unsupported)
  // naming what is not in the state this build saves. The `sram` section is produced as
  // it is written (checkpoint::Section::produce): write the sections before the run goes on.
  std::vector<checkpoint::Section> checkpoint_sections(uint64_t superstep);
  // Puts a checkpoint's state into the platform after load() of the checkpoint's program
  // on its tiles, before run(); run() then goes on from there. Throws
  // checkpoint::CheckpointError naming a section that does not fit this platform.
  void restore_checkpoint(const checkpoint::Checkpoint& ckpt);
  // The superstep the restored checkpoint was taken at (0: none restored).
  uint64_t restored_superstep() const { return restored_superstep_; }

  // PlatformOptions::memory_watch: each loaded tile's stacks, heap and exchange buffers as
  // the run left them, in (ipu, tile) order (platform_memory.cpp).
  std::vector<memreport::TileMemory> memory_use() const;

  // Fills the problem's function / source (and its peer's) from the program booted on
  // the tile it names, where that program came from an ELF; leaves them as they are
  // otherwise. outcome() and run() locate every problem they report.
  void locate(Problem& p) const;

  // Checks that `program` fits a tile of `chip`: every segment inside SRAM. Throws
  // std::invalid_argument naming the program, the segment and the SRAM end.
  static void check_fits(const iss::Program& program, const config::ChipConfig& chip);

 private:
  // An elaboration that failed lets go of what it built without destroying it
  // (ElaborationError, netlist.h).
  void abandon_netlist();
  // tile::TileListener
  void console_line(const tile::Tile& tile, uint64_t batch, uint32_t thread,
                    std::string_view text) override;
  void tile_stopped(const tile::Tile& tile) override;
  void superstep_closed(const tile::Tile& tile, const tile::SuperstepRecord& record) override;
  // A pause at a bound: the budget's (a debugger's probe is not here yet).
  void tile_paused(const tile::Tile& tile) override;
  // sync::SyncObserver
  void sync_deadlock(const sync::SyncDeadlock& deadlock) override;

  // The global indices of a board's IPUs.
  auto board_ipus(uint32_t board) const {
    return std::views::iota(board * config_.board.ipus, (board + 1) * config_.board.ipus);
  }
  Problem describe_stuck() const;
  // The problem records of what `stop` reports (described now: a deadlock names every
  // tile that arrived by the end).
  // `running`: the tiles still running at a Budget or Interrupted stop (running_tiles).
  std::vector<Problem> stop_problems(const StopRequest& stop, const std::vector<RunningTile>& running) const;
  void add_timeline_ipu(Timeline& timeline, const Ipu& ipu) const;
  void set_tile_trace(tile::Tile& tile, uint32_t ipu, uint32_t index);
  RunProgress progress(double host_seconds) const;  // platform_progress.cpp
  void collect(RunResult& result, uint64_t end_cycle);
  void batch_ended();                // the engine's batch end: the progress line, the budget's checks
  uint64_t now_cycle() const;        // the current SystemC time as a cycle of the run
  void give_up(const std::exception& error);  // the kernel threw: gave_up_
  void note_output_problem(const std::string& kind, const std::string& detail);  // output_problem_
  uint64_t total_instructions() const;
  static uint64_t cycles_reached(const tile::Tile& tile, uint64_t end_cycle);

  config::SystemConfig config_;
  PlatformOptions options_;
  links::Topology topology_;  // the IPU-Link graph: the sync groups' hop counts
  ConsoleCollector console_;
  std::unique_ptr<InstructionTrace> trace_;
  std::vector<std::unique_ptr<profile::TileProfile>> profiles_;  // --profile: one per profiled tile
  std::unique_ptr<tile::TileEngine> engine_;
  exchange::PlanThreads plan_threads_;  // the exchange plans run on the engine's pool
  double exchange_parallel_seconds_ = 0;  // wall time inside plan_threads_
  // Host ticks (common/host_clock.h) of the run's serial pieces the platform calls itself:
  // printing console lines, and the batch end's progress line and budget checks.
  uint64_t console_ticks_ = 0, run_control_ticks_ = 0;
  HostClock host_clock_;  // their seconds, and the exchange's and the sync controllers'
  std::vector<HostComponent> host_components(double host_seconds) const;  // platform_host_time.cpp
  // The run: its state, what ends it (control), the sync group, the exchange group and
  // the cycle-0 epoch of every IPU.
  RunStateMachine run_;
  std::unique_ptr<RunControl> control_;
  std::unique_ptr<sync::GroupSync> group_;
  std::unique_ptr<exchange::ExchangeGroup> exchange_group_;  // phases after a zone-2 sync
  sc_core::sc_time epoch_;  // SystemC time of cycle 0: the run's last start
  std::unique_ptr<Timeline> timeline_;  // the superstep trace of the current run, if any
  bool timeline_is_hosts_ = false;      // from start_run's trace_path: its failure is no run error
  std::optional<Problem> gave_up_;       // simulate(): the kernel threw; it runs no more
  std::optional<Problem> output_problem_;  // finish_run: the first file it could not write
  uint32_t halted_ = 0;                 // booted tiles halted in this run
  uint64_t last_halt_cycle_ = 0;
  links::FaultPlan initial_link_faults_;
  // `cosim: {link: rtl}`: the link RTL carries every exchange phase over the IPU-Links
  // (one Verilated model per link direction); null when the links run as TLM.
  std::unique_ptr<cosim::link::RtlLinkCarrier> link_rtl_;
  std::vector<std::unique_ptr<Ipu>> ipus_;
  std::vector<std::unique_ptr<streaming::Gateway>> gateways_;  // one per board
  SuperstepAccounts accounts_;
  RunBudget budget_;
  std::vector<uint64_t> tile_superstep_counts_;  // by global tile, when kept
  bool keep_tile_supersteps_ = false;
  std::function<void()> run_driver_;  // set_run_driver
  uint64_t restored_superstep_ = 0;   // restore_checkpoint
  // What a restored checkpoint had counted, applied by run() once the run has started.
  struct RestoredRun {
    uint64_t console_lines = 0;
    bool keep_tile_supersteps = false;
    std::vector<uint64_t> tile_superstep_counts;
    std::vector<std::array<uint64_t, 2>> sync_releases;  // by IPU: zone 1, zone 2
    std::vector<exchange::ExchangeFabric::Counters> fabric_counters;
    SuperstepAccounts::Saved accounts;
    exchange::ExchangeGroup::Saved links;
    std::vector<uint8_t> departed_rows;  // the `rows` section: the rows before accounts.first
  };
  std::optional<RestoredRun> restored_run_;
  void apply_restored_run();
  // With PlatformOptions::on_checkpoint: the rows that left the accounts' window, for
  // the checkpoints' `rows` section (departed_rows.h).
  std::unique_ptr<DepartedRows> departed_rows_;
  void row_departed(const SuperstepRow& row);  // the accounts' sink
  // run()'s simulation with its checkpoint pauses (PlatformOptions::checkpoint_at).
  void simulate_with_checkpoints();
  std::unique_ptr<ProgressClock> progress_clock_;  // during run(), with PlatformOptions::progress
};

}  // namespace ipusim::platform
