// CoreState construction, reset and the thread scheduler (see core_state.h and the
// "Threads" section of docs/iss.md for why each rule keeps the cycle counts exact).
#include <algorithm>
#include <cfenv>
#include <cstring>
#include <mutex>
#include <stdexcept>

#include <fmt/format.h>
#if defined(__SSE__)
#include <xmmintrin.h>
#endif

#include "iss/disasm.h"
#include "iss/fpu.h"
#include "iss/host_fp_status.h"
#include "iss/core_state.h"
#include "iss/jit/lockstep.h"
#include "iss/wide_access.h"

namespace ipusim::iss {
namespace {

inline constexpr uint64_t kAloneBudget = uint64_t{1} << 24;  // supervisor with no worker running

TileParams checked(const TileParams& p, const Program& program) {
  if (p.workers > kMaxWorkers)
    throw std::invalid_argument(fmt::format("tile params: workers = {} (at most {})", p.workers, kMaxWorkers));
  if (p.thread_quantum == 0) throw std::invalid_argument("tile params: thread_quantum must be at least 1");
  // SRAM ends (kSramBase + sram_bytes, a uint32_t address below) strictly inside the address
  // space, so one word short of kSramMaxBytes at most.
  if (p.sram_bytes == 0 || p.sram_bytes % 4 != 0 || p.sram_bytes >= kSramMaxBytes)
    throw std::invalid_argument(fmt::format("tile params: sram_bytes = {} (a non-zero multiple of 4)", p.sram_bytes));
  // One amp.mac does the tile's MACs per cycle as R rows of 4 (docs/xipu.md, custom-1).
  for (const auto& [key, macs] : {std::pair{"amp_f16_macs", p.amp_f16_macs}, std::pair{"amp_f32_macs", p.amp_f32_macs}})
    if (macs % 4 != 0 || macs / 4 > kAmpMaxRows)
      throw std::invalid_argument(fmt::format(
          "tile params: {} = {} (must be a multiple of 4, at most {}: amp.mac does it as rows of 4 MACs)", key,
          macs, 4 * kAmpMaxRows));
  // The memory paths (docs/xipu.md "Timing"): a power of two from 4 (one word) to 64 (so
  // never 0: the slot cost of a wide access divides by them).
  for (const auto& [key, bytes] : {std::pair{"load_bytes_per_cycle", p.load_bytes_per_cycle},
                                   std::pair{"store_bytes_per_cycle", p.store_bytes_per_cycle}})
    if (bytes < 4 || bytes > 64 || (bytes & (bytes - 1)) != 0)
      throw std::invalid_argument(
          fmt::format("tile params: {} = {} (must be a power of two from 4 to 64)", key, bytes));
  if (program.image_end() > kSramBase + p.sram_bytes)
    throw ProgramError(fmt::format("{}: image ends at 0x{:08x}, beyond tile SRAM [0x{:08x}, 0x{:08x})",
                                   program.name(), program.image_end(), kSramBase, kSramBase + p.sram_bytes));
  return p;
}

// The host FPU state the run loop relies on: round to nearest, no flush-to-zero or
// denormals-are-zero. The caller's environment (and its sticky flags) comes back after.
class HostFpEnv {
 public:
  HostFpEnv() {
    std::fegetenv(&saved_);
    std::fesetround(FE_TONEAREST);
#if defined(__SSE__)
    _mm_setcsr(_mm_getcsr() & ~0x8040u);  // FTZ (bit 15), DAZ (bit 6)
#endif
  }
  ~HostFpEnv() { std::fesetenv(&saved_); }

