// The emitter of one translated region (translator.cpp; docs/iss.md "Translator"): the
// guest register cache, the exits, the calls out, and one member per instruction family
// (emit_integer.cpp, emit_memory.cpp, emit_float.cpp). Internal to tlm/iss/jit.
//
// Host registers while a region runs (set by the enter stub, code_cache.cpp):
//   rbx Context*, rbp the register file, r12 / r13 the load / store bases, r14 the room
//   left in the budget (charged at taken transfers, like the fast loop's key), r15 the
//   Quantum (slot_adjust and the calls out); esi, edi, r8d-r11d cache guest registers
//   within the region, xmm8-13 their mirrors for the F ops (f registers only: see
//   fp_operand); eax, ecx, edx and xmm0-2 are scratch.
// Deferred write-back: a result stays in its host register (the slot is dirty) until the
// register file must hold it: at every exit from the region, before every call out (a
// service reads the register file; the calls clobber the caller-saved cache registers),
// before a fault is recorded, and when the slot is evicted. The emitter knows at every
// point which slots are dirty (Snapshot), so each of those places stores exactly those.
// Likewise the co-issued seconds fallen through since the last call out (pairs) are one
// static count, subtracted from q.slot_adjust wherever it may be read: at exits, stubs
// and calls out (a stub that returns to the region adds it back).
#pragma once

#include <algorithm>
#include <array>
#include <cassert>
#include <cstddef>
#include <cstdlib>
#include <deque>
#include <functional>
#include <utility>
#include <vector>

#include <xbyak/xbyak.h>

#include "iss/interp.h"
#include "iss/jit/context.h"
#include "iss/jit/translator.h"

namespace ipusim::iss::jit {

using Xbyak::Label;
using namespace Xbyak::util;  // the host registers by name: rax, rbx, ...
using Xbyak::Reg32;

inline bool is_fused(Op op) {
  return (op >= Op::fmadd && op <= Op::fnmadd) || (op >= Op::fmadd_dyn && op <= Op::fnmadd_dyn);
}

class RegionEmitter {
  static constexpr int kSlots = 6;  // the guest register cache's host registers (slot_reg)

 public:
  RegionEmitter(Xbyak::CodeGenerator& g, const RegionSite& site, uint32_t start, uint32_t end)
      : g_(g), site_(site), dc_(site.code), start_(start), end_(end),
        clobber_calls_(std::getenv("IPUSIM_JIT_CLOBBER_CALLS") != nullptr) {}

  bool hoisted_loop() const { return !hoisted_.empty(); }
  const void* emit() {
    g_.align(16);
    const void* entry = g_.getCurr();
    // The registers the region reads, loaded on entry: a jump back to the region's own
    // start (a loop) then finds them in the same host registers and skips these loads.
    int next = 0;
    for (uint32_t i = start_; i < end_ && next < kSlots; ++i)
      for (unsigned r : sources(dc_.ops[i], *at(i)))
        if (next < kSlots && find(r) < 0) {
          slots_[next].guest = static_cast<int>(r);
          slots_[next].used = ++tick_;
          g_.mov(slot_reg(next), guest_mem(r));
          ++next;
        }
    // At the top, the cached registers the region writes count as dirty: a loop back to
    // the top may bring them dirty (the entry's loads are clean, and storing them again at
    // an exit is harmless). taken_exit writes back any other register dirty in place.
    for (uint32_t i = start_; i < end_; ++i)
      for (Slot& slot : slots_)
        if (slot.guest == static_cast<int>(dc_.insns[i].rd)) slot.dirty = true;
    // The f registers cached at the top have their xmm mirrors there: a loop's float
    // chain (supersteps' fmadd accumulator) then stays in xmm registers from one
    // iteration to the next, without the GPR -> XMM move on its critical path.
    for (int s = 0; s < kSlots; ++s)
      if (is_f_reg(slots_[s].guest)) {
        g_.movd(mirror_reg(s), slot_reg(s));
        slots_[s].mirror = true;
      }
    top_state_ = snapshot();
    uint32_t edge = end_;  // the first transfer back to the top: the loop's back edge
    for (uint32_t i = start_; i < end_ && edge == end_; ++i)
      if (jumps_to_top(i)) edge = i;
    loops_ = edge != end_;
    if (loops_) plan_hoisting(edge);
    g_.L(top_);
    Label after_back_edge;  // the fast body's way out when its loop ends (not taken)
    if (!hoisted_.empty()) emit_fast_body(after_back_edge);
    bool transferred = false;
    for (uint32_t i = start_; i < end_; ++i) {
      transferred = step(i);
      if (i == back_edge_ && !transferred) {
        assert(same_cache(fast_end_));  // both bodies made the same choices from the same state
        g_.L(after_back_edge);
      }
    }
    if (!transferred) fall_exit(end_, end_ - start_);
    for (auto& stub : stubs_) stub();
    return entry;
  }

