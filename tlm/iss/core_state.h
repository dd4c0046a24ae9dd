// CoreState: everything a TileCore is (ISS-internal). SRAM, the supervisor and worker
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
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "iss/amp_state.h"
#include "iss/core_snapshot.h"
#include "iss/interp.h"
#include "iss/jit/jit.h"
#include "iss/profile_sink.h"
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
  ExchangeWait,  // supervisor: after xwait, or at a sync / halt with postings pending,
                 // until no worker runs; then the tile stops (Exchange) if wait_arg is 1
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
  uint64_t exchange_stall = 0;  // supervisor: from an Exchange stop to release_exchange's cycle
  // Workers: the last start. The context is taken from the `run` (alloc) and the issue
  // slot from the first issue (start) until exit (wexit issue + 6); exit is kNever
  // while it runs.
  uint64_t alloc_cycle = 0, start_cycle = 0, exit_cycle = 0;
  uint32_t starts = 0;
  int32_t last_status = 0;
  uint32_t wait_arg = 0;  // HaltWait: exit code; SyncWait / JoinWait: sync zone (JoinWait: ~0 for join);
                          // ExchangeWait: 1 to stop for the exchange, 0 (xwait outside a phase) not
  std::string line;       // console line being assembled
  std::unique_ptr<AmpState> amp;  // allocated by the thread's first AMP instruction

  bool active() const { return state != ThreadState::Idle && state != ThreadState::Stopped; }
};

inline uint32_t* thread_regs(Thread& t) { return t.hart.regs; }

// A tile's thread contexts. The supervisor's is always held; the workers' (six of 448
// bytes) from the first access that may write one (a worker start, a debugger writing a
// worker's registers). Until then every worker reads as a context never started (the
// same for every tile, held once), and a loop over the threads that may write visits the
// supervisor alone (live()): what it would do to a never-started worker is nothing. Most
// tiles of a big system never start a worker (a POD64 of hello: 253 MB of contexts).
class ThreadContexts {
 public:
  ThreadContexts() = default;
  ThreadContexts(const ThreadContexts&) = delete;
  ThreadContexts& operator=(const ThreadContexts&) = delete;

  // The context to write: a worker's is made (all six) on first use.
  Thread& operator[](uint32_t id) { return id == 0 ? supervisor_ : workers()[id - 1]; }
  const Thread& operator[](uint32_t id) const {
    return id == 0 ? supervisor_ : workers_ ? workers_[id - 1] : never_started(id);
  }
  bool has_workers() const { return workers_ != nullptr; }
  // The threads of `count` a loop must visit: the supervisor alone until workers exist.
  uint32_t live(uint32_t count) const { return workers_ ? count : 1; }

 private:
  Thread* workers() {
    if (!workers_) make_workers();
    return workers_.get();
  }
  void make_workers();                               // scheduler.cpp
  static const Thread& never_started(uint32_t id);  // scheduler.cpp
  Thread supervisor_;
  std::unique_ptr<Thread[]> workers_;
};

// The thread's registers as the debugger and the fault record see them, at `pc`.
inline ThreadRegisters thread_registers(const Thread& t, uint32_t pc) {
  ThreadRegisters r;
  r.pc = pc;
  for (unsigned i = 0; i < 32; ++i) {
    r.x[i] = t.hart.regs[i];
    r.f[i] = t.hart.regs[kFReg0 + i];
  }
  r.fcsr = t.hart.regs[kFrmReg] << 5 | t.hart.regs[kFflagsReg];
  return r;
}

class AmpDatapath;  // amp_datapath.h
class Lockstep;     // jit/lockstep.h

class CoreState {
 public:
  // Boots over `sram` (borrowed, kept as it is): reset() never clears or loads it.
  CoreState(const TileParams& params, std::shared_ptr<const Program> program, ConsoleSink* console,
            Sram& sram);
  ~CoreState();

  void reset();
  StopInfo run();
  void release_sync(uint64_t release_cycle);
  void release_exchange(uint64_t done_cycle);
  const PostingLog& exchange_log() const { return posts_; }

