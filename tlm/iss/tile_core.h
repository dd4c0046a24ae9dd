// The tile instruction-set simulator's narrow interface: plain C++, no SystemC.
//
// A TileCore is one tile: its SRAM, the supervisor and six worker contexts, and the
// barrel scheduling of docs/xipu.md. The SystemC tile module (tlm/tile) drives it by
// calling run() until the tile stops at a platform event (halt, sync, exchange, fault),
// and advances SystemC time by the cycles that run took. Nothing here blocks or waits.
//
// Thread safety: a TileCore is used by one host thread at a time (any thread, and not
// always the same one); different TileCores run concurrently, also when they share one
// Program, which is immutable after loading. The ConsoleSink and TraceSink are called
// from the thread running the tile: a sink shared by tiles must be thread-safe.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <ipu/xipu_isa.h>

#include "common/iss_core.h"  // IssCore: TileParams::Core
#include "common/problem.h"  // plain C++: the fault record
#include "iss/core_snapshot.h"
#include "iss/posting_log.h"  // ExchangePost, PostingLog
#include "iss/program.h"

namespace ipusim::iss {

class Sram;
class AmpDatapath;  // amp_datapath.h

// From the ISA source (hw/isa/xipu.yaml, ipu/xipu_isa.h), like firmware, driver and tile.ld.
inline constexpr uint32_t kSramBase = IPU_SRAM_BASE;
// The most SRAM the tile address space (IPU_ADDRESS_BITS) has room for above kSramBase.
inline constexpr uint64_t kSramMaxBytes = (uint64_t{1} << IPU_ADDRESS_BITS) - kSramBase;
inline constexpr unsigned kIssueSlots = IPU_MAX_WORKERS;  // barrel depth: one issue per thread per 6 cycles

struct TileIdentity {
  uint32_t tile = 0;           // index in its IPU
  uint32_t ipu = 0;            // index in the system
  uint32_t tiles_per_ipu = 1;
  uint32_t ipus = 1;
};

struct TileParams {
  TileIdentity id;
  uint32_t sram_bytes = 256 * 1024;
  uint32_t workers = IPU_MAX_WORKERS;  // worker contexts (the `thread` CSR runs 1..workers)
  uint32_t thread_quantum = 1024;  // instructions a thread runs before another is scheduled
  uint32_t amp_f16_macs = 64;      // AMP f16 MACs per cycle (amp.mac f16 rows = this / 4)
  uint32_t amp_f32_macs = 16;      // AMP f32 MACs per cycle (amp.mac f32 rows = this / 4)
  // The memory paths (docs/xipu.md "Timing"): bytes a load / a store moves per cycle; a
  // wider access takes more issue slots. co_issue: an integer / memory instruction and a
  // floating-point one issue together in one slot when they may (the pairing rule).
  uint32_t load_bytes_per_cycle = 16;
  uint32_t store_bytes_per_cycle = 8;
  bool co_issue = true;
  // The fast loop's engine (docs/iss.md "Translator (--iss jit)"): the threaded
  // interpreter, or the x86-64 translator with the interpreter for what it does not
  // translate. Both give the same registers, memory, cycles and faults. Where the
  // translator is not built (non-x86-64 hosts), jit runs the interpreter (saying so once
  // on stderr). lockstep: the translator, checked against an interpreted shadow at every
  // taken control transfer (docs/iss.md "Lockstep"); a difference stops the tile with a
  // "lockstep divergence" fault. The struct's default is the reference; a system's tiles
  // get iss::default_core() unless configured (tile_config.cpp, core_choice.h).
  using Core = IssCore;
  Core core = Core::interp;
  uint32_t jit_hot_entries = 4;  // jit: a region is translated at its 4th entry
};

// What the translator did for a tile (TileCore::jit_stats): this tile's translations and
// all of its Program's (tiles running one Program share them).
struct JitStats {
  bool active = false;  // the tile runs translated code
  uint64_t tile_translate_ns = 0, tile_regions = 0, tile_code_bytes = 0;
  uint64_t program_translate_ns = 0, program_regions = 0, program_code_bytes = 0;
  uint64_t program_hoisted_loops = 0;  // of those regions, loops with their bounds checks hoisted
};

enum class StopReason {
  Halted,  // the supervisor executed `halt` and every worker has exited
  Sync,    // the supervisor executed `sync` with zone >= 1: the platform must release it
  Fault,   // a thread faulted; the tile cannot continue
  Exchange,  // the supervisor reached `xwait` (or a sync/halt with postings pending):
             // the platform runs the exchange, then calls release_exchange()
  Paused,    // a RunBounds limit or probe stopped the tile before an instruction; run()
             // again goes on from there (nothing to release)
};

// Why a run paused (StopReason::Paused).
enum class PauseReason {
  CycleLimit,        // the next instruction would issue at or after RunBounds::cycle_limit
  InstructionLimit,  // the tile retired RunBounds::instruction_limit instructions
  Interrupt,         // RunBounds::interrupt was set
  Probe,             // the DebugProbe asked to stop before the next instruction
  ConsoleFull,       // the ConsoleSink had no more room: it wants its lines taken first
};
const char* to_string(PauseReason reason);

// A debugger's look at the instruction a thread is about to issue: asked before every
// instruction (the stepping loop) while a probe is set, in the order the tile's threads
// issue (strictly by (cycle, thread)), so a stop before one instruction leaves every
// thread of the tile at a consistent point.
class DebugProbe {
 public:
  struct Insn {
    uint32_t thread = 0;  // 0 = supervisor
    uint64_t cycle = 0;   // the cycle it issues at
    uint32_t pc = 0;
    uint32_t word = 0;
    // A load or store of SRAM (integer, float or wide): its address and size; for a
    // store, store_address / store_size too. A wide load-and-store (ld128st64.pi,
    // ld64st64.pi) sets both flags: address / size are then the load's, store_address /
    // store_size the store's.
    bool load = false, store = false;
    uint32_t address = 0, size = 0;
    uint32_t store_address = 0, store_size = 0;
  };
  virtual ~DebugProbe() = default;
  // true: stop before `insn` (run() returns Paused, PauseReason::Probe). Called from the
  // thread running the tile.
  virtual bool stop_before(const TileIdentity& tile, const Insn& insn) = 0;
};

// Where a run may pause before the tile's next stop (run budgets, an interrupt, a
// debugger). The caller owns it and keeps it alive while the core runs; the fields may
// change between run() calls, never during one (but `interrupt`'s flag, any time).
struct RunBounds {
  static constexpr uint64_t kNone = ~uint64_t{0};
  // No instruction issues at or after this tile cycle (exact: the quantum that would
  // cross it is stepped).
  uint64_t cycle_limit = kNone;
  // The tile retires at most this many instructions in all (its threads together).
  // (A co-issued pair is never split: a limit between its halves retires both.)
  uint64_t instruction_limit = kNone;
  // Checked between quanta (at most every thread_quantum instructions of a thread, and
  // every 2^24 of a supervisor alone): set, the tile pauses at its next quantum.
  const std::atomic<bool>* interrupt = nullptr;
  // Asked before every instruction; the threads then interleave one instruction at a
  // time (slow: for debugging only).
  DebugProbe* probe = nullptr;
};

// A fault is the platform's problem record (common/problem.h), made here where it is
// found: code TileFault, kind ("illegal instruction", "misaligned access", "access
// fault", ...), ipu / tile, thread, pc, the instruction and its disassembly, the address
// of a bad access, the tile cycle.
using Fault = ipusim::Problem;

struct StopInfo {
  StopReason reason = StopReason::Halted;
  int32_t exit_code = 0;       // Halted: the `halt` operand
  uint32_t sync_zone = 0;      // Sync: the zone operand (1 = IPU, 2 = group)
  // Fault: what and where. Shared, immutable: a StopInfo is kept at every stop by the core
  // and by its tile, and a fault record is 648 bytes, most tiles never fault.
  std::shared_ptr<const Fault> fault;
  // Paused: why, and the thread that issues next (at `pause_cycle`, from `pause_pc`).
  PauseReason pause = PauseReason::CycleLimit;
  uint32_t pause_thread = 0;
  uint64_t pause_cycle = 0;
  uint32_t pause_pc = 0;
};

struct ThreadStats {
  uint64_t instret = 0;       // instructions retired by this context
  uint64_t stall_cycles = 0;  // cycles the thread was ready but could not issue (join, sync, no slot)
  uint64_t exchange_stall_cycles = 0;  // supervisor: from each Exchange stop to its release_exchange
                                       // cycle (not part of stall_cycles)
  uint32_t starts = 0;        // workers: how many times the context was started
  int32_t last_status = 0;    // workers: the last `wexit` status
};

// A thread's stack as the stack watch saw it (TileCore::watch_memory; docs/memory_report.md).
struct StackUse {
  uint32_t base = 0, top = 0;  // its region [base, top) as the runtime laid it out; 0, 0: not known
  uint32_t lowest_sp = 0;      // the lowest sp it had just after writing sp; 0: never seen
};

// The tile's exchange and copy buffers over the run (TileCore::watch_memory): the union of
// the ranges its postings had written into it (recv, smread, hsread) and read out of it
// (send, smwrite, hswrite), and how many postings of each.
struct BufferUse {
  std::vector<std::pair<uint32_t, uint32_t>> in, out;  // [begin, end), sorted, disjoint
  uint64_t posts_in = 0, posts_out = 0;
};

// A thread's architectural state (for tests, faults and debuggers): the problem record's
// (common/problem.h), so a fault carries it as it is.
using ThreadRegisters = ipusim::ThreadRegisters;

// Receives complete console lines. Called from whichever host thread runs the tile.
// line() returns whether the sink has room for more: false makes run() return Paused
// (PauseReason::ConsoleFull) at the first point where a pause changes nothing of the
// simulation: at once when the supervisor runs alone, else at the end of the printing
// thread's quantum (quantum boundaries order the threads' lines and stores, so they stay
// where they would be). run() again goes on from there.
class ConsoleSink {
 public:
  virtual ~ConsoleSink() = default;
  virtual bool line(const TileIdentity& tile, uint32_t thread, std::string_view text) = 0;
};

// One retired instruction as a trace sees it: where, and what it changed (in the manner
// of Spike's commit log; docs/platform.md "Instruction trace").
struct RetiredInsn {
  enum class Dest : uint8_t { None, X, F };
  uint32_t thread = 0;  // 0 = supervisor
  uint64_t cycle = 0;   // its issue cycle
  uint32_t pc = 0;
  uint32_t insn = 0;    // the raw word
  // The register it wrote, with the value after it: x1..x31 or f0..f31 (None: no
  // register, or x0).
  Dest dest = Dest::None;
  uint8_t dest_reg = 0;
  uint32_t dest_value = 0;
  // The memory a load or store of RV32IF accessed (mem_size 0: none; the AMP's and the
  // copies' buffers are not listed): its address and, for a store, the value stored (the
  // low mem_size bytes).
  uint8_t mem_size = 0;
  bool mem_store = false;
  uint32_t mem_addr = 0;
  uint32_t mem_value = 0;
  uint32_t fcsr = 0;  // frm << 5 | fflags after it
  // A wide load / store (docs/xipu.md "Wide loads and stores") changes more. Registers:
  // dest is the first one written (a load's f[fd], else the incremented address
  // register), `more` the others in order (the load's further f registers, then the
  // incremented address registers). Memory: mem_size is up to 16 and mem_data has every
  // byte a store wrote (mem_value its first four); a load-and-store (ld128st64.pi,
  // ld64st64.pi) has its load in mem_* and its store in store2_*.
  struct Reg {
    Dest kind = Dest::None;
    uint8_t reg = 0;
    uint32_t value = 0;
  };
  uint8_t more_count = 0;
  Reg more[5];
  uint8_t mem_data[16] = {};
  uint8_t store2_size = 0;
  uint32_t store2_addr = 0;
  uint8_t store2_data[8] = {};
};

// Receives every retired instruction when tracing is on (the tracing run loop is a
// separate instantiation: the fast loop never tests whether tracing is on).
class ProfileSink;

class TraceSink {
 public:
  virtual ~TraceSink() = default;
  // `program`: the one the tile runs (its code_symbols() name the pc).
  virtual void retire(const TileIdentity& tile, const Program& program, const RetiredInsn& insn) = 0;
};

// The tile's CSRs (hw/isa/xipu.yaml): number, name, whether a program may write it.
struct CsrInfo {
  uint32_t number;
  const char* name;
  bool writable;
};
std::vector<CsrInfo> tile_csrs();

// A host's load: every byte of `sram` zero, then the program's segments copied in (.bss
// stays zero). Throws ProgramError for a segment outside the SRAM.
void load_image(Sram& sram, const Program& program);

class TileCore {
 public:
  // Boots over `sram`, which the caller owns and keeps alive, as it is: the program's
  // bytes are expected there already (a host wrote them: load_image() or DMA); the core
  // never clears or loads it. The program's executable range becomes read-only to the
  // host (write()). Throws ProgramError for an image beyond the SRAM, and
  // std::invalid_argument for bad parameters or an SRAM of another size.
  TileCore(const TileParams& params, std::shared_ptr<const Program> program, Sram& sram,
           ConsoleSink* console = nullptr);
  ~TileCore();
  TileCore(const TileCore&) = delete;
  TileCore& operator=(const TileCore&) = delete;

