// ipudrv: the host driver of an ipusim system, the API a driver for the silicon would
// offer. A device is a whole system — a board, or a pod of boards with all their IPUs —
// and the driver knows it only through each board's host interface (registers, DMA rings
// in host memory, one interrupt per board; docs/host_if.md), reached through a
// transport: in-process (a simulated system elaborated in this process) or a socket to
// `ipusim serve`.
//
//   auto devices = ipudrv::enumerate("config:configs/pod16.yaml");  // or "unix:/tmp/ipu.sock"
//   auto dev = devices.at(0).open();   // 16 IPUs on 4 boards: device IPUs 0..15
//   dev->load(ipudrv::Elf::from_file("kernel.elf"));
//   dev->write_symbol(0, 0, "input", bytes);
//   auto result = dev->run();          // until every tile halts; throws ipudrv::Error
//
// IPU numbers: every `ipu` of this API is a device IPU, 0 .. info().ipus - 1; device IPU
// i is IPU i % ipus_per_board of board i / ipus_per_board. Streaming memory and host
// streams belong to a board (its gateway): the calls without a board mean board 0.
//
// Thread safety: a Device may be used from several threads; calls are serialised, and a
// call made while a run is in flight (run_async) throws UsageError, except stats(),
// state() and abort(). docs/host_driver.md.
//
// Console: the tiles' printf lines reach the program through Device::set_console's
// callback, on the thread that runs the run, in the order `ipusim run` prints them, all
// of a run's lines before run() returns; by default printed to stdout as `ipusim run`
// prints them ("[ipu 0 tile 3] text").
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <future>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include <ipu/host_records.h>

#include "ipudrv/elf.h"
#include "ipudrv/errors.h"
#include "ipudrv/tensor.h"