  const TileParams& params() const { return params_; }
  const Program& program() const { return *program_; }
  const DecodedCode& code() const { return hooked_code_ ? *hooked_code_ : program_->decoded(params_.co_issue); }
  const Sram& sram() const { return sram_; }
  Sram& sram() { return sram_; }
  const Thread& thread(uint32_t id) const { return threads_[id]; }
  // Called after every quantum with the thread (its ip, clock and instret updated) and
  // the quantum as the loop left it: the translator's lockstep test compares the two
  // engines quantum by quantum. Empty (the default) costs one test per quantum.
  using QuantumObserver = std::function<void(const Thread&, const Quantum&)>;
  void set_quantum_observer(QuantumObserver observer) { quantum_observer_ = std::move(observer); }
  // Core::jit: the shared translations (nullptr when the tile interprets) and this tile's part.
  const jit::CodeCache* jit_cache() const { return jit_cache_.get(); }
  const jit::Stats& jit_tile_stats() const { return jit_stats_; }
  // Core::lockstep: the interpreter's shadow (nullptr otherwise, or without the translator).
  Lockstep* lockstep() { return lockstep_.get(); }
  uint32_t thread_count() const { return params_.workers + 1; }
  void set_trace(TraceSink* sink) { trace_ = sink; }
  // Profiles the tile (nullptr: not; profile_sink.h): its code becomes the Program's
  // profiled copy and the supervisor starts again at the entry (call before run()).
  void set_profile(ProfileSink* sink);
  // Watches the threads' stacks and the exchange buffers (stack_watch.cpp,
  // docs/memory_report.md): the code becomes the Program's copy hooked after every write of
  // sp, and the supervisor starts again at the entry (call before run()).
  void watch_memory(uint32_t supervisor_stack_bytes);
  StackUse stack_use(uint32_t thread) const;
  const BufferUse& buffer_use() const;
  // A hooked entry about to execute (loop_hook): the stack check, then the profiler's call
  // or return. false: the stack check raised a fault.
  bool hook(Quantum& q, const DecodedInsn* ip, uint64_t executed);
  void profile_call(Quantum& q, const DecodedInsn* ip, uint64_t executed);
  void set_bounds(const RunBounds* bounds) { bounds_ = bounds; }
  // amp.mac's arithmetic on `datapath` (borrowed; nullptr: the ISS's own), amp.cpp.
  void set_amp_datapath(AmpDatapath* datapath);
  Thread& thread_mut(uint32_t id) { return threads_[id]; }
  bool host_write_allowed(uint32_t addr, uint32_t size) const;
  // The architectural state (core_snapshot.cpp); restore() puts it into a core booted on
  // the same program and throws std::invalid_argument for a state that program cannot have.
  CoreSnapshot snapshot() const;
  void restore(const CoreSnapshot& s);

  // Services for the run loop (loop_services.cpp, csr.cpp).
  bool csr(Quantum& q, const DecodedInsn* ip, uint64_t executed);
  // CSR `num` as `t` reads it at `cycle` with `instret` retired; nullopt: no such CSR.
  std::optional<uint32_t> csr_value(const Thread& t, uint32_t num, uint64_t cycle, uint64_t instret) const;
  bool console(Quantum& q, const DecodedInsn* ip);
  bool store_slow(Quantum& q, const DecodedInsn* ip);
  // Alignment, SRAM bounds and (a store) code protection of a slow-path access; raises
  // the fault ("load" / "store" of size bytes at addr) and returns false on the first failing.
  bool check_sram_access(const Thread& t, const DecodedInsn* ip, const char* what, uint32_t addr, unsigned size,
                         bool is_store);
  bool fp_exact(Quantum& q, const DecodedInsn* ip);
  bool fp_convert(Quantum& q, const DecodedInsn* ip);
  uint32_t fp_nan(Quantum& q, const DecodedInsn* ip, FpOp op);
  void fault_at(Quantum& q, const DecodedInsn* ip);
  bool may_issue(Quantum& q, const DecodedInsn* ip, uint64_t executed);
  void trace(Quantum& q, const DecodedInsn* ip, uint64_t executed);
  // Reports `ip`, retired by `t` at `cycle`, to the trace sink (trace_record.cpp).
  // `rs1_before`: its rs1's value before it ran.
  void trace_retired(const Thread& t, const DecodedInsn* ip, uint64_t cycle, uint32_t rs1_before);
  bool exchange(Quantum& q, const DecodedInsn* ip, uint64_t executed);  // exchange.cpp
  bool amp(Quantum& q, const DecodedInsn* ip);                          // amp.cpp
  // A wide load / store that failed the fast check: below the code, or a fault (wide_memory.cpp).
  bool wide_memory_slow(Quantum& q, const DecodedInsn* ip);