  // Puts the supervisor at the entry point with cycle 0 and every other thread idle.
  // Called by the constructor; call again to rerun (after load_image() if the program
  // must find its image as loaded). SRAM is left as it is.
  void reset();

  // Runs until the tile halts, reaches a sync or an exchange, or faults. After Halted or
  // Fault further calls return the same StopInfo. After Sync, call release_sync() before
  // run(); after Exchange, release_exchange(). A sync with postings pending stops with
  // Exchange first, then (released) with Sync.
  StopInfo run();

  // Resumes after a Sync: the supervisor issues its next instruction at `release_cycle`
  // (>= cycle()). The cycles in between count as sync stall.
  void release_sync(uint64_t release_cycle);

  // After an Exchange stop: the messages this tile posted since its exchange phase
  // opened, in posting order (exchange_posts() copies them out of the log, for tests and
  // tools). release_exchange() clears them and resumes the supervisor at `done_cycle`
  // (>= cycle()); the cycles in between count as exchange stall.
  const PostingLog& exchange_log() const;
  std::vector<ExchangePost> exchange_posts() const { return exchange_log().posts(); }
  void release_exchange(uint64_t done_cycle);

  uint64_t cycle() const;    // tile clock at the last stop (the supervisor's clock)
  uint64_t instret() const;  // instructions retired by all threads of the tile
  JitStats jit_stats() const;
  ThreadStats thread_stats(uint32_t thread) const;  // 0 = supervisor, 1..workers
  ThreadRegisters registers(uint32_t thread) const; // same numbering
  const TileParams& params() const;
  const Program& program() const;