namespace ipudrv {

// What the device's boards report in their identification registers.
struct DeviceInfo {
  std::string locator;         // how it was found ("unix:/tmp/s", "config:configs/pod16.yaml")
  // The system runs in this process (config:, the process's model); false: in another
  // (unix:, or the `ipusim serve` child of the driver's own a config: device gets when
  // this process's model holds another system: docs/host_driver.md "Locators").
  bool in_process = false;
  uint32_t version_major = 0, version_minor = 0;  // register map version
  uint32_t board_index = 0;    // the device's first board (0: the device is the whole system)
  uint32_t boards = 1;         // boards of the device, each with its own host interface
  uint32_t ipus = 0;           // IPUs of the device, every board's: device IPUs 0 .. ipus - 1
  uint32_t ipus_per_board = 0; // device IPU i is IPU i % ipus_per_board of board i / ipus_per_board
  uint32_t tiles_per_ipu = 0, workers = 0;
  uint32_t system_ipus = 0;    // IPUs of the simulated system (= ipus: a device is the system)
  uint32_t sram_bytes = 0;     // per tile; tile addresses start at IPU_SRAM_BASE (ipu/xipu_isa.h)
  uint32_t tile_clock_khz = 0;
  uint64_t smem_bytes = 0;     // streaming memory of each board (0: none)
  uint32_t host_link_mbps = 0;
  uint32_t stream_fifo_bytes = 0;
  bool has_streams = false;
  uint32_t amp_f16_macs = 0;   // AMP f16 multiply-accumulates per cycle per tile (amp.mac f16 rows = / 4)
  uint32_t amp_f32_macs = 0;   // AMP f32 multiply-accumulates per cycle per tile
};

struct OpenOptions {
  bool use_interrupts = true;        // false: poll registers only
  std::string trace_path;            // non-empty: Device::set_trace(trace_path) at open
  uint32_t ring_entries = 64;        // descriptors per DMA ring (power of 2)
  uint32_t chunk_bytes = 1u << 20;   // most bytes one descriptor moves
  uint32_t staging_bytes = 4u << 20; // host memory per channel for copies of caller buffers
  // config: devices: every run from now on waits for gdb on 127.0.0.1:gdb_port (0: any
  // free port, printed on stderr) and is debugged by it (docs/debugging.md, "Devices").
  // A unix: device takes `ipusim serve --gdb PORT` instead (the driver passes it to the
  // `ipusim serve` child of a config: device that runs in one).
  std::optional<uint16_t> gdb_port;
  // config: devices: a run that ends on a problem (a fault, an exchange error, a
  // deadlock, a budget) writes one ELF core per IPU, DIR/ipu<N>.core, for gdb-multiarch
  // (docs/debugging.md "Core files"). A unix: device takes `ipusim serve --core DIR`.
  std::string core_dir;
  // config: devices: the host memory the system may take, in bytes. A system whose
  // estimated memory (`ipusim info` prints it; docs/platform.md "Memory estimate") exceeds
  // it is refused with a UsageError giving the estimate and the limit, before anything is
  // elaborated. Unset: the machine's limits (MemAvailable, the cgroup's memory.max,
  // RLIMIT_AS), or IPUSIM_MAX_MEMORY (e.g. "8G") when set. Only open(locator, device,
  // options) elaborates with it; enumerate(), DeviceRef::open and the C API take
  // IPUSIM_MAX_MEMORY. A unix: device takes `ipusim serve --max-memory`.
  std::optional<uint64_t> max_memory;
  // config: devices: which blocks run as their Verilated RTL instead of their TLM model
  // (docs/cosim.md): "sync", "link", "amp" separated by commas, or "none"; the listed
  // blocks run as RTL and every other as TLM, replacing the config's `cosim`. Unset: the
  // config's choice. Results are the same either way; only the speed differs. Like
  // max_memory, only open(locator, device, options) elaborates with it. A unix: device
  // takes `ipusim serve --rtl LIST`.
  std::optional<std::string> rtl;
  // config: devices: write the RTL blocks' waveforms to this file, FST or VCD by its
  // extension (.fst, .vcd; docs/cosim.md "Waveforms"); empty: none. Elaborated with, as rtl.
  std::string waves;
  // config: devices: the tiles' ISS engine, "jit" (the x86-64 translator), "interp" (the
  // interpreter; docs/iss.md "Translator") or "lockstep" (the translator checked against
  // the interpreter as it runs, "Lockstep": slow; a difference is a fault); anything else
  // is a UsageError naming it. Unset: IPUSIM_ISS (the same values; the choice of
  // enumerate(), DeviceRef::open and the C API), else jit where the translator is built.
  // Results (bytes, cycles) are the same either way; only the speed differs. Elaborated with, as rtl. A unix: device takes
  // `ipusim serve --iss`.
  std::optional<std::string> iss;
};

// The host records (hw/host_if/records.yaml; fields: docs/host_records.md), the structs
// the model fills and the wire carries: one superstep of one IPU, summed over the tiles
// that ran it; one direction of one IPU-Link since the program started (the first run
// after load), as of a run's end, with its IPUs the device's.
using SuperstepStats = ipusim::records::SuperstepStats;
using LinkStats = ipusim::records::LinkStats;
// How a run ended; the device's figures, merged over its boards; what a run returns
// (its state, exit code, RunStats, the supersteps and link directions as of its end).
using RunState = ipusim::records::RunState;
using RunStats = ipusim::records::RunStats;
using RunResult = ipusim::records::RunResult;

// How far a run may go (Device::run(const RunOptions&)); `ipusim run`'s --max-cycles,
// --max-instructions and --timeout (docs/platform.md "Run budgets and interrupts").
struct RunOptions {
  uint32_t supersteps = 0;        // supersteps to run (0: until every tile halts)
  // Budgets of the program's run, taken when it starts from READY (a paused run keeps
  // them; 0: none). Used up with tiles still running: BudgetError naming the first of
  // them, the device in ERROR (reset() and load() to run again). Deterministic.
  uint64_t max_cycles = 0;        // no tile issues at or after this tile cycle
  uint64_t max_instructions = 0;  // all tiles together, checked after each compute batch
  // Wall clock: past it the run is aborted where it is (tiles stop within milliseconds,
  // even in an endless loop) and TimeoutError is thrown; the device is in ERROR.
  std::chrono::milliseconds timeout = std::chrono::milliseconds::max();
  // Asked on the run's thread while it waits for the device (at least every 20 ms):
  // true aborts the run where it is, as a timeout does, and InterruptedError is thrown;
  // the device is in ERROR. The Python binding's Ctrl-C; unset: never asked.
  std::function<bool()> stop_requested;
};

// A range of a board's streaming memory, from Device::alloc_smem.
struct SmemBuffer {
  uint64_t offset = 0;
  uint64_t bytes = 0;
  uint32_t board = 0;
};

// Tiles that run one ELF: device IPU `ipu`, tiles [tile_first, tile_first + tile_count).
struct TileRange {
  uint32_t ipu = 0, tile_first = 0, tile_count = 0;
  auto operator<=>(const TileRange&) const = default;
};

// Host stream endpoints. A fill callback writes up to out.size() bytes into `out` and
// returns how many it wrote (0: no more data). A drain callback takes bytes the tiles wrote.
using StreamFill = std::function<size_t(std::span<std::byte> out)>;
using StreamDrain = std::function<void(std::span<const std::byte> data)>;

// One line a tile printed (its console; docs/firmware.md), without the newline: the host
// record (hw/host_if/records.yaml, docs/host_records.md), as the model gives it.
using ConsoleLine = ipusim::records::ConsoleLine;
using ConsoleHandler = std::function<void(const ConsoleLine& line)>;

// The line as `ipusim run` prints it, newline included: "[ipu 0 tile 3] text",
// "[ipu 0 tile 3 w 2] text" for worker 2.
std::string format_console_line(const ConsoleLine& line);
// The default handler: format_console_line to stdout, flushed.
void print_console_line(const ConsoleLine& line);

class DeviceImpl;

class Device {
 public:
  ~Device();
  Device(const Device&) = delete;
  Device& operator=(const Device&) = delete;