 private:
  struct Slot {
    int guest = -1;
    uint64_t used = 0;
    bool dirty = false;  // the host register is newer than the register file
    bool mirror = false;  // xmm(8 + slot) holds the same value (an f register the F ops read)
  };
  // The emitter's state at one point of the region, for code emitted elsewhere (stubs,
  // exits): which slot holds which guest register, which are dirty, and the co-issued
  // seconds not yet subtracted from q.slot_adjust.
  struct Cached {
    int slot, guest;
    bool dirty, mirror;
  };
  struct Snapshot {
    std::vector<Cached> regs;
    uint32_t pairs = 0;
    bool fast = false;  // in a loop's fast body: part of the budget is held back (loop_hoist.cpp)
  };

  const DecodedInsn* at(uint32_t i) const { return &dc_.insns[i]; }
  bool jumps_to_top(uint32_t i) const {
    const Op op = dc_.ops[i];
    return (is_branch(op) || op == Op::j || op == Op::jal) &&
           i + static_cast<uint32_t>(at(i)->imm / static_cast<int32_t>(sizeof(DecodedInsn))) == start_;
  }
  // The registers an instruction reads, for the region's entry loads (a guess is enough:
  // the loads only save later ones, and a loop back reloads whatever differs).
  static std::vector<unsigned> sources(Op op, const DecodedInsn& d) {
    switch (op) {
      case Op::nop: case Op::li: case Op::j: case Op::jal: case Op::rpt_end: return {};
      case Op::rpt: return {d.rs1};
      case Op::addi: case Op::slti: case Op::sltiu: case Op::xori: case Op::ori: case Op::andi:
      case Op::slli: case Op::srli: case Op::srai: case Op::jalr:
      case Op::lb: case Op::lh: case Op::lw: case Op::lbu: case Op::lhu: case Op::flw:
      case Op::fmv_x_w: case Op::fmv_w_x: case Op::fsqrt: case Op::fsqrt_dyn:
      case Op::fcvt_w_s: case Op::fcvt_wu_s: case Op::fcvt_s_w: case Op::fcvt_s_wu:
        return {d.rs1};
      case Op::sb: case Op::sh: case Op::sw: case Op::fsw:
        return {d.rs2, d.rs1};  // the order store() reads them
      default:
        if (is_fused(op)) return {d.rs1, d.rs2, d.rs3};
        if (translatable(op) && !is_amp(op) && !is_wide_memory(op) && !is_vector_fp(op) && op != Op::csr &&
            op != Op::fp_exact && !(op >= Op::xdst && op <= Op::hswrite))
          return {d.rs1, d.rs2};
        return {};
    }
  }