  void set_trace(TraceSink* sink);  // nullptr: the fast loop
  // Profiles the tile's threads into `sink` (borrowed; nullptr: not profiled): its calls
  // and returns are reported (profile_sink.h) and the supervisor starts again at the
  // entry, so call it before the first run() (docs/profiling.md).
  void set_profile(ProfileSink* sink);
  // Watches the threads' stacks and the exchange buffers (docs/memory_report.md): each
  // thread's lowest sp, the buffers the tile's postings name (buffer_use()), and a
  // `stack overflow` fault, before the instruction after the one that moved sp below the
  // thread's region, so nothing below it is written. The supervisor's region is the
  // `supervisor_stack_bytes` below the SRAM's top (0: not known, its lowest sp only), a
  // worker's the wstackbase / wstacksize block it starts with. The supervisor starts again
  // at the entry: call it before the first run(). Not watched: the shared code, unchanged.
  void watch_memory(uint32_t supervisor_stack_bytes);
  StackUse stack_use(uint32_t thread) const;  // 0 = supervisor, 1..workers
  const BufferUse& buffer_use() const;
  // Limits and a probe for the next run() calls (nullptr: none, the fast path).
  void set_bounds(const RunBounds* bounds);
  // amp.mac's arithmetic on `datapath` (borrowed, outlives the core; nullptr: the ISS's
  // own, the default): amp_datapath.h. Results are the same bits either way.
  void set_amp_datapath(AmpDatapath* datapath);
  // Overwrites a thread's registers (a debugger's write); pc must be a code word of the
  // program. Returns false (changing nothing) for a pc outside the code.
  bool set_registers(uint32_t thread, const ThreadRegisters& regs);
  // CSR `csr` as the thread's next instruction would read it (the counters at its clock);
  // nullopt: the tile has no such CSR. tile_csrs() lists them (the ISA source's table).
  std::optional<uint32_t> read_csr(uint32_t thread, uint32_t csr) const;
  // Whether a thread's context is in use: the supervisor always (until the tile stops
  // for good), a worker while it runs.
  bool thread_alive(uint32_t thread) const;

  // The architectural state for a checkpoint (docs/checkpoints.md), and back: restore()
  // takes a snapshot of a core of the same program and parameters, over an SRAM the
  // caller has restored, and throws std::invalid_argument for one that does not fit
  // (a pc outside the code, too many threads).
  CoreSnapshot snapshot() const;
  void restore(const CoreSnapshot& snapshot);

  // Host-side access to SRAM by tile address, for loaders, debuggers and the driver.
  // Return false (and change nothing) if any byte falls outside SRAM.
  bool read(uint32_t addr, std::span<uint8_t> out) const;
  bool write(uint32_t addr, std::span<const uint8_t> in);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace ipusim::iss