  const DeviceInfo& info() const;

  // CTRL.RESET: unboot every tile, clear stats, errors, streams; forgets the loaded
  // programs, streaming-memory allocations stay allocated (the memory is not cleared).
  void reset();

  // Loading: DMA of every segment (broadcast to the tile range), then BOOT_*.
  void load(const Elf& elf);                                  // every tile of every IPU
  void load(const std::map<TileRange, Elf>& programs);        // ranges must not overlap

  // Tile memory by address or by a symbol of the ELF loaded on that tile. write_symbol /
  // read_symbol of more bytes than the symbol's st_size throw UsageError (naming the
  // symbol, its size and the count); a symbol of size 0 (a label) is not checked.
  void write_tile(uint32_t ipu, uint32_t tile, uint32_t addr, std::span<const std::byte> data);
  void write_tiles(const TileRange& tiles, uint32_t addr, std::span<const std::byte> data);  // broadcast
  void read_tile(uint32_t ipu, uint32_t tile, uint32_t addr, std::span<std::byte> out);
  uint32_t symbol_address(uint32_t ipu, uint32_t tile, const std::string& symbol) const;
  void write_symbol(uint32_t ipu, uint32_t tile, const std::string& symbol, std::span<const std::byte> data);
  void read_symbol(uint32_t ipu, uint32_t tile, const std::string& symbol, std::span<std::byte> out);

  // Tensors (tensor.h; docs/host_driver.md "Tensors"): `data` is the whole tensor in
  // row-major order (layout.bytes() bytes). One call packs it tile by tile into a host
  // buffer the device reaches (one per board, kept and grown: it costs the largest
  // tensor's share of a board) and posts one descriptor per run of consecutive tiles of
  // an IPU with equal blocks (a scatter, DESC_FLAG_PER_TILE; a broadcast when
  // replicated); read_tensor gathers the same way and unpacks. Bad input (a shape that
  // does not match the data, a tile out of range or twice, an empty tile list, a grid
  // that does not match the tiles, a piece past the tensor, a block larger than its
  // symbol) is a UsageError naming it, before anything is sent.
  void write_tensor(const TensorLayout& layout, std::span<const std::byte> data);
  void read_tensor(const TensorLayout& layout, std::span<std::byte> out);
  // Typed views: T must be the layout's dtype (uint16_t stands for f16 and bf16).
  template <class T>
  void write_tensor(const TensorLayout& layout, std::span<const T> data) {
    check_dtype(layout.dtype, dtype_of<T>(), "write_tensor");
    write_tensor(layout, std::as_bytes(data));
  }
  template <class T>
  void read_tensor(const TensorLayout& layout, std::span<T> out) {
    check_dtype(layout.dtype, dtype_of<T>(), "read_tensor");
    read_tensor(layout, std::as_writable_bytes(out));
  }
  // Per-tile launch arguments (tt-metal's SetRuntimeArgs): tile i of `tiles` gets bytes
  // [i * bytes_per_tile, (i + 1) * bytes_per_tile) of `data` at `symbol`, in one call
  // (a blocked_rows tensor of tiles.size() rows of bytes_per_tile bytes).
  void write_per_tile(const TileList& tiles, const std::string& symbol, size_t bytes_per_tile,
                      std::span<const std::byte> data);
  // What the DMA channels of every board posted since open (descriptors, batches, bytes).
  DmaStats dma_stats();