  // Records a fault of `t` at `ip` (the problem record, with `address` for a bad access)
  // and stops the tile.
  void raise(const Thread& t, const DecodedInsn* ip, std::string kind, std::string detail,
             std::optional<uint64_t> address = std::nullopt);

 private:
  friend class Lockstep;  // the shadow takes over and compares the tile's state
  void init_views();
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
  bool begin_implicit_exchange(Thread& sup);
  void retire_event(Thread& t, const DecodedInsn* ip);
  void stop(StopReason reason, int32_t exit_code = 0, uint32_t zone = 0);
  // RunBounds (run_bounds.cpp): before `t`'s next quantum, whether a limit or the
  // interrupt pauses the tile (pause_ set); the quantum's budget within the limits; the
  // probe's verdict on the instruction at `ip`.
  bool pause_before_quantum(const Thread& t);
  void bound_quantum(const Thread& t, Quantum& q, bool& step) const;
  uint64_t max_slots_per_insn() const;
  bool probe_stops(const Thread& t, const DecodedInsn* ip, uint64_t cycle);
  // The probe's verdict on `ip`; a stop pauses before `at` (ip, or the first of its pair).
  bool probe_stops_at(const Thread& t, const DecodedInsn* ip, uint64_t cycle, const DecodedInsn* at);
  void pause(PauseReason reason, const Thread& t, uint64_t cycle, const DecodedInsn* ip);
  uint64_t tile_instret() const;
  void flush_line(Thread& t);
  void emit_line(Thread& t);
  // Exchange (exchange.cpp).
  bool add_destinations(const Thread& t, const DecodedInsn* ip, uint32_t first, uint32_t count);
  bool set_source(const Thread& t, const DecodedInsn* ip, uint32_t tile);
  bool select_stream(const Thread& t, const DecodedInsn* ip, uint32_t stream);
  bool post(const Thread& t, const DecodedInsn* ip, ExchangePost::Kind kind, uint32_t addr, uint32_t len,
            uint64_t cycle);
  // Shared by both kinds of posting: the detail of a posting outside an exchange phase,
  // and of a tile buffer that a copy into the tile would write over code.
  std::string outside_phase_detail() const;
  std::optional<std::string> code_overlap(uint32_t addr, uint32_t len) const;
  // Streaming-memory and host-stream copies (funct3 = 3 / 4).
  bool post_copy(const Thread& t, const DecodedInsn* ip, ExchangePost::Kind kind, uint32_t addr, uint32_t len,
                 uint64_t cycle);
  uint32_t global_tile() const { return params_.id.ipu * params_.id.tiles_per_ipu + params_.id.tile; }
  uint32_t system_tiles() const { return params_.id.ipus * params_.id.tiles_per_ipu; }
  // AMP (amp.cpp).
  AmpState& amp_state(Thread& t);