  // --- the guest register cache ---
  Reg32 slot_reg(int s) const {
    static const int ids[kSlots] = {Xbyak::Operand::ESI, Xbyak::Operand::EDI, 8, 9, 10, 11};
    return Reg32(ids[s]);
  }
  Xbyak::Address guest_mem(unsigned r) { return g_.dword[rbp + 4 * r]; }
  // The F ops' copy of slot s (xmm8-13: caller-saved like the slots, restored by reload()).
  static Xbyak::Xmm mirror_reg(int s) { return Xbyak::Xmm(8 + s); }
  static bool is_f_reg(int guest) { return guest >= static_cast<int>(kFReg0) && guest < static_cast<int>(kFrmReg); }
  // xmm `to` = guest register `r`'s value, an operand already read into its slot: from
  // the slot's mirror when it has one (no GPR -> XMM move), else from the slot.
  void fp_operand(const Xbyak::Xmm& to, unsigned r) {
    const int s = find(r);
    if (slots_[s].mirror) g_.movaps(to, mirror_reg(s));
    else g_.movd(to, slot_reg(s));
  }
  // After an F op left rd's value in `from` (and its slot): the slot's mirror too.
  void set_mirror(unsigned rd, const Xbyak::Xmm& from) {
    const int s = find(rd);
    g_.movaps(mirror_reg(s), from);
    slots_[s].mirror = true;
  }
  int find(unsigned guest) const {
    for (int s = 0; s < kSlots; ++s)
      if (slots_[s].guest == static_cast<int>(guest)) return s;
    return -1;
  }
  // How many instructions after the current one guest register `guest` is read next in
  // the region (0: by the current one, whose operands are read one by one; a loop's
  // region wraps around to its top); kNever when it is not, or is overwritten first.
  static constexpr uint32_t kNever = ~0u;
  uint32_t next_use(int guest) const {
    const uint32_t len = end_ - start_;
    for (uint32_t k = 0; k <= len; ++k) {
      uint32_t idx = cur_ + k;
      if (idx >= end_) {
        if (!loops_) break;
        idx -= len;
      }
      for (unsigned r : sources(dc_.ops[idx], dc_.insns[idx]))
        if (static_cast<int>(r) == guest) return k;
      if (static_cast<int>(dc_.insns[idx].rd) == guest) return kNever;
    }
    return kNever;
  }
  // The slot to give a new guest register: an empty one; else, of those the current
  // instruction has not used (its operands stay put), the one whose register is needed
  // again last (the region's code is known: Belady's choice, which keeps a loop with more
  // live registers than slots from reloading most of them), a clean one before a dirty
  // one (no store), then the least recently used.
  int victim() const {
    int best = -1;
    uint32_t best_next = 0;
    for (int s = 0; s < kSlots; ++s) {
      if (slots_[s].guest < 0) return s;
      if (slots_[s].used > insn_tick_) continue;
      const uint32_t next = next_use(slots_[s].guest);
      const bool better =
          best < 0 || next > best_next ||
          (next == best_next && (slots_[best].dirty != slots_[s].dirty ? !slots_[s].dirty
                                                                       : slots_[s].used < slots_[best].used));
      if (better) {
        best = s;
        best_next = next;
      }
    }
    return best;  // an instruction uses at most four slots
  }
  // A slot for a new guest register (victim()), written back if dirty.
  int evict() {
    const int s = victim();
    if (slots_[s].guest >= 0 && slots_[s].dirty) g_.mov(guest_mem(static_cast<unsigned>(slots_[s].guest)), slot_reg(s));
    slots_[s] = Slot{};
    return s;
  }
  // The host register holding guest register `r` (loaded on first use in the region).
  Reg32 read(unsigned r) {
    int s = find(r);
    if (s < 0) {
      s = evict();
      slots_[s].guest = static_cast<int>(r);
      g_.mov(slot_reg(s), guest_mem(r));
    }
    slots_[s].used = ++tick_;
    return slot_reg(s);
  }
  // The slot guest register `r` is written in, now dirty (its old value is dead).
  int dest(unsigned r) {
    int s = find(r);
    if (s < 0) {
      s = evict();
      slots_[s].guest = static_cast<int>(r);
    }
    slots_[s].used = ++tick_;
    slots_[s].dirty = true;
    slots_[s].mirror = false;  // a new value: set_mirror after, for an F result
    return s;
  }
  // Guest register `r` = `value` (a scratch register), kept in the cache.
  void write(unsigned r, const Reg32& value) { g_.mov(slot_reg(dest(r)), value); }
  void write_imm(unsigned r, uint32_t v) { g_.mov(slot_reg(dest(r)), v); }
  Snapshot snapshot() const {
    Snapshot out;
    for (int s = 0; s < kSlots; ++s)
      if (slots_[s].guest >= 0) out.regs.push_back({s, slots_[s].guest, slots_[s].dirty, slots_[s].mirror});
    out.pairs = pairs_;
    out.fast = fast_;
    return out;
  }
  // Stores the registers dirty at `snap` (host registers as they are there).
  void write_back(const Snapshot& snap) {
    for (const Cached& c : snap.regs)
      if (c.dirty) g_.mov(guest_mem(static_cast<unsigned>(c.guest)), slot_reg(c.slot));
  }
  // q.slot_adjust as the interpreter has it at `snap` (before a call out or an exit), and
  // back again for a stub that returns into the region.
  void apply_pairs(uint32_t pairs) {
    if (pairs != 0) g_.sub(g_.qword[r15 + offsetof(Quantum, slot_adjust)], pairs);
  }
  void undo_pairs(uint32_t pairs) {
    if (pairs != 0) g_.add(g_.qword[r15 + offsetof(Quantum, slot_adjust)], pairs);
  }
  // After a call out (written back before it): the cache registers are caller-saved, the
  // register file is current (and has what the call wrote).
  void reload(const Snapshot& snap) {
    for (const Cached& c : snap.regs) {
      g_.mov(slot_reg(c.slot), guest_mem(static_cast<unsigned>(c.guest)));
      if (c.mirror) g_.movd(mirror_reg(c.slot), slot_reg(c.slot));
    }
  }
  // Out of line, a call to `fn(q, insn)` from the state `snap` that returns into the
  // region: registers written back, slot_adjust exact for the call; a false return leaves
  // with the fault the call recorded. The caller emits the label before and the jump back.
  void stub_call(uint32_t i, const void* fn, const Snapshot& snap, bool may_fail) {
    write_back(snap);
    apply_pairs(snap.pairs);
    call_service(i, fn);
    if (may_fail) leave_if_failed(i, snap.fast);
    undo_pairs(snap.pairs);
    reload(snap);
  }