  // Streaming memory of each board (its tiles' copies reach their own board's): a
  // first-fit allocator over [0, SMEM_SIZE) per board. Without a board: board 0.
  SmemBuffer alloc_smem(uint64_t bytes, uint64_t align = 64, uint32_t board = 0);
  void free_smem(const SmemBuffer& buffer);
  void write_smem(uint64_t offset, std::span<const std::byte> data);
  void read_smem(uint64_t offset, std::span<std::byte> out);
  void write_smem(uint32_t board, uint64_t offset, std::span<const std::byte> data);
  void read_smem(uint32_t board, uint64_t offset, std::span<std::byte> out);

  // Host streams (ids 0 .. IPU_STREAMS-1 per direction and board: a tile's copies use its
  // own board's). A buffer must outlive the connection; h2d buffers are consumed front to
  // back, d2h buffers filled front to back. Without a board: board 0.
  void connect_h2d_stream(uint32_t id, std::span<const std::byte> source);
  void connect_h2d_stream(uint32_t id, StreamFill fill);
  void connect_d2h_stream(uint32_t id, std::span<std::byte> sink);
  void connect_d2h_stream(uint32_t id, StreamDrain drain);
  void disconnect_stream(uint32_t id);                // both directions
  size_t d2h_stream_bytes(uint32_t id) const;         // bytes a d2h buffer has received
  void connect_h2d_stream(uint32_t board, uint32_t id, std::span<const std::byte> source);
  void connect_h2d_stream(uint32_t board, uint32_t id, StreamFill fill);
  void connect_d2h_stream(uint32_t board, uint32_t id, std::span<std::byte> sink);
  void connect_d2h_stream(uint32_t board, uint32_t id, StreamDrain drain);
  void disconnect_stream(uint32_t board, uint32_t id);
  size_t d2h_stream_bytes(uint32_t board, uint32_t id) const;

  // Runs `supersteps` supersteps (0: until every tile halts) on every board at once,
  // serving host streams of any board on the way. Throws the typed error of a device
  // error, TimeoutError after `timeout` (the run goes on; abort() or reset() stops it).
  //
  // The tiles' console lines of the run go to the set_console handler while it runs.
  RunResult run(uint32_t supersteps = 0,
                std::chrono::milliseconds timeout = std::chrono::milliseconds::max());
  // The same with budgets; its timeout aborts the run (see RunOptions).
  RunResult run(const RunOptions& options);
  std::future<RunResult> run_async(uint32_t supersteps = 0);
  std::future<RunResult> run_async(const RunOptions& options);
  // CTRL.ABORT: the run ends (run() throws DeviceStateError "aborted"), in any state: a
  // run in progress — even a tile in an endless loop: its tiles pause within
  // milliseconds — or one PAUSED or in STREAM_WAIT. The device is then in ERROR;
  // reset() (or load(), which resets) makes it ready for the next program. Returns at
  // once; callable from any thread while a run is in flight.
  void abort();

  RunStats stats();
  uint32_t state();  // STATUS.STATE (IPU_STATE_*)

  // The superstep trace (Chrome / Perfetto JSON, docs/chip.md "Trace"; the file
  // `ipusim run --trace` writes) of the runs started after this call: written at `path`
  // (on the device's host: the server's, for "unix:") when the program's run ends —
  // halted, error, abort, or reset() after a paused run — before run() returns. "" stops
  // tracing. Throws UsageError if the device cannot open `path` for writing; a run
  // without a problem of its own whose trace cannot be written (a full disk) throws
  // OutputError (ERR_OUTPUT) from run().
  void set_trace(const std::string& path);
  // Faults injected on the device's IPU-Links in every program run started after this
  // call (the first run() after a load(); a paused program keeps its faults), replacing
  // the config's `link_faults`: "[LINK:]SPEC" items separated by ';', as
  // `ipusim run --link-faults` takes them ("ber=1e-6,seed=7", "3:burst=1000:16",
  // "none"; docs/links.md "Fault injection"). Seeded: a run with faults is as
  // deterministic as one without. Throws UsageError naming a bad item. Closing the device
  // restores the config's faults.
  void set_link_faults(const std::string& items);
  // Where the tiles' console lines go, from the next run() on: `handler` is called with
  // each line, on the thread that runs the run (the caller of run(), or run_async's
  // thread), one line at a time, in the order `ipusim run` prints them (simulated order:
  // by superstep, then IPU, tile, and the order the tile printed them), while the run goes
  // on; every line of a run is delivered before run() returns or throws. An empty
  // handler turns the console off (the device drops the lines: nothing crosses a
  // socket). The default is print_console_line (stdout), unless IPUSIM_CONSOLE says
  // `stderr` (the same, to stderr) or `none` (off). Delivering never changes a run's
  // cycles: a slow handler makes the simulation wait, which bounds the memory the lines
  // take. The handler must not call this Device except stats(), state() and abort(); an
  // exception from it propagates out of run() (the run goes on: abort() or reset()).
  // Lines a run prints while no run() waits for it (after a TimeoutError) are dropped
  // and counted: console_lines_dropped(). Over "unix:" to a server older than wire
  // protocol 2.2 the server prints them itself and the handler sees none.
  void set_console(ConsoleHandler handler);
  uint64_t console_lines_dropped();