  TileParams params_;
  std::shared_ptr<const Program> program_;
  ConsoleSink* console_;
  bool console_full_ = false;  // the sink asked for a pause (ConsoleSink::line)
  TraceSink* trace_ = nullptr;
  // What hooks the tile's code (set_profile, watch_memory; nullptr: nothing), held apart:
  // most tiles have none, and a CoreState is per tile (docs/chip.md "Memory per tile").
  struct MemoryWatch;
  struct Hooks {
    ProfileSink* profile = nullptr;
    std::unique_ptr<MemoryWatch> watch;
  };
  std::unique_ptr<Hooks> hooks_;
  Hooks& hooks();  // made on first use
  ProfileSink* profile_sink() const { return hooks_ ? hooks_->profile : nullptr; }
  MemoryWatch* watch() const { return hooks_ ? hooks_->watch.get() : nullptr; }
  // set_profile(), watch_memory(): the Program's hooked copy (Program::hooked)
  const DecodedCode* hooked_code_ = nullptr;
  void use_hooks();  // hooked_code_ for the profile and the watch, then the views and reset
  // The memory watch (stack_watch.cpp): each context's region and lowest sp, the buffers.
  // Held apart: most tiles are not watched, and a CoreState is per tile.
  struct MemoryWatch {  // (declared with Hooks above)
    uint32_t supervisor_stack_bytes = 0;
    std::array<StackUse, kMaxThreads> stacks{};
    BufferUse buffers;
  };
  void reset_stacks();
  void start_stack(const Thread& w);  // a worker starts: its region from wstackbase / wstacksize
  void note_buffer(ExchangePost::Kind kind, uint32_t addr, uint32_t len);  // a posting's buffer
  bool check_stack(Quantum& q, const DecodedInsn* ip);
  std::string stack_region_name(uint32_t addr) const;
  void attach_jit();
  void profile_thread(ProfileEvent::Kind kind, const Thread& t, uint32_t pc);
  const RunBounds* bounds_ = nullptr;
  std::optional<StopInfo> pause_;    // set when run() pauses (RunBounds); cleared by the next run()
  Sram sram_;  // borrowed: the caller's (the tile's) SRAM
  MemView mem_;
  // Core::jit: the Program's shared translations, and what this tile translated.
  std::shared_ptr<jit::CodeCache> jit_cache_;
  QuantumObserver quantum_observer_;
  jit::Stats jit_stats_;
  std::unique_ptr<Lockstep> lockstep_;  // Core::lockstep
  AmpDatapath* amp_datapath_ = nullptr;  // set_amp_datapath(); mem_.amp follows it
  ThreadContexts threads_;
  // Per-tile Xipu CSRs.
  uint32_t wstack_base_ = 0, wstack_size_ = 0, wexit_pc_ = 0;
  uint32_t superstep_ = 0;
  std::optional<StopInfo> stopped_;  // set while the tile is stopped (halt, sync, exchange, fault)
  bool awaiting_release_ = false;    // stopped at a sync: release_sync() resumes
  // Exchange (docs/xipu.md funct3 = 2): the phase opens when release_sync() releases a
  // sync (only zones 1 and 2 stop) and closes at xwait or at the implicit exchange of a
  // sync / halt with postings pending. xdst / xsrc only set state, valid in any phase.
  bool exchange_open_ = false;
  bool awaiting_exchange_ = false;   // stopped for the exchange: release_exchange() resumes
  std::vector<uint32_t> xdst_;       // pending destination set: sorted, unique global ids
  std::optional<uint32_t> xsrc_;     // source of the next recv (none before the first xsrc)
  std::optional<uint64_t> smaddr_;   // streaming-memory offset of the next smread / smwrite
  std::optional<uint32_t> stream_;   // stream id of the next hsread / hswrite
  PostingLog posts_;                 // since the phase opened, in posting order
  uint64_t horizon_ = 0;  // guarded supervisor quantum: the smallest running worker clock

 public:
  // The pc of an entry, the raw word and its disassembly (faults, traces).
  uint32_t pc_of(const DecodedInsn* ip) const { return code().pc_of(ip); }
  uint32_t word_at(const DecodedInsn* ip) const;
  const DecodedInsn* entry_for(uint32_t pc) const;  // nullptr if pc is not a code word
};

}  // namespace ipusim::iss
