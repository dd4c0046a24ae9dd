// The simulator as a debugger sees it (debug_target.h): a Platform's tiles, stopped and
// resumed through the tile engine's cycle stepping (tile/cycle_stepping.h), with breakpoints,
// watchpoints, single steps and catches checked by a probe before every instruction
// (iss::DebugProbe). docs/debugging.md.
//
// All-stop, deterministic: a stop found in a cycle's check pass leaves every tile
// before that cycle; resuming runs the same instructions in the same order as a run
// without a debugger, so the run's bytes and cycles are the same.
//
// Run budgets (RunBudget's limits) do not apply while a debugger is attached; its
// interrupt flag does (interrupt() sets it).
//
// Attach after the program is loaded and the run started (the tiles are on the
// engine's ready list), on the thread that runs the SystemC kernel; resume() runs the
// kernel (Platform::simulate). detach() returns the platform to batches.
#pragma once

#include <atomic>
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "debug/debug_target.h"
#include "platform/platform.h"
#include "tile/cycle_stepping.h"

namespace ipusim::debug {

class PlatformTarget : public DebugTarget, private tile::CycleStepControl, private iss::DebugProbe {
 public:
  explicit PlatformTarget(platform::Platform& platform);
  ~PlatformTarget() override;
  PlatformTarget(const PlatformTarget&) = delete;
  PlatformTarget& operator=(const PlatformTarget&) = delete;

  // Back to batches (gdb detached): the run goes on at full speed.
  void detach();
  // resume() in parts, for a caller that runs the kernel itself (a device's model
  // thread): begin_resume, then simulate() as it likes; after each, take_stop() is the
  // stop the debugger asked for, if any; run_over() classifies a run that ended.
  void begin_resume(const Resume& how);
  // A device's next run: the last one's end forgotten.
  void new_run();
  // Every breakpoint, watchpoint and catch removed (a gdb gone without detaching).
  void clear_all();
  std::optional<StopEvent> take_stop();
  StopEvent run_over(bool starved);
  // The run is over (an event Fault or Exited was returned).
  bool over() const { return over_.has_value(); }

  // DebugTarget
  uint32_t ipus() const override;
  uint32_t tiles_per_ipu() const override;
  uint32_t slots_per_tile() const override;
  std::vector<ThreadRef> threads() const override;
  bool alive(const ThreadRef& thread) const override;
  std::string name(const ThreadRef& thread) const override;
  std::string extra_info(const ThreadRef& thread) const override;
  std::vector<CsrDesc> csrs() const override;
  std::string executable(uint32_t ipu) const override;
  std::optional<uint32_t> read_register(const ThreadRef& thread, uint32_t regno) const override;
  bool write_register(const ThreadRef& thread, uint32_t regno, uint32_t value) override;
  bool read_memory(const ThreadRef& thread, uint32_t address, std::span<uint8_t> out) const override;
  bool write_memory(const ThreadRef& thread, uint32_t address, std::span<const uint8_t> in) override;
  bool insert_breakpoint(uint32_t ipu, uint32_t address) override;
  bool remove_breakpoint(uint32_t ipu, uint32_t address) override;
  bool insert_watchpoint(uint32_t ipu, WatchKind kind, uint32_t address, uint32_t length) override;
  bool remove_watchpoint(uint32_t ipu, WatchKind kind, uint32_t address, uint32_t length) override;
  void set_catches(std::vector<Catch> catches) override;
  StopEvent resume(const Resume& how) override;
  void interrupt() override;
  StopEvent initial_stop() const override;

 private:
  struct Watch {
    WatchKind kind;
    uint32_t address, length;
    bool operator==(const Watch&) const = default;
  };

  // tile::CycleStepControl
  iss::RunBounds& bounds() override { return bounds_; }
  void begin_pass(uint64_t cycle, bool check) override;
  bool stop_requested() override;
  const tile::Tile* only_tile() const override { return only_; }
  void only_tile_blocked() override;
  bool free_run() const override;
  void stretch_ended(const tile::Tile& tile) override;
  // iss::DebugProbe
  bool stop_before(const iss::TileIdentity& tile, const Insn& insn) override;

  const tile::Tile* tile_of(const ThreadRef& thread) const;
  const iss::TileCore* core_of(const ThreadRef& thread) const;
  std::optional<ThreadRef> first_thread() const;
  void set_tile_bounds(const iss::RunBounds* bounds);

  platform::Platform& platform_;
  iss::RunBounds bounds_;
  std::vector<std::set<uint32_t>> breakpoints_;  // by IPU
  std::vector<std::vector<Watch>> watches_;      // by IPU
  std::vector<Catch> catches_;
  // The resume in progress.
  std::optional<ThreadRef> step_;
  bool step_issued_ = false;
  const tile::Tile* only_ = nullptr;
  std::optional<ThreadRef> only_thread_;  // the one thread gdb resumed, alone
  bool checking_ = false;
  std::optional<StopEvent> stop_;  // found in a pass: the kernel pauses, resume() returns it
  std::optional<StopEvent> over_;
  std::atomic<bool> gdb_interrupt_{false};  // interrupt() was called: set apart from a host's abort
  bool attached_ = true;
};

}  // namespace ipusim::debug