 private:
  std::fenv_t saved_;
};

}  // namespace

CoreState::CoreState(const TileParams& params, std::shared_ptr<const Program> program, ConsoleSink* console,
                     Sram& sram)
    : params_(checked(params, *program)), program_(std::move(program)), console_(console),
      sram_(Sram::Borrow{}, sram) {
  if (sram.size() != params_.sram_bytes)
    throw std::invalid_argument(fmt::format("tile {}: SRAM of {} bytes for a tile of {}", params_.id.tile,
                                            sram.size(), params_.sram_bytes));
  init_views();
  if (params_.core == TileParams::Core::jit || params_.core == TileParams::Core::lockstep) {
    if (jit::available()) {
      attach_jit();
      if (params_.core == TileParams::Core::lockstep) lockstep_ = std::make_unique<Lockstep>(*this);
    } else {
      static std::once_flag told;
      std::call_once(told, [] {
        fmt::print(stderr, "ipusim: the ISS translator (--iss jit, lockstep) is not in this build (x86-64 hosts with Xbyak "
                           "and IPUSIM_ISS_TRANSLATOR on only): tiles run the interpreter\n");
      });
    }
  }
}

CoreState::~CoreState() = default;  // Lockstep is complete here

// The translations of the tile's code (a profiled tile's copy has its own).
void CoreState::attach_jit() {
  jit::Limits limits;
  std::copy(std::begin(mem_.load_limit), std::end(mem_.load_limit), limits.load);
  std::copy(std::begin(mem_.store_limit), std::end(mem_.store_limit), limits.store);
  jit_cache_ = jit::cache_for(code(), params_.jit_hot_entries, limits);
}

void CoreState::set_profile(ProfileSink* sink) {
  hooks().profile = sink;
  use_hooks();
}

void CoreState::use_hooks() {
  hooked_code_ = profile_sink() || watch() ? &program_->hooked(params_.co_issue, profile_sink() != nullptr, watch() != nullptr) : nullptr;
  init_views();
  if (jit_cache_) attach_jit();
  if (lockstep_) lockstep_->code_changed();
}

void CoreState::profile_thread(ProfileEvent::Kind kind, const Thread& t, uint32_t pc) {
  ProfileEvent e;
  e.kind = kind;
  e.thread = t.id;
  e.pc = e.target = pc;
  e.cycle = t.clock;
  e.instret = t.instret;
  profile_sink()->event(e);
}

bool CoreState::hook(Quantum& q, const DecodedInsn* ip, uint64_t executed) {
  const uint8_t h = code().hooks[code().index_of(ip)];
  if ((h & kStackHook) && !check_stack(q, ip)) return false;
  if (h & kProfileHookMask) profile_call(q, ip, executed);
  return true;
}

// A profiled call or return about to issue: the event carries the thread's clock and
// instret just after it (a co-issued second's slot_adjust is already counted by L_hook
// or the stepping loop, so slots(executed + 1) is right for it too).
void CoreState::profile_call(Quantum& q, const DecodedInsn* ip, uint64_t executed) {
  if (!profile_sink()) return;  // a lockstep shadow runs the profiled code and reports nothing
  const DecodedCode& dc = code();
  const uint32_t index = dc.index_of(ip);
  const Thread& t = *q.thread;
  const uint32_t* R = t.hart.regs;
  ProfileEvent e;
  e.thread = t.id;
  e.pc = dc.begin + 4 * index;
  e.cycle = t.clock + kIssueSlots * q.slots(executed + 1);
  e.instret = t.instret + executed + 1;
  switch (static_cast<ProfileHook>(dc.hooks[index] & kProfileHookMask)) {
    case ProfileHook::call:
      e.kind = ProfileEvent::Kind::call;
      e.target = dc.ops[index] == Op::jal
                     ? dc.pc_of(reinterpret_cast<const DecodedInsn*>(reinterpret_cast<const char*>(ip) + ip->imm))
                     : ((R[ip->rs1] + static_cast<uint32_t>(ip->imm)) & ~1u) + dc.begin;
      break;
    case ProfileHook::tail_call:
      e.kind = ProfileEvent::Kind::tail_call;
      e.target = dc.pc_of(reinterpret_cast<const DecodedInsn*>(reinterpret_cast<const char*>(ip) + ip->imm));
      break;
    case ProfileHook::ret:
    case ProfileHook::jump:
      e.kind = static_cast<ProfileHook>(dc.hooks[index] & kProfileHookMask) == ProfileHook::ret ? ProfileEvent::Kind::ret
                                                                                       : ProfileEvent::Kind::jump;
      e.target = ((R[ip->rs1] + static_cast<uint32_t>(ip->imm)) & ~1u) + dc.begin;
      break;
    case ProfileHook::none:
      return;
  }
  profile_sink()->event(e);
}

void CoreState::init_views() {
  const DecodedCode& dc = code();
  const uint32_t sram_end = kSramBase + params_.sram_bytes;
  const uint32_t store_bytes = sram_end - std::min(dc.store_lo, sram_end);
  mem_.load_base = sram_.data();
  mem_.store_base = sram_.data() + (dc.store_lo - kSramBase);
  for (unsigned k = 0; k < 3; ++k) {
    mem_.load_limit[k] = params_.sram_bytes >> k;
    mem_.store_limit[k] = store_bytes >> k;
  }
  mem_.code = dc.insns.data();
  mem_.ops = dc.ops.data();
  mem_.co_issued = dc.co_issued.data();
  mem_.code_words = dc.words;
  const uint32_t store_off = std::min(dc.store_lo, sram_end) - kSramBase;
  for (unsigned k = 0; k < 2; ++k) {
    const uint32_t size = 8u << k;
    const uint32_t first = (store_off + size - 1) / size, end = params_.sram_bytes / size;
    mem_.wide_store_first[k] = first;
    mem_.wide_store_units[k] = end > first ? end - first : 0;
  }
  for (unsigned i = 0; i < std::size(mem_.wide_extra_slots); ++i)
    mem_.wide_extra_slots[i] =
        static_cast<uint8_t>(wide_extra_slots(static_cast<Op>(static_cast<unsigned>(Op::ld64) + i), params_));
  mem_.pc_key = reinterpret_cast<uintptr_t>(dc.insns.data()) - uintptr_t{dc.begin} * 4;
  reset();
}

void ThreadContexts::make_workers() {
  workers_ = std::make_unique<Thread[]>(kMaxWorkers);
  for (uint32_t i = 0; i < kMaxWorkers; ++i) workers_[i].id = i + 1;
}

const Thread& ThreadContexts::never_started(uint32_t id) {
  static const std::array<Thread, kMaxThreads> idle = [] {
    std::array<Thread, kMaxThreads> a;
    for (uint32_t i = 0; i < kMaxThreads; ++i) a[i].id = i;
    return a;
  }();
  return idle[id];
}

void CoreState::reset() {
  for (uint32_t i = 0; i < threads_.live(kMaxThreads); ++i) {
    Thread& t = threads_[i];
    const uint32_t id = t.id;
    t = Thread{};
    t.id = id;
  }
  Thread& sup = threads_[0];
  sup.state = ThreadState::Running;
  sup.ip = entry_for(program_->entry());
  wstack_base_ = wstack_size_ = wexit_pc_ = 0;
  superstep_ = 0;
  stopped_.reset();
  awaiting_release_ = false;
  exchange_open_ = false;
  awaiting_exchange_ = false;
  xdst_.clear();
  xsrc_.reset();
  smaddr_.reset();
  stream_.reset();
  posts_.clear();
  if (watch()) reset_stacks();
  if (profile_sink()) profile_thread(ProfileEvent::Kind::start, sup, program_->entry());
}

StopInfo CoreState::run() {
  if (stopped_) return *stopped_;
  HostFpEnv fp_env;
  pause_.reset();
  console_full_ = false;
  if (lockstep_) lockstep_->sram_changed_outside();  // the host or the exchange may have written it
  while (!stopped_) {
    Thread* t = pick();
    if (t->id == 0) {
      if (t->state != ThreadState::Running) {
        resolve_wait(*t);
        continue;
      }
      if (slot_holders(t->clock) >= kIssueSlots) {  // every slot held by a worker
        const uint64_t free_at = next_slot_free(t->clock);
        t->stall += free_at - t->clock;
        t->clock = free_at;
        continue;
      }
    }
    if (console_full_) {  // between quanta: pausing here changes nothing simulated
      pause(PauseReason::ConsoleFull, *t, t->clock, t->ip);
      return *pause_;
    }
    if (bounds_ && pause_before_quantum(*t)) return *pause_;
    run_quantum(*t);
    if (pause_) return *pause_;  // the probe stopped it inside the quantum
  }
  return *stopped_;
}

void CoreState::release_sync(uint64_t release_cycle) {
  Thread& sup = threads_[0];
  if (!awaiting_release_)
    throw std::logic_error(fmt::format("tile {}: release_sync() without a pending sync", params_.id.tile));
  if (release_cycle < sup.clock)
    throw std::invalid_argument(fmt::format("tile {}: release_sync({}) before the sync's cycle {}",
                                            params_.id.tile, release_cycle, sup.clock));
  sup.stall += release_cycle - sup.clock;
  sup.clock = release_cycle;
  sup.state = ThreadState::Running;
  ++superstep_;
  awaiting_release_ = false;
  exchange_open_ = true;  // only syncs of zone 1 and 2 stop the tile
  stopped_.reset();
}

void CoreState::release_exchange(uint64_t done_cycle) {
  Thread& sup = threads_[0];
  if (!awaiting_exchange_)
    throw std::logic_error(fmt::format("tile {}: release_exchange() without a pending exchange", params_.id.tile));
  if (done_cycle < sup.clock)
    throw std::invalid_argument(fmt::format("tile {}: release_exchange({}) before the exchange's cycle {}",
                                            params_.id.tile, done_cycle, sup.clock));
  sup.exchange_stall += done_cycle - sup.clock;
  sup.clock = done_cycle;
  sup.state = ThreadState::Running;
  posts_.clear();
  awaiting_exchange_ = false;
  stopped_.reset();
}

// The active thread with the smallest (clock, id). The supervisor is always active
// while the tile runs, so there is one.
Thread* CoreState::pick() {
  Thread* best = &threads_[0];
  for (uint32_t i = 1; i < threads_.live(thread_count()); ++i) {
    Thread& t = threads_[i];
    if (t.state == ThreadState::Running && t.clock < best->clock) best = &t;
  }
  return best;
}

CoreState::Order CoreState::others_min(uint32_t self) const {
  Order m{kNever, ~0u};
  for (uint32_t i = 0; i < thread_count(); ++i) {
    const Thread& t = threads_[i];
    if (i != self && t.active() && Order{t.clock, i} < m) m = Order{t.clock, i};
  }
  return m;
}

bool CoreState::any_worker_running() const {
  for (uint32_t i = 1; i < thread_count(); ++i)
    if (threads_[i].state == ThreadState::Running) return true;
  return false;
}

// Workers holding an issue slot at cycle t: from their first issue until their exit.
unsigned CoreState::slot_holders(uint64_t t) const {
  unsigned n = 0;
  for (uint32_t i = 1; i < thread_count(); ++i) {
    const Thread& w = threads_[i];
    n += w.starts != 0 && w.start_cycle <= t && t < w.exit_cycle;
  }
  return n;
}

// With every slot held at t (and the supervisor the minimum thread), the earliest cycle
// a slot can free: an exited holder's exit, or a running one's clock + 6 (its next
// instruction could be wexit).
uint64_t CoreState::next_slot_free(uint64_t t) const {
  uint64_t next = kNever;
  for (uint32_t i = 1; i < thread_count(); ++i) {
    const Thread& w = threads_[i];
    if (w.starts == 0 || w.start_cycle > t || t >= w.exit_cycle) continue;
    next = std::min(next, w.state == ThreadState::Running ? w.clock + kIssueSlots : w.exit_cycle);
  }
  return next;
}

// The supervisor waits (join, halt, sync) until no worker runs; it resumes at the latest
// worker exit. While a worker still runs its clock only rises to a lower bound of that
// (every running worker exits at clock + 6 or later), which lets the workers proceed.
void CoreState::resolve_wait(Thread& sup) {
  uint64_t resume = sup.clock;
  bool running = false;
  for (uint32_t i = 1; i < threads_.live(thread_count()); ++i) {
    const Thread& w = threads_[i];
    if (w.state == ThreadState::Running) {
      running = true;
      resume = std::max(resume, w.clock + kIssueSlots);
    } else if (w.starts != 0) {
      resume = std::max(resume, w.exit_cycle);
    }
  }
  sup.stall += resume - sup.clock;
  sup.clock = resume;
  if (running) return;
  switch (sup.state) {
    case ThreadState::JoinWait:
      sup.state = ThreadState::Running;
      if (sup.wait_arg == 0) ++superstep_;  // sync 0
      break;
    case ThreadState::HaltWait:
      flush_line(sup);
      sup.state = ThreadState::Stopped;
      stop(StopReason::Halted, static_cast<int32_t>(sup.wait_arg));
      if (profile_sink()) profile_thread(ProfileEvent::Kind::end, sup, pc_of(sup.ip));
      break;
    case ThreadState::SyncWait:
      sup.state = ThreadState::Stopped;
      awaiting_release_ = true;
      stop(StopReason::Sync, 0, sup.wait_arg);
      break;
    case ThreadState::ExchangeWait:
      if (sup.wait_arg == 0) {  // xwait outside an exchange phase: a join
        sup.state = ThreadState::Running;
        break;
      }
      sup.state = ThreadState::Stopped;
      awaiting_exchange_ = true;
      stop(StopReason::Exchange);
      break;
    default:
      break;
  }
}

void CoreState::run_quantum(Thread& t) {
  Quantum q;
  q.tile = this;
  q.thread = &t;
  q.mem = &mem_;
  q.ip = t.ip;
  q.trace = trace_ != nullptr;
  bool step = q.trace || params_.thread_quantum == 1;
  q.budget = params_.thread_quantum;
  if (t.id == 0) {
    if (any_worker_running()) {
      // The supervisor may issue at cycle c only once every worker is simulated up to c
      // (so it knows whether a slot is free): step, with the guard.
      step = true;
      q.guard = q.slot_guard = true;
      horizon_ = others_min(0).clock;
    } else {
      q.budget = std::max<uint64_t>(q.budget, kAloneBudget);  // no one to interleave with
    }
  }
  if (bounds_) bound_quantum(t, q, step);
  fpu::host_flags_clear();
  if (step) {
    run_loop<true>(q);
    if (lockstep_) lockstep_->sram_changed_outside();  // only the fast loop's quanta are compared
  } else if (lockstep_) {
    lockstep_->run_quantum(q, *jit_cache_, jit_stats_);
  } else if (jit_cache_)
    run_jit(q, *jit_cache_, jit_stats_);
  else
    run_loop<false>(q);
  if (q.amp_fp_saved) host_fp_status_restore(q.amp_saved_fp_status);  // ended inside a run of AMP instructions
  t.hart.regs[kFflagsReg] |= fpu::host_flags_read();
  t.ip = q.ip;
  t.instret += q.executed;
  t.clock += kIssueSlots * q.slots(q.executed);
  if (quantum_observer_) [[unlikely]] quantum_observer_(t, q);
  if (q.exit == LoopExit::Event && !stopped_) execute_event(t);
}

bool CoreState::may_issue(Quantum& q, const DecodedInsn* ip, uint64_t executed) {
  const uint64_t t = q.thread->clock + kIssueSlots * q.slots(executed);
  if (q.slot_guard && !(t <= horizon_ && slot_holders(t) < kIssueSlots)) return false;
  return !(q.probe && probe_stops(*q.thread, ip, t));
}

void CoreState::retire_event(Thread& t, const DecodedInsn* ip) {
  if (trace_) trace_retired(t, ip, t.clock, t.hart.regs[ip->rs1]);
  t.clock += kIssueSlots;
  t.instret += 1;
  t.ip = ip + 1;
}

void CoreState::execute_event(Thread& t) {
  const DecodedInsn* ip = t.ip;
  const uint32_t* R = t.hart.regs;
  const Op op = mem_.ops[code().index_of(ip)];
  const bool sup = t.id == 0;
  switch (op) {
    case Op::xrun:
      // Choosing a context depends on other threads' exits: wait until t is the minimum.
      if (!(Order{t.clock, t.id} < others_min(t.id))) return;
      start_worker(t, ip);
      return;
    case Op::xjoin:
      if (!sup) return raise(t, ip, "illegal instruction", "join is supervisor-only");
      retire_event(t, ip);
      t.state = ThreadState::JoinWait;
      t.wait_arg = ~0u;
      return;
    case Op::xwexit:
      if (sup) return raise(t, ip, "illegal instruction", "wexit is worker-only (the supervisor ends with halt)");
      t.last_status = static_cast<int32_t>(R[ip->rs1]);
      retire_event(t, ip);
      t.exit_cycle = t.clock;
      t.state = ThreadState::Idle;
      flush_line(t);
      if (profile_sink()) profile_thread(ProfileEvent::Kind::end, t, pc_of(ip));
      return;
    case Op::xwait:
      if (!sup) return raise(t, ip, "illegal instruction", "xwait is supervisor-only (the supervisor drives the exchange)");
      retire_event(t, ip);
      t.state = ThreadState::ExchangeWait;
      t.wait_arg = exchange_open_ ? 1 : 0;
      exchange_open_ = false;
      return;
    case Op::xhalt:
      if (!sup) return raise(t, ip, "illegal instruction", "halt is supervisor-only (a worker ends with wexit)");
      if (begin_implicit_exchange(t)) return;
      t.wait_arg = R[ip->rs1];
      retire_event(t, ip);
      t.state = ThreadState::HaltWait;
      return;
    case Op::xsync: {
      if (!sup) return raise(t, ip, "illegal instruction", "sync is supervisor-only");
      const uint32_t zone = R[ip->rs1];
      if (zone > 2)
        return raise(t, ip, "illegal instruction",
                     fmt::format("sync zone {} (0 = the tile's workers, 1 = the IPU, 2 = the sync group)", zone));
      if (begin_implicit_exchange(t)) return;
      retire_event(t, ip);
      t.state = zone == 0 ? ThreadState::JoinWait : ThreadState::SyncWait;
      t.wait_arg = zone;
      return;
    }
    default:
      return raise(t, ip, "internal error", "unexpected event instruction");
  }
}

// A sync or halt with postings pending first does the exchange, as if an xwait came
// before it: it waits for the workers, stops for the exchange and, once released, issues
// (the thread's ip stays on it, so the next quantum executes it again, now with nothing
// pending). Returns true if it began that wait.
bool CoreState::begin_implicit_exchange(Thread& sup) {
  if (!exchange_open_ || posts_.empty()) return false;
  sup.state = ThreadState::ExchangeWait;
  sup.wait_arg = 1;
  exchange_open_ = false;
  return true;
}

void CoreState::start_worker(Thread& parent, const DecodedInsn* ip) {
  uint32_t* R = parent.hart.regs;
  const uint32_t entry = R[ip->rs1], arg = R[ip->rs2];
  const uint64_t now = parent.clock;
  Thread* w = nullptr;
  for (uint32_t i = 1; i < thread_count() && !w; ++i) {
    Thread& c = threads_[i];
    if (c.state == ThreadState::Idle && (c.starts == 0 || c.exit_cycle <= now)) w = &c;
  }
  if (!w) return raise(parent, ip, "worker start", fmt::format("run while all {} workers run", params_.workers));
  const DecodedInsn* start = entry_for(entry);
  if (!start) {
    const DecodedCode& dc = code();
    return raise(parent, ip, (entry & 3) ? "misaligned access" : "access fault",
                 fmt::format("worker entry 0x{:08x} is not an instruction in code [0x{:08x}, 0x{:08x})", entry,
                             dc.begin, dc.begin + 4 * dc.words));
  }
  w->hart = Hart{};
  if (w->amp) w->amp->clear();  // a started worker has a fresh AMP state, like its registers
  uint32_t* W = w->hart.regs;
  W[10] = arg;                                     // a0
  W[1] = wexit_pc_;                                // ra
  W[2] = wstack_base_ + w->id * wstack_size_;      // sp: top of its stack block
  W[3] = R[3];                                     // gp
  W[4] = R[4];                                     // tp
  w->ip = start;
  w->state = ThreadState::Running;
  w->alloc_cycle = now;
  w->start_cycle = now + kIssueSlots;
  w->clock = w->start_cycle;
  w->exit_cycle = kNever;
  w->starts += 1;
  w->line.clear();
  R[ip->rd] = w->id;
  if (watch()) start_stack(*w);
  retire_event(parent, ip);
  if (profile_sink()) profile_thread(ProfileEvent::Kind::start, *w, entry);
}

void CoreState::stop(StopReason reason, int32_t exit_code, uint32_t zone) {
  StopInfo s;
  s.reason = reason;
  s.exit_code = exit_code;
  s.sync_zone = zone;
  stopped_ = s;
}

const DecodedInsn* CoreState::entry_for(uint32_t pc) const {
  const DecodedCode& dc = code();
  const uint32_t off = pc - dc.begin;
  if ((off & 3) != 0 || off / 4 >= dc.words) return nullptr;
  return dc.insns.data() + off / 4;
}

uint32_t CoreState::word_at(const DecodedInsn* ip) const {
  const DecodedCode& dc = code();
  const uint32_t idx = dc.index_of(ip);
  if (idx < dc.words && dc.ops[idx] != Op::fetch_fault) return dc.raw[idx];
  // A fetch outside code: show what SRAM holds there, if anything.
  const uint32_t pc = dc.pc_of(ip);
  uint32_t w = 0;
  if (pc >= kSramBase && pc - kSramBase + 4ull <= params_.sram_bytes) std::memcpy(&w, sram_.data() + (pc - kSramBase), 4);
  return w;
}

}  // namespace ipusim::iss
