// One region of decoded instructions into x86-64 code (docs/iss.md "Translator").
//
// A region is straight-line code from one entry: it runs on through not-taken branches
// and ends after an unconditional jump, before an instruction the interpreter runs, or at
// kMaxRegion instructions. Host registers while a region runs (set by the enter stub):
//   rbx Context*, rbp the register file, r12 / r13 the load / store bases, r14 the room
//   left in the budget (charged at taken transfers, like the fast loop's key), r15 the
//   Quantum (slot_adjust and the calls out); esi, edi, r8d-r11d cache guest registers
//   within the region; eax, ecx, edx and xmm0-2 are scratch.
// Guest registers are cached for reading and written through: every result is stored to
// the register file at once, so faults, calls out and exits need no write-back, and a call
// only has to reload the cached registers it clobbered.
#include "iss/jit/translator.h"

#include <xbyak/xbyak_util.h>

#include <cstddef>
#include <deque>
#include <functional>
#include <vector>

#include "iss/interp.h"
#include "iss/jit/context.h"

namespace ipusim::iss::jit {

namespace {

using namespace Xbyak::util;
using Xbyak::Label;
using Xbyak::Reg32;

constexpr uint32_t kMaxRegion = 128;

bool host_has_fma() {
  static const bool has = Xbyak::util::Cpu().has(Xbyak::util::Cpu::tFMA);
  return has;
}

bool is_fused(Op op) {
  return (op >= Op::fmadd && op <= Op::fnmadd) || (op >= Op::fmadd_dyn && op <= Op::fnmadd_dyn);
}

bool ends_region(Op op) {
  return op == Op::j || op == Op::jal || op == Op::jalr || op == Op::rpt || op == Op::rpt_end;
}

FpOp fp_op_of(Op op) {
  switch (op) {
    case Op::fadd: case Op::fadd_dyn: return FpOp::add;
    case Op::fsub: case Op::fsub_dyn: return FpOp::sub;
    case Op::fmul: case Op::fmul_dyn: return FpOp::mul;
    case Op::fdiv: case Op::fdiv_dyn: return FpOp::div;
    case Op::fsqrt: case Op::fsqrt_dyn: return FpOp::sqrt;
    case Op::fmadd: case Op::fmadd_dyn: return FpOp::madd;
    case Op::fmsub: case Op::fmsub_dyn: return FpOp::msub;
    case Op::fnmsub: case Op::fnmsub_dyn: return FpOp::nmsub;
    default: return FpOp::nmadd;
  }
}

class RegionEmitter {
 public:
  RegionEmitter(Xbyak::CodeGenerator& g, const RegionSite& site, uint32_t start, uint32_t end)
      : g_(g), site_(site), dc_(site.code), start_(start), end_(end) {}

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
    top_state_ = snapshot();
    g_.L(top_);
    bool transferred = false;
    for (uint32_t i = start_; i < end_; ++i) {
      if (i != start_ && dc_.co_issued[i])  // fell through from its first: one slot for both
        g_.sub(g_.qword[r15 + offsetof(Quantum, slot_adjust)], 1);
      transferred = insn(i);
    }
    if (!transferred) fall_exit(end_, end_ - start_);
    for (auto& stub : stubs_) stub();
    return entry;
  }

 private:
  struct Slot {
    int guest = -1;
    uint64_t used = 0;
  };
  using Snapshot = std::vector<std::pair<int, int>>;  // (slot, guest)

