// Lockstep: the translator checked against the interpreter on a live run (lockstep.h,
// docs/iss.md "Lockstep").
//
// Why a shadow CoreState rather than a second tile: the services the run loop calls
// (CSRs, console, postings, AMP, slow stores, faults) act on the Quantum's tile, so the
// shadow's engine performs them on the shadow: its postings and console lines are only
// compared, its AMP uses the ISS's arithmetic, nothing of it leaves the tile. The
// scheduler's own work between quanta (events, waits, releases) is engine-independent and
// runs once, on the real tile; the shadow takes that state over at every quantum start.
#include "iss/jit/lockstep.h"

#include <algorithm>
#include <cstring>
#include <utility>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "iss/core_state.h"
#include "iss/disasm.h"
#include "iss/fpu.h"
#include "iss/host_fp_status.h"
#include "iss/jit/touched_pages.h"

namespace ipusim::iss {

// The shadow's console: replays the real tile's lines of the quantum, in order, checking
// the shadow emits the same text, and answers as the real sink did (a full sink ends the
// quantum at the same instruction on both).
class Lockstep::ShadowConsole : public ConsoleSink {
 public:
  explicit ShadowConsole(Lockstep& owner) : owner_(owner) {}
  bool line(const TileIdentity&, uint32_t thread, std::string_view text) override {
    Lockstep& o = owner_;
    if (o.replayed_ >= o.real_lines_.size()) {
      if (o.console_mismatch_.empty())
        o.console_mismatch_ = fmt::format("console line of thread {}: interpreter \"{}\", translator none", thread, text);
      return true;
    }
    const Line& real = o.real_lines_[o.replayed_++];
    if (o.console_mismatch_.empty() && (real.thread != thread || real.text != text))
      o.console_mismatch_ = fmt::format("console line: interpreter \"{}\" (thread {}), translator \"{}\" (thread {})",
                                        text, thread, real.text, real.thread);
    return real.accepted;
  }

