// A DebugTarget without a simulator, for the stub's tests: two IPUs, a few tile threads
// that each run a straight loop of 4-byte "instructions", an SRAM per tile, and
// scripted stops. Thread 0 (IPU 0, tile 0, supervisor) stores a counter to kWatched
// whenever it executes the instruction at kStorePc, so watchpoints have a write to see.
#pragma once

#include <array>
#include <atomic>
#include <deque>
#include <map>
#include <mutex>
#include <set>
#include <tuple>
#include <vector>

#include "debug/debug_target.h"

namespace ipusim::debug::testing {

class FakeTarget : public DebugTarget {
 public:
  static constexpr uint32_t kSramBase = 0x40000;
  static constexpr uint32_t kSramSize = 0x40000;
  static constexpr uint32_t kStorePc = 0x40020;   // thread 0's store
  static constexpr uint32_t kWatched = 0x50000;   // ... to this word
  static constexpr uint32_t kLoop = 0x100;        // each thread loops over 0x100 bytes

  struct Thread {
    ThreadRef ref;
    std::array<uint32_t, 32> x{};
    std::array<uint32_t, 32> f{};
    uint32_t pc = 0;
    uint32_t start = 0;
  };

  FakeTarget();

  uint32_t ipus() const override { return 2; }
  uint32_t tiles_per_ipu() const override { return 8; }
  uint32_t slots_per_tile() const override { return 7; }
  std::vector<ThreadRef> threads() const override;
  bool alive(const ThreadRef& thread) const override;
  std::string name(const ThreadRef& thread) const override;
  std::string extra_info(const ThreadRef& thread) const override;
  std::vector<CsrDesc> csrs() const override;
  std::string executable(uint32_t) const override { return elf_path; }
  std::optional<uint32_t> read_register(const ThreadRef& thread, uint32_t regno) const override;
  bool write_register(const ThreadRef& thread, uint32_t regno, uint32_t value) override;
  bool read_memory(const ThreadRef& thread, uint32_t address, std::span<uint8_t> out) const override;
  bool write_memory(const ThreadRef& thread, uint32_t address, std::span<const uint8_t> in) override;
  bool insert_breakpoint(uint32_t ipu, uint32_t address) override;
  bool remove_breakpoint(uint32_t ipu, uint32_t address) override;
  bool insert_watchpoint(uint32_t ipu, WatchKind kind, uint32_t address, uint32_t length) override;
  bool remove_watchpoint(uint32_t ipu, WatchKind kind, uint32_t address, uint32_t length) override;
  void set_catches(std::vector<Catch> catches) override {
    catch_calls.push_back(catches);
    catches_ = std::move(catches);
  }
  StopEvent resume(const Resume& how) override;
  void interrupt() override { interrupted_ = true; }
  StopEvent initial_stop() const override;

  // What the tests look at and script.
  std::vector<Thread> thread_state;
  std::deque<StopEvent> script;              // resume() returns these first, in order
  std::vector<Resume> resumes;               // every resume() call
  std::set<std::pair<uint32_t, uint32_t>> breakpoints;
  std::set<std::tuple<uint32_t, WatchKind, uint32_t, uint32_t>> watchpoints;
  std::vector<Catch> catches_;
  std::vector<std::vector<Catch>> catch_calls;  // every set_catches(), in order
  std::string elf_path;                      // executable(): empty by default
  bool block_until_interrupt = false;        // resume() waits for interrupt() (10 s at most)
  uint64_t max_instructions = 100000;        // a continue then ends the run (Exited 0)
  std::atomic<bool> interrupted_{false};

  Thread* find(const ThreadRef& t);
  const Thread* find(const ThreadRef& t) const;
  std::vector<uint8_t>& sram(uint32_t ipu, uint32_t tile);

 private:
  bool watch_hit(const Thread& t) const;
  void execute(Thread& t);
  std::map<std::pair<uint32_t, uint32_t>, std::vector<uint8_t>> sram_;
  std::optional<StopEvent> final_;
  uint32_t counter_ = 0;
};

}  // namespace ipusim::debug::testing