  // --- exits ---
  void set_exit(uint32_t index, ExitKind kind) {
    g_.mov(g_.dword[rbx + offsetof(Context, exit_index)], index);
    g_.mov(g_.dword[rbx + offsetof(Context, exit_kind)], static_cast<uint32_t>(kind));
  }
  // The fast body's budget held back (loop_hoist.cpp) back into r14, before anything that
  // leaves the body or reads the budget; the flags are r14's after it.
  void restore_budget(bool fast) {
    if (fast) g_.add(r14, g_.qword[rbx + offsetof(Context, loop_stop)]);
  }
  // Chains to the translation at `index` if there is one, else leaves with `kind`.
  void chain_or_leave(uint32_t index, ExitKind kind) {
    // A target translated already: a direct jump (translations never move or go away).
    if (const void* there = site_.entries[index].load(std::memory_order_acquire)) {
      g_.jmp(there);
      return;
    }
    Label leave;
    g_.mov(rax, reinterpret_cast<uintptr_t>(&site_.entries[index]));
    g_.mov(rax, g_.qword[rax]);
    g_.test(rax, rax);
    g_.jz(leave);
    g_.jmp(rax);
    g_.L(leave);
    set_exit(index, kind);
    g_.jmp(site_.leave);
  }
  // A taken transfer to a static target, `n` instructions retired in the region with it;
  // `now` is the emitter's state where it is taken.
  void taken_exit(uint32_t target, uint32_t n, const Snapshot& now) {
    Label out;
    if (target == start_) {
      // Back to the top, which expects top_state_: what is not there in place goes to the
      // register file (a register dirty in place that the top counts clean too), then the
      // top's registers that are not in place come from it.
      auto in_place = [&](const Cached& c, bool need_dirty) {
        for (const Cached& t : top_state_.regs)
          if (t.slot == c.slot && t.guest == c.guest) return !need_dirty || t.dirty;
        return false;
      };
      for (const Cached& c : now.regs)
        if (c.dirty && !in_place(c, true)) g_.mov(guest_mem(static_cast<unsigned>(c.guest)), slot_reg(c.slot));
      apply_pairs(now.pairs);
      std::vector<Cached> missing;    // to load from the register file
      std::vector<Cached> unmirrored;  // to copy into their mirrors after
      for (const Cached& t : top_state_.regs) {
        bool held = false, mirrored = false;
        for (const Cached& c : now.regs)
          if (c.slot == t.slot && c.guest == t.guest) {
            held = true;
            mirrored = c.mirror;
          }
        if (!held) missing.push_back(t);
        if (t.mirror && !mirrored) unmirrored.push_back(t);
      }
      auto to_top_state = [&] {
        for (const Cached& t : missing) g_.mov(slot_reg(t.slot), guest_mem(static_cast<unsigned>(t.guest)));
        for (const Cached& t : unmirrored) g_.movd(mirror_reg(t.slot), slot_reg(t.slot));
      };
      // The fast body loops to itself; the checked one, once the preheader sent it there,
      // to itself too (a loop whose accesses cannot be hoisted pays the preheader once).
      Label& back = now.fast ? fast_top_ : !hoisted_.empty() ? checked_top_ : top_;
      g_.sub(r14, n);  // the budget is checked at taken transfers only, as the fast loop does
      if (missing.empty() && unmirrored.empty()) {
        g_.jg(back);  // a loop whose registers stay put: one conditional jump back
      } else {
        g_.jle(out);
        to_top_state();
        g_.jmp(back);
        g_.L(out);
      }
      if (now.fast) {
        // The fast body's safe iterations or the budget ran out: the budget held back
        // comes back, and with room left the preheader looks at the accesses again.
        Label spent;
        restore_budget(true);
        g_.jle(spent);
        to_top_state();
        g_.jmp(top_);
        g_.L(spent);
      }
      for (const Cached& c : now.regs)
        if (c.dirty && in_place(c, true)) g_.mov(guest_mem(static_cast<unsigned>(c.guest)), slot_reg(c.slot));
    } else {
      restore_budget(now.fast);
      write_back(now);
      apply_pairs(now.pairs);
      g_.sub(r14, n);
      g_.jle(out);
      chain_or_leave(target, ExitKind::Taken);
      g_.L(out);
    }
    set_exit(target, ExitKind::Taken);
    g_.jmp(site_.leave);
  }
  // The region ends without a transfer: `index` continues the same block.
  void fall_exit(uint32_t index, uint32_t n) {
    restore_budget(fast_);
    write_back(snapshot());
    apply_pairs(pairs_);
    g_.sub(r14, n);
    chain_or_leave(index, ExitKind::Fall);
  }
  // Out of line: the instruction at i faults (loop_fault works out which fault) with the
  // registers as they are before it (the emitter's state now).
  Label& fault_stub(uint32_t i) {
    labels_.emplace_back();
    Label& l = labels_.back();
    stubs_.push_back([this, &l, i, now = snapshot()] {
      g_.L(l);
      restore_budget(now.fast);
      write_back(now);
      apply_pairs(now.pairs);
      g_.sub(r14, i - start_);
      call_service(i, reinterpret_cast<const void*>(&loop_fault));
      set_exit(i, ExitKind::Fault);
      g_.jmp(site_.leave);
    });
    return l;
  }
  // Out of line: a service that returns false after recording a fault.
  void leave_if_failed(uint32_t i, bool fast) {
    Label ok;
    g_.test(al, al);
    g_.jnz(ok);
    restore_budget(fast);
    g_.sub(r14, i - start_);
    set_exit(i, ExitKind::Fault);
    g_.jmp(site_.leave);
    g_.L(ok);
  }
  void call_service(uint32_t i, const void* fn) {
    g_.mov(rdi, r15);
    g_.mov(rsi, reinterpret_cast<uintptr_t>(at(i)));
    g_.mov(rax, reinterpret_cast<uintptr_t>(fn));
    call(rax);
  }
  // A call out. IPUSIM_JIT_CLOBBER_CALLS (tests): after it, the cache registers and their
  // mirrors hold garbage, as an ABI-conforming callee may leave them (ours often do not),
  // so a region that relies on one surviving a call shows in the lockstep tests.
  void call(const Xbyak::Reg64& fn) {
    g_.call(fn);
    if (!clobber_calls_) return;
    for (int s = 0; s < kSlots; ++s) {
      g_.mov(slot_reg(s), 0xdead0000u + static_cast<uint32_t>(s));
      g_.movd(mirror_reg(s), slot_reg(s));
    }
  }
  // An instruction the interpreter completes out of line (the same service its handler
  // calls): the dirty registers are written back and q.slot_adjust made exact first; the
  // service may write any register, so the cache starts empty after it.
  enum class Service { csr, exchange, amp, wide_memory, vector_fp, fp_convert, fp_exact };
  void service(uint32_t i, Service s) {
    write_back(snapshot());
    apply_pairs(pairs_);
    pairs_ = 0;
    restore_budget(fast_);  // the services see the real budget (csr and exchange read it)
    if (s == Service::csr || s == Service::exchange) {  // they read the quantum's count
      g_.mov(rdx, g_.qword[rbx + offsetof(Context, budget)]);
      g_.sub(rdx, r14);
      g_.add(rdx, i - start_);
    }
    g_.mov(rdi, r15);
    g_.mov(rsi, reinterpret_cast<uintptr_t>(at(i)));
    switch (s) {
      case Service::csr: g_.mov(rax, reinterpret_cast<uintptr_t>(&loop_csr)); break;
      case Service::exchange: g_.mov(rax, reinterpret_cast<uintptr_t>(&loop_exchange)); break;
      case Service::amp:  // MemView::amp: the ISS's arithmetic or the tile's AMP datapath
        g_.mov(rax, g_.qword[r15 + offsetof(Quantum, mem)]);
        g_.mov(rax, g_.qword[rax + offsetof(MemView, amp)]);
        break;
      case Service::wide_memory: g_.mov(rax, reinterpret_cast<uintptr_t>(&loop_wide_memory)); break;
      case Service::vector_fp: g_.mov(rax, reinterpret_cast<uintptr_t>(&loop_vector_fp)); break;
      case Service::fp_convert: g_.mov(rax, reinterpret_cast<uintptr_t>(&loop_fp_convert)); break;
      case Service::fp_exact: g_.mov(rax, reinterpret_cast<uintptr_t>(&loop_fp_exact)); break;
    }
    call(rax);
    leave_if_failed(i, false);
    if (fast_) g_.sub(r14, g_.qword[rbx + offsetof(Context, loop_stop)]);  // held back again
    for (Slot& slot : slots_) slot = Slot{};
  }
  Label& new_label() {
    labels_.emplace_back();
    return labels_.back();
  }