 private:
  Lockstep& owner_;
};

namespace {

std::string register_name(unsigned r) {
  if (r < 32) return fmt::format("x{} ({})", r, x_abi_name(r));
  if (r >= kFReg0 && r < kFReg0 + 32) return fmt::format("f{} ({})", r - kFReg0, f_abi_name(r - kFReg0));
  if (r == kFrmReg) return "frm";
  if (r == kFflagsReg) return "fflags";
  if (r == kRptCountReg) return "rpt count";
  return fmt::format("internal register {}", r);
}

const char* exit_name(LoopExit e) {
  switch (e) {
    case LoopExit::Budget: return "budget";
    case LoopExit::Event: return "event";
    case LoopExit::Fault: return "fault";
  }
  return "?";
}

// One step of an engine with budget 1 (to its first taken control transfer), the
// quantum's `done` instructions lent to instret and the slot adjust as run_jit lends them
// to an interpreted block, so CSRs and postings read the quantum's cycle. The host FP
// state is settled after each engine's step (as the scheduler does after a quantum,
// which may end anywhere): the two engines' host flags must not mix.
template <typename Run>
void step(Quantum& q, uint64_t done, uint64_t budget, Run&& run) {
  Thread& t = *q.thread;
  q.budget = budget == 0 ? 0 : 1;  // budget 0: ends after a console instruction too
  q.executed = 0;
  t.instret += done;
  q.slot_adjust += static_cast<int64_t>(done);
  run();
  t.instret -= done;
  q.slot_adjust -= static_cast<int64_t>(done);
  if (q.amp_fp_saved) {
    host_fp_status_restore(q.amp_saved_fp_status);
    q.amp_fp_saved = false;
  }
  t.hart.regs[kFflagsReg] |= fpu::host_flags_read();
  fpu::host_flags_clear();
}

std::string post_text(const ExchangePost& p) {
  return fmt::format("kind {} addr 0x{:08x} len {} pc 0x{:08x} cycle {} peers {}", static_cast<int>(p.kind), p.addr,
                     p.len, p.pc, p.cycle, fmt::join(p.peers, ","));
}

const uint8_t kZeros[kTouchPage] = {};  // what an untouched page reads as

// fn(offset, bytes, real page, shadow page) for every page of the two SRAMs that either
// side ever touched (one neither touched is zeros on both and is not read; an untouched
// side reads as kZeros), until fn returns true.
template <typename Fn>
void each_touched_page(const Sram& real_sram, Sram& shadow_sram, std::vector<uint8_t>& real_touched,
                       std::vector<uint8_t>& shadow_touched, Fn&& fn) {
  const uint8_t* real = real_sram.data();
  uint8_t* shadow = shadow_sram.data();
  const uint32_t size = shadow_sram.size();
  touched_pages(real_sram, real_touched);
  touched_pages(shadow_sram, shadow_touched);
  for (size_t p = 0; p < real_touched.size(); ++p) {
    if (!real_touched[p] && !shadow_touched[p]) continue;
    const uint32_t off = static_cast<uint32_t>(p) * kTouchPage, n = std::min(kTouchPage, size - off);
    if (fn(off, n, real_touched[p] ? real + off : kZeros, shadow_touched[p] ? shadow + off : kZeros)) return;
  }
}

TileParams shadow_params(TileParams p) {
  p.core = TileParams::Core::interp;
  return p;
}

}  // namespace

Lockstep::Lockstep(CoreState& real)
    : real_(real),
      sram_(real.params().sram_bytes),
      console_(std::make_unique<ShadowConsole>(*this)),
      shadow_(std::make_unique<CoreState>(shadow_params(real.params()), real.program_, console_.get(), sram_)) {}

Lockstep::~Lockstep() = default;

void Lockstep::real_line(uint32_t thread, std::string_view text, bool accepted) {
  real_lines_.push_back(Line{thread, std::string(text), accepted});
}

// The shadow takes over the real tile's state as the scheduler left it: every thread
// (the running one's AMP state too), the tile's CSRs and exchange state, and the SRAM's
// pages that changed outside a compared quantum. The postings are only ever appended in
// a quantum (compared there) and cleared by release_exchange: the shadow's log follows
// the clear.
// sync_shadow copies field by field (a Thread holds its AMP state by unique_ptr, and the
// CoreState its SRAM, observers and caches, which the shadow has its own of): a field
// added to either must be copied there too, or the shadow starts its quanta without it.
// These sizes stop the build until it is (then update them).
static_assert(sizeof(Thread) == 448 && sizeof(CoreState) == 1280,
              "Thread or CoreState changed: copy the new field in Lockstep::sync_shadow, then update these sizes");
void Lockstep::sync_shadow(uint32_t running) {
  CoreState& s = *shadow_;
  for (uint32_t i = 0; i < real_.threads_.live(kMaxThreads); ++i) {
    const Thread& r = std::as_const(real_.threads_)[i];
    Thread& t = s.threads_[i];
    t.hart = r.hart;
    t.state = r.state;
    t.ip = r.ip;
    t.clock = r.clock;
    t.instret = r.instret;
    t.stall = r.stall;
    t.exchange_stall = r.exchange_stall;
    t.alloc_cycle = r.alloc_cycle;
    t.start_cycle = r.start_cycle;
    t.exit_cycle = r.exit_cycle;
    t.starts = r.starts;
    t.last_status = r.last_status;
    t.wait_arg = r.wait_arg;
    t.line = r.line;
    if (i != running) continue;  // a quantum touches only its own thread's AMP state
    if (!r.amp) {
      t.amp.reset();
    } else if (t.amp) {
      *t.amp = *r.amp;
    } else {
      t.amp = std::make_unique<AmpState>(*r.amp);
    }
  }
  s.wstack_base_ = real_.wstack_base_;
  s.wstack_size_ = real_.wstack_size_;
  s.wexit_pc_ = real_.wexit_pc_;
  s.superstep_ = real_.superstep_;
  s.stopped_.reset();
  s.awaiting_release_ = real_.awaiting_release_;
  s.exchange_open_ = real_.exchange_open_;
  s.awaiting_exchange_ = real_.awaiting_exchange_;
  s.xdst_ = real_.xdst_;
  s.xsrc_ = real_.xsrc_;
  s.smaddr_ = real_.smaddr_;
  s.stream_ = real_.stream_;
  s.horizon_ = real_.horizon_;
  s.console_full_ = real_.console_full_;
  if (real_.watch()) s.watch()->stacks = real_.watch()->stacks;  // the buffers are the real tile's to count
  if (s.posts_.size() != real_.posts_.size()) s.posts_.clear();
  if (sram_stale_) {
    // Only pages one side ever touched, and only those that differ are written, so the
    // shadow maps no page the tile's own data does not.
    uint8_t* dst = sram_.data();
    each_touched_page(real_.sram_, sram_, real_touched_, shadow_touched_,
                      [&](uint32_t off, uint32_t n, const uint8_t* from, const uint8_t* now) {
                        if (std::memcmp(now, from, n) != 0) std::memcpy(dst + off, from, n);
                        return false;
                      });
    sram_stale_ = false;
  }
}

void Lockstep::run_quantum(Quantum& q, jit::CodeCache& cache, jit::Stats& tile_stats) {
  Thread& t = *q.thread;
  CoreState& s = *shadow_;
  sync_shadow(t.id);
  real_lines_.clear();
  replayed_ = 0;
  console_mismatch_.clear();
  const size_t real_posts = real_.posts_.size(), shadow_posts = s.posts_.size();

  Quantum sq;
  sq.tile = &s;
  sq.thread = &s.threads_[t.id];
  sq.mem = &s.mem_;
  sq.ip = q.ip;
  sq.slot_adjust = q.slot_adjust;
  const uint64_t budget = q.budget;
  const uint32_t quantum_pc = real_.pc_of(q.ip);
  uint64_t done = 0;  // instructions retired in the quantum before this step
  for (;;) {
    const uint32_t step_pc = real_.pc_of(q.ip);
    step(q, done, budget, [&] { run_jit(q, cache, tile_stats); });
    if (tamper_) [[unlikely]] tamper_(t, step_pc);
    step(sq, done, budget, [&] { run_loop<false>(sq); });
    if (std::optional<std::string> d = compare_step(q, sq)) return diverged(q, step_pc, done, std::move(*d));
    done += q.executed;
    const bool console_full = q.budget == 0;  // loop_console asks for the quantum's end (or budget 0)
    q.budget = sq.budget = console_full ? 0 : budget;
    if (q.exit != LoopExit::Budget || console_full || done >= budget) break;
  }
  q.executed = done;
  if (std::optional<std::string> d = compare_quantum(t, real_posts, shadow_posts))
    return diverged(q, quantum_pc, done, fmt::format("{} (the quantum from pc 0x{:08x} to 0x{:08x})", *d, quantum_pc,
                                                     real_.pc_of(q.ip)));
}

// The thread after one step: registers, the console line it assembles, where it goes
// next, the step's instructions and slots, how it ended, and a fault's record.
std::optional<std::string> Lockstep::compare_step(const Quantum& real_q, const Quantum& shadow_q) const {
  const Thread& r = *real_q.thread;
  const Thread& s = *shadow_q.thread;
  for (unsigned i = 0; i < kRegCount; ++i) {
    if (i == kSinkReg || r.hart.regs[i] == s.hart.regs[i]) continue;
    return fmt::format("{}: interpreter 0x{:08x}, translator 0x{:08x}", register_name(i), s.hart.regs[i],
                       r.hart.regs[i]);
  }
  if (real_q.ip != shadow_q.ip)
    return fmt::format("next pc: interpreter 0x{:08x}, translator 0x{:08x}", real_.pc_of(shadow_q.ip),
                       real_.pc_of(real_q.ip));
  if (real_q.executed != shadow_q.executed)
    return fmt::format("instructions retired: interpreter {}, translator {}", shadow_q.executed, real_q.executed);
  if (real_q.slot_adjust != shadow_q.slot_adjust)
    return fmt::format("issue slots (slot adjust): interpreter {}, translator {}", shadow_q.slot_adjust,
                       real_q.slot_adjust);
  if (real_q.exit != shadow_q.exit)
    return fmt::format("end of step: interpreter {}, translator {}", exit_name(shadow_q.exit), exit_name(real_q.exit));
  if (real_q.budget != shadow_q.budget) return "end of quantum (console full): interpreter and translator differ";
  if (!console_mismatch_.empty()) return console_mismatch_;
  if (r.line != s.line)
    return fmt::format("console line being written: interpreter \"{}\", translator \"{}\"", s.line, r.line);
  const std::optional<StopInfo>& rs = real_.stopped_;
  const std::optional<StopInfo>& ss = shadow_->stopped_;
  const auto fault_text = [](const std::optional<StopInfo>& si) {
    return si && si->fault ? fmt::format("{} at pc 0x{:08x}: {}", si->fault->kind, si->fault->pc, si->fault->detail)
                           : std::string("none");
  };
  if (fault_text(rs) != fault_text(ss))
    return fmt::format("fault: interpreter {}, translator {}", fault_text(ss), fault_text(rs));
  return std::nullopt;
}

// After the quantum: the whole SRAM (the real engine's stores are not listed anywhere
// cheap; pages neither side ever touched are zeros on both and not read), the postings it made, the exchange state, the console lines, the AMP state.
std::optional<std::string> Lockstep::compare_quantum(const Thread& real_t, size_t real_posts,
                                                     size_t shadow_posts) {
  const CoreState& s = *shadow_;
  std::optional<std::string> sram_diff;
  each_touched_page(real_.sram_, sram_, real_touched_, shadow_touched_,
                    [&](uint32_t off, uint32_t n, const uint8_t* rp, const uint8_t* sp) {
                      if (std::memcmp(rp, sp, n) == 0) return false;
                      uint32_t i = 0;
                      while (rp[i] == sp[i]) ++i;
                      i &= ~3u;
                      uint32_t rv = 0, sv = 0;
                      std::memcpy(&rv, rp + i, 4);
                      std::memcpy(&sv, sp + i, 4);
                      sram_diff = fmt::format(
                          "SRAM word at 0x{:08x} (the first that differs): interpreter 0x{:08x}, translator 0x{:08x}",
                          kSramBase + off + i, sv, rv);
                      return true;
                    });
  if (sram_diff) return sram_diff;
  const size_t real_new = real_.posts_.size() - real_posts, shadow_new = s.posts_.size() - shadow_posts;
  for (size_t i = 0; i < std::min(real_new, shadow_new); ++i) {
    const ExchangePost a = s.posts_.at(shadow_posts + i), b = real_.posts_.at(real_posts + i);
    if (a != b) return fmt::format("posting: interpreter {}, translator {}", post_text(a), post_text(b));
  }
  if (real_new != shadow_new)
    return fmt::format("postings in the quantum: interpreter {}, translator {}", shadow_new, real_new);
  if (s.xdst_ != real_.xdst_ || s.xsrc_ != real_.xsrc_ || s.smaddr_ != real_.smaddr_ || s.stream_ != real_.stream_ ||
      s.exchange_open_ != real_.exchange_open_)
    return std::string("exchange state (xdst / xsrc / smaddr / hsid)");
  if (s.wstack_base_ != real_.wstack_base_ || s.wstack_size_ != real_.wstack_size_ || s.wexit_pc_ != real_.wexit_pc_)
    return fmt::format("tile CSRs (wstack base / size, wexit pc): interpreter 0x{:08x} / {} / 0x{:08x}, translator "
                       "0x{:08x} / {} / 0x{:08x}",
                       s.wstack_base_, s.wstack_size_, s.wexit_pc_, real_.wstack_base_, real_.wstack_size_,
                       real_.wexit_pc_);
  if (replayed_ != real_lines_.size())
    return fmt::format("console lines in the quantum: interpreter {}, translator {}", replayed_, real_lines_.size());
  const AmpState* ra = real_t.amp.get();
  const AmpState* sa = s.threads_[real_t.id].amp.get();
  if ((ra == nullptr) != (sa == nullptr)) return std::string("AMP state: allocated by one engine only");
  if (ra && (std::memcmp(ra->w, sa->w, sizeof ra->w) != 0 || std::memcmp(ra->acc, sa->acc, sizeof ra->acc) != 0 ||
             ra->type != sa->type || ra->rows != sa->rows))
    return std::string("AMP state (weights or accumulators)");
  return std::nullopt;
}

// Stops the real tile as a fault does: the record names the thread, the pc the step
// (or the quantum) started at and what differed; its registers are the translator's.
void Lockstep::diverged(Quantum& q, uint32_t pc, uint64_t done, std::string detail) {
  Thread& t = *q.thread;
  Fault f;
  f.code = ProblemCode::TileFault;
  f.kind = "lockstep divergence";
  f.ipu = real_.params().id.ipu;
  f.tile = real_.params().id.tile;
  f.thread = t.id;
  f.pc = pc;
  if (const DecodedInsn* ip = real_.entry_for(pc)) {
    f.insn = real_.word_at(ip);
    f.disasm = disassemble(f.insn, pc);
  }
  f.detail = std::move(detail);
  f.cycle = t.clock + kIssueSlots * q.slots(done);
  f.registers = thread_registers(t, real_.pc_of(q.ip));
  for (uint32_t i = 0; i < real_.threads_.live(real_.thread_count()); ++i) real_.flush_line(real_.threads_[i]);  // as raise() does
  StopInfo si;
  si.reason = StopReason::Fault;
  si.fault = std::make_shared<const Fault>(std::move(f));
  real_.stopped_ = std::move(si);
  q.executed = done;
  q.exit = LoopExit::Fault;
}

void Lockstep::code_changed() {
  shadow_->hooked_code_ = real_.hooked_code_;
  if (real_.watch() && !shadow_->watch()) shadow_->hooks().watch = std::make_unique<CoreState::MemoryWatch>(*real_.watch());
  shadow_->init_views();
  sram_stale_ = true;
}

}  // namespace ipusim::iss
