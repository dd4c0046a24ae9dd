// What a debugger sees of a simulated system: the contract between the gdb remote stub
// (gdb_server.h, the protocol) and the simulator (platform_target.h, a Platform), so
// the stub can be tested against a fake target without SystemC.
//
// Naming (docs/debugging.md): every IPU of the system is a process (inferior) of gdb,
// pid = ipu + 1; every thread context of every tile a thread of it, tid = tile * 8 +
// slot + 1 (slot 0 = the supervisor, 1..6 the workers). Memory is per tile: an access
// goes to the tile of the thread the debugger last selected (`Hg`), as every tile maps
// its SRAM at the same addresses.
//
// Plain C++; every call but interrupt() is made from one thread (the stub's).
#pragma once

#include <atomic>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace ipusim::debug {

struct ThreadRef {
  uint32_t ipu = 0;
  uint32_t tile = 0;
  uint32_t slot = 0;  // 0 = supervisor, 1..6 = workers
  bool operator==(const ThreadRef&) const = default;
};

// Register numbers, as gdb's RISC-V target description numbers them: x0..x31 = 0..31,
// pc = 32, f0..f31 = 33..64, CSR n = 65 + n (fflags 66, frm 67, fcsr 68, the Xipu CSRs
// above).
inline constexpr uint32_t kRegPc = 32;
inline constexpr uint32_t kRegF0 = 33;
inline constexpr uint32_t kRegCsr0 = 65;

enum class WatchKind { Write, Read, Access };

struct StopEvent {
  enum class Kind {
    Breakpoint,  // `thread` is about to execute an instruction at a software breakpoint
    Watchpoint,  // `thread` is about to access a watched range (`address`, `watch`)
    Step,        // the stepped thread retired one instruction
    Interrupt,   // interrupt() (Ctrl-C) stopped the system
    Catch,       // a catch fired (a sync or an exchange of a tile): `text` says which
    Fault,       // `thread` faulted (`text`: the problem); the run is over
    Exited,      // the run is over: every tile halted (`exit_code`), or `text` says why not
  };
  Kind kind = Kind::Interrupt;
  ThreadRef thread;          // the thread that stopped (for Interrupt / Exited: any, the first)
  uint64_t address = 0;      // Watchpoint: the address accessed
  WatchKind watch = WatchKind::Write;
  int exit_code = 0;         // Exited
  std::string text;          // one line for the debugger's console; may be empty
};

// How to resume: every thread runs (the system in simulated order) until something
// stops it; with `step`, until that thread has retired one instruction. `others` false
// (gdb's `vCont;s:T` without a default action) keeps every other tile where it is: only
// the stepped thread's tile runs. Tiles compute independently between syncs, so this
// changes no result.
//
// `only` (gdb's `vCont;c:T`, which it sends to step a thread over a breakpoint, RISC-V
// gdb single-stepping in software): only T's tile runs, until something stops; the
// other tiles stay where they are, so a breakpoint they reach at the same cycle is still
// reported when they run. If T's tile has nothing to issue (it waits at a sync for the
// others), every tile runs again.
struct Resume {
  std::optional<ThreadRef> step;
  bool others = true;
  std::optional<ThreadRef> only;
};

// A catch: stop when a tile (any tile: nullopt) reaches its next sync or the end of its
// next exchange.
struct Catch {
  enum class Kind { Sync, Exchange };
  Kind kind = Kind::Sync;
  std::optional<uint32_t> ipu, tile;
};

class DebugTarget {
 public:
  virtual ~DebugTarget() = default;

  virtual uint32_t ipus() const = 0;
  virtual uint32_t tiles_per_ipu() const = 0;
  virtual uint32_t slots_per_tile() const = 0;  // supervisor + workers (7)
  // The threads that exist now, in (ipu, tile, slot) order: the supervisor of every tile
  // that runs a program and every worker context in use.
  virtual std::vector<ThreadRef> threads() const = 0;
  virtual bool alive(const ThreadRef& thread) const = 0;
  // For `info threads`: e.g. "tile 7 worker 3" and its state ("at sync", "running").
  virtual std::string name(const ThreadRef& thread) const = 0;
  virtual std::string extra_info(const ThreadRef& thread) const = 0;
  // The CSRs the target description lists after fcsr: number and name (registers
  // kRegCsr0 + number).
  struct CsrDesc {
    uint32_t number;
    std::string name;
  };
  virtual std::vector<CsrDesc> csrs() const = 0;
  // The firmware ELF an IPU runs, for gdb's qXfer:exec-file:read (so gdb loads symbols
  // for every inferior, including those it adds from the thread list). Empty: not known.
  virtual std::string executable(uint32_t ipu) const = 0;

  // Registers (numbers above). nullopt / false: no such register or thread, or a
  // read-only one (a write).
  virtual std::optional<uint32_t> read_register(const ThreadRef& thread, uint32_t regno) const = 0;
  virtual bool write_register(const ThreadRef& thread, uint32_t regno, uint32_t value) = 0;
  // Memory of the thread's tile. False: some byte is outside the tile's SRAM (or, a
  // write, inside its code, which is read-only).
  virtual bool read_memory(const ThreadRef& thread, uint32_t address, std::span<uint8_t> out) const = 0;
  virtual bool write_memory(const ThreadRef& thread, uint32_t address, std::span<const uint8_t> in) = 0;

  // Breakpoints and watchpoints of an IPU (every tile of it). False: not possible there
  // (an address outside code or SRAM).
  virtual bool insert_breakpoint(uint32_t ipu, uint32_t address) = 0;
  virtual bool remove_breakpoint(uint32_t ipu, uint32_t address) = 0;
  virtual bool insert_watchpoint(uint32_t ipu, WatchKind kind, uint32_t address, uint32_t length) = 0;
  virtual bool remove_watchpoint(uint32_t ipu, WatchKind kind, uint32_t address, uint32_t length) = 0;
  virtual void set_catches(std::vector<Catch> catches) = 0;

  // Runs until a stop (blocks). interrupt() may be called from another thread meanwhile:
  // the system then stops soon with Kind::Interrupt. After Fault or Exited the run is
  // over and resume() returns the same event again.
  virtual StopEvent resume(const Resume& how) = 0;
  virtual void interrupt() = 0;
  // The stop that the system is in before the first resume (gdb's `?`).
  virtual StopEvent initial_stop() const = 0;
};

}  // namespace ipusim::debug
