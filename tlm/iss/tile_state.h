// TileState: everything a TileCore is (ISS-internal). SRAM, the supervisor and worker
// contexts, the per-tile CSRs and the deterministic thread scheduler (scheduler.cpp);
// the run loop's out-of-line services live in loop_services.cpp and csr.cpp.
//
// Threads are simulated one quantum at a time, always the one with the smallest
// (clock, id). An instruction whose outcome depends on other threads' timing (`run`
// choosing a context, the supervisor finding a free issue slot, `join`) executes only
// when its thread is that minimum, so every cycle count is exact whatever the quantum.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "iss/interp.h"
#include "iss/sram.h"
#include "iss/tile_core.h"

namespace ipusim::iss {

inline constexpr uint32_t kMaxWorkers = kIssueSlots;
inline constexpr uint32_t kMaxThreads = kMaxWorkers + 1;
inline constexpr uint64_t kNever = ~uint64_t{0};

enum class ThreadState : uint8_t {
  Idle,      // worker not started, or exited
  Running,   // issues instructions
  JoinWait,  // supervisor: after join / sync 0, until no worker runs
  HaltWait,  // supervisor: after halt, until no worker runs
  SyncWait,  // supervisor: after sync 1/2, until no worker runs; then the tile stops
  Stopped,   // supervisor: halted, at a sync, or faulted
};

struct Thread {
  Hart hart;
  uint32_t id = 0;
  ThreadState state = ThreadState::Idle;
  const DecodedInsn* ip = nullptr;
  // The cycle its next instruction issues. While the supervisor waits, a lower bound of
  // it that only grows, so the scheduler never lets another thread act past it.
  uint64_t clock = 0;
  uint64_t instret = 0;
  uint64_t stall = 0;
  // Workers: the last start. The context is taken from the `run` (alloc) and the issue
  // slot from the first issue (start) until exit (wexit issue + 6); exit is kNever
  // while it runs.
  uint64_t alloc_cycle = 0, start_cycle = 0, exit_cycle = 0;
  uint32_t starts = 0;
  int32_t last_status = 0;
  uint32_t wait_arg = 0;  // HaltWait: exit code; SyncWait / JoinWait: sync zone (JoinWait: ~0 for join)
  std::string line;       // console line being assembled

  bool active() const { return state != ThreadState::Idle && state != ThreadState::Stopped; }
};

inline uint32_t* thread_regs(Thread& t) { return t.hart.regs; }

class TileState {
 public:
  TileState(const TileParams& params, std::shared_ptr<const Program> program, ConsoleSink* console);

  void reset();
  StopInfo run();
  void release_sync(uint64_t release_cycle);

  const TileParams& params() const { return params_; }
  const Program& program() const { return *program_; }
  const DecodedCode& code() const { return program_->decoded(); }
  const Sram& sram() const { return sram_; }
  Sram& sram() { return sram_; }
  const Thread& thread(uint32_t id) const { return threads_[id]; }
  uint32_t thread_count() const { return params_.workers + 1; }
  void set_trace(TraceSink* sink) { trace_ = sink; }
  bool host_write_allowed(uint32_t addr, uint32_t size) const;

  // Services for the run loop (loop_services.cpp, csr.cpp).
  bool csr(Quantum& q, const DecodedInsn* ip, uint64_t executed);
  bool console(Quantum& q, const DecodedInsn* ip);
  bool store_slow(Quantum& q, const DecodedInsn* ip);
  bool fp_exact(Quantum& q, const DecodedInsn* ip);
  bool fp_convert(Quantum& q, const DecodedInsn* ip);
  uint32_t fp_nan(Quantum& q, const DecodedInsn* ip, FpOp op);
  void fault_at(Quantum& q, const DecodedInsn* ip);
  bool may_issue(Quantum& q, uint64_t executed);
  void trace(Quantum& q, const DecodedInsn* ip, uint64_t executed);

  // Records a fault of `t` at `ip` and stops the tile.
  void raise(const Thread& t, const DecodedInsn* ip, std::string kind, std::string detail);

 private:
  // Scheduling (scheduler.cpp).
  Thread* pick();
  struct Order {
    uint64_t clock;
    uint32_t id;
    bool operator<(const Order& o) const { return clock != o.clock ? clock < o.clock : id < o.id; }
  };
  Order others_min(uint32_t self) const;
  bool any_worker_running() const;
  unsigned slot_holders(uint64_t t) const;
  uint64_t next_slot_free(uint64_t t) const;
  void resolve_wait(Thread& sup);
  void run_quantum(Thread& t);
  void execute_event(Thread& t);
  void start_worker(Thread& parent, const DecodedInsn* ip);
  void retire_event(Thread& t, const DecodedInsn* ip);
  void stop(StopReason reason, int32_t exit_code = 0, uint32_t zone = 0);
  void flush_line(Thread& t);
  void emit_line(Thread& t);

  TileParams params_;
  std::shared_ptr<const Program> program_;
  ConsoleSink* console_;
  TraceSink* trace_ = nullptr;
  Sram sram_;
  MemView mem_;
  std::array<Thread, kMaxThreads> threads_;
  // Per-tile Xipu CSRs.
  uint32_t wstack_base_ = 0, wstack_size_ = 0, wexit_pc_ = 0;
  uint32_t superstep_ = 0;
  std::optional<StopInfo> stopped_;  // set while the tile is stopped (halt, sync, fault)
  bool awaiting_release_ = false;
  uint64_t horizon_ = 0;  // guarded supervisor quantum: the smallest running worker clock

 public:
  // The pc of an entry, the raw word and its disassembly (faults, traces).
  uint32_t pc_of(const DecodedInsn* ip) const { return code().pc_of(ip); }
  uint32_t word_at(const DecodedInsn* ip) const;
  const DecodedInsn* entry_for(uint32_t pc) const;  // nullptr if pc is not a code word
};

}  // namespace ipusim::iss