  // RunResult::links as of the last run's end (also after a run that threw a device error).
  std::vector<LinkStats> link_stats();
  // [device IPU][superstep k] since the program started, as of the last run's end
  // (what RunResult::supersteps holds; also after a run that threw a device error).
  std::vector<std::vector<SuperstepStats>> superstep_stats();
  // The same for device IPU `ipu` alone (UsageError past the device's IPUs).
  std::vector<SuperstepStats> superstep_stats(uint32_t ipu);

  // The device's error registers now (code 0: none): the first board's that has an error
  // (a run's error is on every board), else board 0's. IPUs are device IPUs.
  DeviceErrorInfo error_registers();

  // Raw register access, for diagnostics and tests of the device itself (board 0, or
  // `board`). An offset past BAR0 (IPU_BAR0_BYTES) is a UsageError; one inside it the
  // device answers (a misaligned or unmapped one records its ERR_REG).
  uint32_t read_register(uint32_t offset);
  void write_register(uint32_t offset, uint32_t value);
  uint32_t read_register(uint32_t board, uint32_t offset);
  void write_register(uint32_t board, uint32_t offset, uint32_t value);

  explicit Device(std::unique_ptr<DeviceImpl> impl);

 private:
  template <class T>
  static constexpr DType dtype_of() {
    if constexpr (std::is_same_v<T, uint8_t>) return DType::kU8;
    else if constexpr (std::is_same_v<T, int8_t>) return DType::kI8;
    else if constexpr (std::is_same_v<T, uint16_t>) return DType::kU16;
    else if constexpr (std::is_same_v<T, int16_t>) return DType::kI16;
    else if constexpr (std::is_same_v<T, uint32_t>) return DType::kU32;
    else if constexpr (std::is_same_v<T, int32_t>) return DType::kI32;
    else if constexpr (std::is_same_v<T, uint64_t>) return DType::kU64;
    else if constexpr (std::is_same_v<T, int64_t>) return DType::kI64;
    else if constexpr (std::is_same_v<T, float>) return DType::kF32;
    else if constexpr (std::is_same_v<T, double>) return DType::kF64;
    else static_assert(sizeof(T) == 0, "no DType for this element type: use the std::byte overload");
  }
  static void check_dtype(DType layout, DType given, const char* what);

  std::unique_ptr<DeviceImpl> impl_;
};

// One device found by enumerate(); open() makes a session with it.
class DeviceRef {
 public:
  const DeviceInfo& info() const { return info_; }
  std::unique_ptr<Device> open(const OpenOptions& options = {}) const;

  struct Source;  // how to reach it (transport factory)
  DeviceRef(DeviceInfo info, std::shared_ptr<const Source> source)
      : info_(std::move(info)), source_(std::move(source)) {}

 private:
  DeviceInfo info_;
  std::shared_ptr<const Source> source_;
};

// Devices behind a locator: one, the whole system with every board:
//   "config:PATH" or a plain PATH   a system config, elaborated in this process when its
//                                   model can take it (nothing elaborated yet, or this
//                                   config and not open), else in an `ipusim serve`
//                                   child of the driver's own, which the Device ends
//   "unix:PATH"                     an `ipusim serve` socket
std::vector<DeviceRef> enumerate(const std::string& locator);

// enumerate(locator).at(device).open(options), with a UsageError naming the device count.
std::unique_ptr<Device> open(const std::string& locator, uint32_t device = 0, const OpenOptions& options = {});

}  // namespace ipudrv