  // --- loops: bounds checks hoisted out of the body (loop_hoist.cpp) ---
  // A load or store of the loop body whose base register only steps by a constant per
  // iteration: checked once in the preheader for as many iterations as stay in range.
  struct HoistedAccess {
    uint32_t index;  // the load or store
    unsigned base;   // its rs1
    int32_t disp;    // its offset in the first iteration = base's value at the top + disp
    int64_t step;    // the base's change per iteration (a multiple of the access size)
    uint32_t last;   // the last in-range aligned offset
    unsigned lg;     // log2 of the access size
  };
  // The emitter's choices so far, to emit the body twice from one state.
  struct CacheState {
    std::array<Slot, kSlots> slots;
    uint64_t tick;
    uint32_t pairs;
  };
  void plan_hoisting(uint32_t edge);
  void emit_preheader();
  void emit_fast_body(Label& after_back_edge);
  bool hoisted(uint32_t i) const {
    for (const HoistedAccess& h : hoisted_)
      if (h.index == i) return true;
    return false;
  }
  CacheState cache_state() const {
    CacheState c{{}, tick_, pairs_};
    std::copy(std::begin(slots_), std::end(slots_), c.slots.begin());
    return c;
  }
  void set_cache_state(const CacheState& c) {
    std::copy(c.slots.begin(), c.slots.end(), std::begin(slots_));
    tick_ = c.tick;
    pairs_ = c.pairs;
  }
  bool same_cache(const CacheState& c) const {
    for (int s = 0; s < kSlots; ++s)
      if (slots_[s].guest != c.slots[s].guest || slots_[s].dirty != c.slots[s].dirty ||
          slots_[s].mirror != c.slots[s].mirror)
        return false;
    return pairs_ == c.pairs;
  }