  const DecodedInsn* at(uint32_t i) const { return &dc_.insns[i]; }
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
        return {d.rs1};
      case Op::sb: case Op::sh: case Op::sw: case Op::fsw:
        return {d.rs2, d.rs1};  // the order store() reads them
      default:
        if (is_fused(op)) return {d.rs1, d.rs2, d.rs3};
        if (translatable(op) && !is_amp(op) && !is_wide_memory(op) && !is_vector_fp(op) && op != Op::csr &&
            op != Op::fp_exact && !(op >= Op::fcvt_w_s && op <= Op::fcvt_s_wu) && !(op >= Op::xdst && op <= Op::hswrite))
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
  int find(unsigned guest) const {
    for (int s = 0; s < kSlots; ++s)
      if (slots_[s].guest == static_cast<int>(guest)) return s;
    return -1;
  }
  int victim() const {
    int best = 0;
    for (int s = 1; s < kSlots; ++s)
      if (slots_[s].guest < 0 || (slots_[best].guest >= 0 && slots_[s].used < slots_[best].used)) best = s;
    return best;
  }
  // The host register holding guest register `r` (loaded on first use in the region).
  Reg32 read(unsigned r) {
    int s = find(r);
    if (s < 0) {
      s = victim();
      slots_[s].guest = static_cast<int>(r);
      g_.mov(slot_reg(s), guest_mem(r));
    }
    slots_[s].used = ++tick_;
    return slot_reg(s);
  }
  // Guest register `r` = `value` (a scratch register): written through, and cached.
  void write(unsigned r, const Reg32& value) {
    g_.mov(guest_mem(r), value);
    int s = find(r);
    if (s < 0) {
      s = victim();
      slots_[s].guest = static_cast<int>(r);
    }
    slots_[s].used = ++tick_;
    g_.mov(slot_reg(s), value);
  }
  void write_imm(unsigned r, uint32_t v) {
    g_.mov(guest_mem(r), v);
    int s = find(r);
    if (s < 0) {
      s = victim();
      slots_[s].guest = static_cast<int>(r);
    }
    slots_[s].used = ++tick_;
    g_.mov(slot_reg(s), v);
  }
  Snapshot snapshot() const {
    Snapshot out;
    for (int s = 0; s < kSlots; ++s)
      if (slots_[s].guest >= 0) out.emplace_back(s, slots_[s].guest);
    return out;
  }
  // After a call out: the cache registers are caller-saved, the register file is current.
  void reload(const Snapshot& snap) {
    for (auto [s, guest] : snap) g_.mov(slot_reg(s), guest_mem(static_cast<unsigned>(guest)));
  }