  // --- instructions; true when the instruction ended the region with a transfer ---
  bool step(uint32_t i) {
    if (i != start_ && dc_.co_issued[i]) ++pairs_;  // fell through from its first: one slot for both
    cur_ = i;
    insn_tick_ = tick_;
    return insn(i);
  }
  bool insn(uint32_t i);
  void alu_imm(Op op, const DecodedInsn& d);
  void alu_reg(Op op, const DecodedInsn& d);
  void muldiv(Op op, const DecodedInsn& d);
  void branch(uint32_t i, Op op);
  Xbyak::Reg64 emit_range_check(const Reg32& base, int32_t imm, unsigned lg, const uint32_t* limits, Label& fail);
  void load(uint32_t i, Op op);
  void store(uint32_t i, Op op);
  void fp_arith(uint32_t i, Op op);
  void fp_convert(uint32_t i, Op op);
  void fp_compare(Op op, const DecodedInsn& d);
  void fp_min_max(uint32_t i, Op op);

  Xbyak::CodeGenerator& g_;
  const RegionSite& site_;
  const DecodedCode& dc_;
  const uint32_t start_, end_;
  const bool clobber_calls_;
  Label top_;
  Snapshot top_state_;  // the cache at top_
  Slot slots_[kSlots];
  uint64_t tick_ = 0;
  uint32_t pairs_ = 0;  // co-issued seconds fallen through, not yet in q.slot_adjust
  uint32_t cur_ = 0;        // the instruction being emitted
  uint64_t insn_tick_ = 0;  // tick_ before it: slots used since are its operands
  bool loops_ = false;      // a transfer in the region goes back to its top
  // Hoisting (loop_hoist.cpp): the loop's back edge, the accesses checked in the
  // preheader (at top_), the fast body's top and the checked body's, and whether the
  // fast body is being emitted.
  uint32_t back_edge_ = ~0u;
  std::vector<HoistedAccess> hoisted_;
  Label fast_top_, checked_top_;
  bool fast_ = false;
  CacheState fast_end_{};  // the cache where the fast body falls out of its back edge
  std::vector<std::function<void()>> stubs_;
  std::deque<Label> labels_;  // stable addresses for the stubs' labels
};

}  // namespace ipusim::iss::jit