  // --- exits ---
  void set_exit(uint32_t index, ExitKind kind) {
    g_.mov(g_.dword[rbx + offsetof(Context, exit_index)], index);
    g_.mov(g_.dword[rbx + offsetof(Context, exit_kind)], static_cast<uint32_t>(kind));
  }
  // Chains to the translation at `index` if there is one, else leaves with `kind`.
  void chain_or_leave(uint32_t index, ExitKind kind) {
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
  // `now` is the cache where it is taken.
  void taken_exit(uint32_t target, uint32_t n, const Snapshot& now) {
    Label out;
    g_.sub(r14, n);
    g_.jle(out);  // the budget is checked at taken transfers only, as the fast loop does
    if (target == start_) {
      // Back to the top: the registers the top expects, where they are not already.
      for (auto [slot, guest] : top_state_) {
        bool held = false;
        for (auto [s2, g2] : now) held = held || (s2 == slot && g2 == guest);
        if (!held) g_.mov(slot_reg(slot), guest_mem(static_cast<unsigned>(guest)));
      }
      g_.jmp(top_);
    } else {
      chain_or_leave(target, ExitKind::Taken);
    }
    g_.L(out);
    set_exit(target, ExitKind::Taken);
    g_.jmp(site_.leave);
  }
  // The region ends without a transfer: `index` continues the same block.
  void fall_exit(uint32_t index, uint32_t n) {
    g_.sub(r14, n);
    chain_or_leave(index, ExitKind::Fall);
  }
  // Out of line: the instruction at i faults (loop_fault works out which fault).
  Label& fault_stub(uint32_t i) {
    labels_.emplace_back();
    Label& l = labels_.back();
    stubs_.push_back([this, &l, i] {
      g_.L(l);
      g_.sub(r14, i - start_);
      g_.mov(rdi, r15);
      g_.mov(rsi, reinterpret_cast<uintptr_t>(at(i)));
      g_.mov(rax, reinterpret_cast<uintptr_t>(&loop_fault));
      g_.call(rax);
      set_exit(i, ExitKind::Fault);
      g_.jmp(site_.leave);
    });
    return l;
  }
  // Out of line: a service that returns false after recording a fault.
  void leave_if_failed(uint32_t i) {
    Label ok;
    g_.test(al, al);
    g_.jnz(ok);
    g_.sub(r14, i - start_);
    set_exit(i, ExitKind::Fault);
    g_.jmp(site_.leave);
    g_.L(ok);
  }
  void call_service(uint32_t i, const void* fn) {
    g_.mov(rdi, r15);
    g_.mov(rsi, reinterpret_cast<uintptr_t>(at(i)));
    g_.mov(rax, reinterpret_cast<uintptr_t>(fn));
    g_.call(rax);
  }
  // An instruction the interpreter completes out of line (the same service its handler
  // calls): registers and memory are current (written through); the service may write
  // any register, so the cache starts empty after it.
  enum class Service { csr, exchange, amp, wide_memory, vector_fp, fp_convert, fp_exact };
  void service(uint32_t i, Service s) {
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
    g_.call(rax);
    leave_if_failed(i);
    for (Slot& slot : slots_) slot.guest = -1;
  }
  Label& new_label() {
    labels_.emplace_back();
    return labels_.back();
  }

  // --- instructions; true when the instruction ended the region with a transfer ---
  bool insn(uint32_t i);
  void alu_imm(Op op, const DecodedInsn& d);
  void alu_reg(Op op, const DecodedInsn& d);
  void muldiv(Op op, const DecodedInsn& d);
  void branch(uint32_t i, Op op);
  void load(uint32_t i, Op op);
  void store(uint32_t i, Op op);
  void fp_arith(uint32_t i, Op op);

  static constexpr int kSlots = 6;
  Xbyak::CodeGenerator& g_;
  const RegionSite& site_;
  const DecodedCode& dc_;
  const uint32_t start_, end_;
  Label top_;
  Snapshot top_state_;  // the cache at top_
  Slot slots_[kSlots];
  uint64_t tick_ = 0;
  std::vector<std::function<void()>> stubs_;
  std::deque<Label> labels_;  // stable addresses for the stubs' labels
};

void RegionEmitter::alu_imm(Op op, const DecodedInsn& d) {
  const Reg32 a = read(d.rs1);
  const uint32_t imm = static_cast<uint32_t>(d.imm);
  switch (op) {
    case Op::slti:
    case Op::sltiu:
      g_.xor_(eax, eax);
      g_.cmp(a, imm);
      if (op == Op::slti) g_.setl(al); else g_.setb(al);
      break;
    default:
      g_.mov(eax, a);
      switch (op) {
        case Op::addi: g_.add(eax, imm); break;
        case Op::xori: g_.xor_(eax, imm); break;
        case Op::ori: g_.or_(eax, imm); break;
        case Op::andi: g_.and_(eax, imm); break;
        case Op::slli: g_.shl(eax, imm & 31); break;
        case Op::srli: g_.shr(eax, imm & 31); break;
        default: g_.sar(eax, imm & 31); break;  // srai
      }
  }
  write(d.rd, eax);
}

void RegionEmitter::alu_reg(Op op, const DecodedInsn& d) {
  const Reg32 a = read(d.rs1), b = read(d.rs2);
  switch (op) {
    case Op::slt:
    case Op::sltu:
      g_.xor_(eax, eax);
      g_.cmp(a, b);
      if (op == Op::slt) g_.setl(al); else g_.setb(al);
      break;
    case Op::sll:
    case Op::srl:
    case Op::sra:
      g_.mov(ecx, b);  // x86 masks a 32-bit shift count to 5 bits, as RISC-V does
      g_.mov(eax, a);
      if (op == Op::sll) g_.shl(eax, cl); else if (op == Op::srl) g_.shr(eax, cl); else g_.sar(eax, cl);
      break;
    default:
      g_.mov(eax, a);
      switch (op) {
        case Op::add: g_.add(eax, b); break;
        case Op::sub: g_.sub(eax, b); break;
        case Op::xor_: g_.xor_(eax, b); break;
        case Op::or_: g_.or_(eax, b); break;
        default: g_.and_(eax, b); break;  // and
      }
  }
  write(d.rd, eax);
}

// The M extension, with RISC-V's results for a zero divisor (quotient all ones, remainder
// the dividend) and for INT32_MIN / -1 (quotient the dividend, remainder 0): x86 would trap.
void RegionEmitter::muldiv(Op op, const DecodedInsn& d) {
  const Reg32 a = read(d.rs1), b = read(d.rs2);
  switch (op) {
    case Op::mul:
      g_.mov(eax, a);
      g_.imul(eax, b);
      break;
    case Op::mulh:
      g_.movsxd(rax, a);
      g_.movsxd(rcx, b);
      g_.imul(rax, rcx);
      g_.sar(rax, 32);
      break;
    case Op::mulhsu:
      g_.movsxd(rax, a);
      g_.mov(ecx, b);  // zero-extends: the unsigned operand
      g_.imul(rax, rcx);
      g_.sar(rax, 32);
      break;
    case Op::mulhu:
      g_.mov(eax, a);
      g_.mov(ecx, b);
      g_.imul(rax, rcx);
      g_.shr(rax, 32);
      break;
    case Op::div:
    case Op::rem: {
      Label zero, ovf, done;
      g_.mov(eax, a);
      g_.mov(ecx, b);
      g_.test(ecx, ecx);
      g_.jz(zero);
      g_.cmp(ecx, -1);
      g_.jne(ovf);  // not -1: cannot overflow
      g_.cmp(eax, 0x80000000u);
      g_.jne(ovf);
      if (op == Op::rem) g_.xor_(eax, eax);  // div: the dividend, already in eax
      g_.jmp(done);
      g_.L(ovf);
      g_.cdq();
      g_.idiv(ecx);
      if (op == Op::rem) g_.mov(eax, edx);
      g_.jmp(done);
      g_.L(zero);
      if (op == Op::div) g_.mov(eax, ~0u);  // rem: the dividend, already in eax
      g_.L(done);
      break;
    }
    default: {  // divu, remu
      Label zero, done;
      g_.mov(eax, a);
      g_.mov(ecx, b);
      g_.test(ecx, ecx);
      g_.jz(zero);
      g_.xor_(edx, edx);
      g_.div(ecx);
      if (op == Op::remu) g_.mov(eax, edx);
      g_.jmp(done);
      g_.L(zero);
      if (op == Op::divu) g_.mov(eax, ~0u);
      g_.L(done);
    }
  }
  write(d.rd, eax);
}

void RegionEmitter::branch(uint32_t i, Op op) {
  const DecodedInsn& d = *at(i);
  const uint32_t target = i + static_cast<uint32_t>(d.imm / static_cast<int32_t>(sizeof(DecodedInsn)));
  const Reg32 a = read(d.rs1), b = read(d.rs2);
  g_.cmp(a, b);
  Label& taken = new_label();
  switch (op) {
    case Op::beq: g_.je(taken); break;
    case Op::bne: g_.jne(taken); break;
    case Op::blt: g_.jl(taken); break;
    case Op::bge: g_.jge(taken); break;
    case Op::bltu: g_.jb(taken); break;
    default: g_.jae(taken); break;  // bgeu
  }
  const uint32_t n = i - start_ + 1;
  stubs_.push_back([this, &taken, target, n, now = snapshot()] {
    g_.L(taken);
    taken_exit(target, n, now);
  });
}

// The fast loop's one-compare check: rotr(off, log2 size) < limit >> log2 size catches a
// misaligned offset (its low bits rotate to the top) and an out-of-range one together.
void RegionEmitter::load(uint32_t i, Op op) {
  const DecodedInsn& d = *at(i);
  const Reg32 a = read(d.rs1);
  const unsigned lg = (op == Op::lb || op == Op::lbu) ? 0 : (op == Op::lh || op == Op::lhu) ? 1 : 2;
  g_.mov(eax, a);
  g_.add(eax, static_cast<uint32_t>(d.imm));
  if (lg == 0) {
    g_.cmp(eax, g_.dword[rbx + offsetof(Context, load_limit)]);
  } else {
    g_.mov(ecx, eax);
    g_.ror(ecx, lg);
    g_.cmp(ecx, g_.dword[rbx + offsetof(Context, load_limit) + 4 * lg]);
  }
  g_.jae(fault_stub(i));
  switch (op) {
    case Op::lb: g_.movsx(edx, g_.byte[r12 + rax]); break;
    case Op::lbu: g_.movzx(edx, g_.byte[r12 + rax]); break;
    case Op::lh: g_.movsx(edx, g_.word[r12 + rax]); break;
    case Op::lhu: g_.movzx(edx, g_.word[r12 + rax]); break;
    default: g_.mov(edx, g_.dword[r12 + rax]); break;  // lw, flw
  }
  write(d.rd, edx);
}

// Stores test the store range [store_lo, SRAM end); anything else is loop_store_slow's
// (a store below the code is allowed, one into code or out of SRAM faults).
void RegionEmitter::store(uint32_t i, Op op) {
  const DecodedInsn& d = *at(i);
  const Reg32 v = read(d.rs2);
  const Reg32 a = read(d.rs1);
  const unsigned lg = op == Op::sb ? 0 : op == Op::sh ? 1 : 2;
  g_.mov(eax, a);
  g_.add(eax, static_cast<uint32_t>(d.imm));
  if (lg == 0) {
    g_.cmp(eax, g_.dword[rbx + offsetof(Context, store_limit)]);
  } else {
    g_.mov(ecx, eax);
    g_.ror(ecx, lg);
    g_.cmp(ecx, g_.dword[rbx + offsetof(Context, store_limit) + 4 * lg]);
  }
  Label& slow = new_label();
  Label& back = new_label();
  g_.jae(slow);
  switch (lg) {
    case 0: g_.mov(g_.byte[r13 + rax], v.cvt8()); break;
    case 1: g_.mov(g_.word[r13 + rax], v.cvt16()); break;
    default: g_.mov(g_.dword[r13 + rax], v); break;
  }
  g_.L(back);
  stubs_.push_back([this, &slow, &back, i, snap = snapshot()] {
    g_.L(slow);
    call_service(i, reinterpret_cast<const void*>(&loop_store_slow));
    leave_if_failed(i);
    reload(snap);
    g_.jmp(back);
  });
}

// Native single-precision arithmetic, exactly the fast loop's: RNE (static, or dyn with
// frm = RNE; any other dyn mode goes to loop_fp_exact), the host's sticky flags as the
// thread's, a NaN result replaced through loop_fp_nan (canonical NaN, exact flags).
void RegionEmitter::fp_arith(uint32_t i, Op op) {
  const DecodedInsn& d = *at(i);
  const bool dyn = op >= Op::fadd_dyn && op <= Op::fnmadd_dyn;
  const FpOp fop = fp_op_of(op);
  Label& result = new_label();  // eax holds rd's new value (the exact path: already stored)
  Label& nan = new_label();
  Label* exact = nullptr;
  if (dyn) {
    exact = &new_label();
    g_.cmp(g_.dword[rbp + 4 * kFrmReg], 0);
    g_.jne(*exact);
  }
  const Reg32 a = read(d.rs1);
  g_.movd(xmm0, a);
  if (fop != FpOp::sqrt) g_.movd(xmm1, read(d.rs2));
  if (is_fused(op)) g_.movd(xmm2, read(d.rs3));
  switch (fop) {
    case FpOp::add: g_.addss(xmm0, xmm1); break;
    case FpOp::sub: g_.subss(xmm0, xmm1); break;
    case FpOp::mul: g_.mulss(xmm0, xmm1); break;
    case FpOp::div: g_.divss(xmm0, xmm1); break;
    case FpOp::sqrt: g_.sqrtss(xmm0, xmm0); break;
    case FpOp::madd: g_.vfmadd213ss(xmm0, xmm1, xmm2); break;    //  a * b + c
    case FpOp::msub: g_.vfmsub213ss(xmm0, xmm1, xmm2); break;    //  a * b - c
    case FpOp::nmsub: g_.vfnmadd213ss(xmm0, xmm1, xmm2); break;  // -a * b + c
    case FpOp::nmadd: g_.vfnmsub213ss(xmm0, xmm1, xmm2); break;  // -a * b - c
  }
  g_.ucomiss(xmm0, xmm0);
  g_.jp(nan);
  g_.movd(eax, xmm0);
  g_.L(result);
  const Snapshot snap = snapshot();  // the cache where the out-of-line paths rejoin
  write(d.rd, eax);
  stubs_.push_back([this, &nan, &result, i, fop, snap] {
    g_.L(nan);
    g_.mov(edx, static_cast<uint32_t>(fop));
    call_service(i, reinterpret_cast<const void*>(&loop_fp_nan));
    reload(snap);
    g_.jmp(result);
  });
  if (exact) {
    // The cache at the frm check is a prefix of snap's: reloading snap's registers (from
    // the register file, current after the call) gives the state `result` expects.
    stubs_.push_back([this, exact, &result, i, rd = d.rd, snap] {
      g_.L(*exact);
      call_service(i, reinterpret_cast<const void*>(&loop_fp_exact));
      leave_if_failed(i);
      reload(snap);
      g_.mov(eax, guest_mem(rd));
      g_.jmp(result);
    });
  }
}

bool RegionEmitter::insn(uint32_t i) {
  const DecodedInsn& d = *at(i);
  const Op op = dc_.ops[i];
  const uint32_t n = i - start_ + 1;  // instructions retired in the region with this one
  switch (op) {
    case Op::nop: return false;
    case Op::li: write_imm(d.rd, static_cast<uint32_t>(d.imm)); return false;
    case Op::addi: case Op::slti: case Op::sltiu: case Op::xori: case Op::ori: case Op::andi:
    case Op::slli: case Op::srli: case Op::srai:
      alu_imm(op, d);
      return false;
    case Op::add: case Op::sub: case Op::sll: case Op::slt: case Op::sltu: case Op::xor_:
    case Op::srl: case Op::sra: case Op::or_: case Op::and_:
      alu_reg(op, d);
      return false;
    case Op::mul: case Op::mulh: case Op::mulhsu: case Op::mulhu:
    case Op::div: case Op::divu: case Op::rem: case Op::remu:
      muldiv(op, d);
      return false;
    case Op::beq: case Op::bne: case Op::blt: case Op::bge: case Op::bltu: case Op::bgeu:
      branch(i, op);
      return false;
    case Op::jal:
      write_imm(d.rd, dc_.pc_of(&d) + 4);
      [[fallthrough]];
    case Op::j:
      taken_exit(i + static_cast<uint32_t>(d.imm / static_cast<int32_t>(sizeof(DecodedInsn))), n, snapshot());
      return true;
    case Op::jalr: {
      const Reg32 a = read(d.rs1);
      g_.mov(eax, a);
      g_.add(eax, static_cast<uint32_t>(d.imm));
      g_.and_(eax, ~1u);  // target - code_begin
      g_.mov(ecx, eax);
      g_.ror(ecx, 2);
      g_.cmp(ecx, g_.dword[rbx + offsetof(Context, code_words)]);
      g_.jae(fault_stub(i));
      write_imm(d.rd, dc_.pc_of(&d) + 4);
      g_.shr(eax, 2);
      // A dynamic target starts a block, so the second of a pair there issues alone: every
      // region is translated for entry at a block start.
      Label out;
      g_.sub(r14, n);
      g_.jle(out);
      g_.mov(rcx, reinterpret_cast<uintptr_t>(site_.entries));
      g_.mov(rcx, g_.qword[rcx + rax * 8]);
      g_.test(rcx, rcx);
      g_.jz(out);
      g_.jmp(rcx);
      g_.L(out);
      g_.mov(g_.dword[rbx + offsetof(Context, exit_index)], eax);
      g_.mov(g_.dword[rbx + offsetof(Context, exit_kind)], static_cast<uint32_t>(ExitKind::Taken));
      g_.jmp(site_.leave);
      return true;
    }
    case Op::lb: case Op::lh: case Op::lw: case Op::lbu: case Op::lhu: case Op::flw:
      load(i, op);
      return false;
    case Op::sb: case Op::sh: case Op::sw: case Op::fsw:
      store(i, op);
      return false;
    case Op::fsgnj: case Op::fsgnjn: case Op::fsgnjx: {
      const Reg32 a = read(d.rs1), b = read(d.rs2);
      g_.mov(ecx, b);
      if (op == Op::fsgnjn) g_.not_(ecx);
      g_.and_(ecx, 0x80000000u);
      g_.mov(eax, a);
      if (op != Op::fsgnjx) g_.and_(eax, 0x7fffffffu);
      if (op == Op::fsgnjx) g_.xor_(eax, ecx); else g_.or_(eax, ecx);
      write(d.rd, eax);
      return false;
    }
    case Op::fmv_x_w: case Op::fmv_w_x:
      g_.mov(eax, read(d.rs1));
      write(d.rd, eax);
      return false;
    case Op::rpt: {
      // Zero-overhead loop (docs/iss.md): the count is read once; 0 skips the body, any
      // other runs its copy. Both are taken transfers.
      const Reg32 count = read(d.rs1);
      g_.mov(guest_mem(kRptCountReg), count);
      Label& skip = new_label();
      g_.test(count, count);
      g_.jz(skip);
      taken_exit(i + static_cast<uint32_t>(d.imm / static_cast<int32_t>(sizeof(DecodedInsn))), n, snapshot());
      stubs_.push_back([this, &skip, after = i + 1 + d.rs2, n, now = snapshot()] {
        g_.L(skip);
        taken_exit(after, n, now);
      });
      return true;
    }
    case Op::rpt_end: {
      // No instruction (its block's count leaves it out): back to the copy's start while
      // the count lasts, then on after the original body.
      g_.sub(guest_mem(kRptCountReg), 1);
      Label& done = new_label();
      g_.jz(done);
      taken_exit(i - d.rs2, n - 1, snapshot());
      stubs_.push_back([this, &done, after = i + static_cast<uint32_t>(d.imm / static_cast<int32_t>(sizeof(DecodedInsn))),
                        n, now = snapshot()] {
        g_.L(done);
        taken_exit(after, n - 1, now);
      });
      return true;
    }
    case Op::csr: service(i, Service::csr); return false;
    case Op::fp_exact: service(i, Service::fp_exact); return false;
    case Op::fcvt_w_s: case Op::fcvt_wu_s: case Op::fcvt_s_w: case Op::fcvt_s_wu:
      service(i, Service::fp_convert);
      return false;
    default:
      if (is_amp(op)) service(i, Service::amp);
      else if (is_wide_memory(op)) service(i, Service::wide_memory);
      else if (is_vector_fp(op)) service(i, Service::vector_fp);
      else if (op >= Op::xdst && op <= Op::hswrite && op != Op::xwait) service(i, Service::exchange);
      else fp_arith(i, op);
      return false;
  }
}

}  // namespace

bool translatable(Op op) {
  switch (op) {
    case Op::nop: case Op::li:
    case Op::addi: case Op::slti: case Op::sltiu: case Op::xori: case Op::ori: case Op::andi:
    case Op::slli: case Op::srli: case Op::srai:
    case Op::add: case Op::sub: case Op::sll: case Op::slt: case Op::sltu: case Op::xor_:
    case Op::srl: case Op::sra: case Op::or_: case Op::and_:
    case Op::mul: case Op::mulh: case Op::mulhsu: case Op::mulhu:
    case Op::div: case Op::divu: case Op::rem: case Op::remu:
    case Op::beq: case Op::bne: case Op::blt: case Op::bge: case Op::bltu: case Op::bgeu:
    case Op::jal: case Op::j: case Op::jalr:
    case Op::lb: case Op::lh: case Op::lw: case Op::lbu: case Op::lhu: case Op::flw:
    case Op::sb: case Op::sh: case Op::sw: case Op::fsw:
    case Op::fsgnj: case Op::fsgnjn: case Op::fsgnjx: case Op::fmv_x_w: case Op::fmv_w_x:
    case Op::fadd: case Op::fsub: case Op::fmul: case Op::fdiv: case Op::fsqrt:
    case Op::fadd_dyn: case Op::fsub_dyn: case Op::fmul_dyn: case Op::fdiv_dyn: case Op::fsqrt_dyn:
    case Op::rpt: case Op::rpt_end:
    case Op::csr: case Op::fp_exact: case Op::fcvt_w_s: case Op::fcvt_wu_s: case Op::fcvt_s_w: case Op::fcvt_s_wu:
    case Op::xdst: case Op::xsend: case Op::xsrc: case Op::xrecv:
    case Op::smaddr: case Op::smread: case Op::smwrite: case Op::hsid: case Op::hsread: case Op::hswrite:
      return true;
    default:
      return is_amp(op) || is_wide_memory(op) || is_vector_fp(op) || (is_fused(op) && host_has_fma());
  }
}

const void* translate_region(Xbyak::CodeGenerator& g, const RegionSite& site, uint32_t start) {
  const DecodedCode& dc = site.code;
  const auto size = static_cast<uint32_t>(dc.insns.size());
  uint32_t end = start;
  bool transfers = false;
  while (end < size && end - start < kMaxRegion && translatable(dc.ops[end])) {
    transfers = ends_region(dc.ops[end++]);
    if (transfers) break;
  }
  // A region that falls through leaves its next instruction to a block that is not a
  // block start (the interpreter, or a region chained to), and the fast loop treats a
  // quantum's first entry as unpaired: never end just before the second of a pair, end
  // before its first instead.
  if (!transfers)
    while (end > start && end < size && dc.co_issued[end]) --end;
  if (end == start) return nullptr;
  return RegionEmitter(g, site, start, end).emit();
}

}  // namespace ipusim::iss::jit
