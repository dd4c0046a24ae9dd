// Bounds checks hoisted out of a loop (docs/iss.md "Translator", "Hoisted checks").
//
// A region that loops to its own top runs its body [top, back edge] over and over; a load
// or store there whose base register changes only by `addi base, base, c` steps by the
// same amount every iteration. The preheader (at the top, before the body) checks each
// such access for the coming iteration and works out how many iterations stay in range,
// and the body is emitted twice: a fast body with those accesses unchecked, which runs at
// most that many iterations, and the checked body as before. r14, the budget's room, then
// doubles as the iteration count: the preheader holds back the room the safe iterations do
// not cover (Context::loop_stop), so the back edge's `sub r14, n; jg` stops the fast body
// when either the budget or the safe iterations run out; everything that leaves the fast
// body, or reads the budget, adds the held-back part back first (restore_budget). With room
// left, the preheader runs again; when an access of the next iteration is out of range
// (it faults, or is a store the slow path takes), the checked body runs the loop from there
// on, so the fault comes from the same instruction with the same registers.
#include "iss/jit/region_emitter.h"

#include <bit>

namespace ipusim::iss::jit {

namespace {

// The ops whose only register write is rd (none for branches, stores and j), so the
// induction scan sees every write; a body with any other op is not hoisted.
bool writes_rd_only(Op op) {
  return is_rv32im_alu(op) || is_branch(op) || is_load_store(op) || is_scalar_fp(op) || is_fused(op) ||
         op == Op::j || op == Op::jal || op == Op::fp_exact || op == Op::csr;
}

bool writes_no_register(Op op) {
  return is_branch(op) || op == Op::j || op == Op::nop || is_scalar_store(op);
}

}  // namespace

void RegionEmitter::plan_hoisting(uint32_t edge) {
  // Each register's change per iteration; `inductive` while every write is an addi to itself.
  std::array<int64_t, kRegCount> step{};
  std::array<bool, kRegCount> inductive;
  inductive.fill(true);
  for (uint32_t i = start_; i <= edge; ++i) {
    const Op op = dc_.ops[i];
    const DecodedInsn& d = *at(i);
    if (!writes_rd_only(op)) return;
    if (writes_no_register(op)) continue;
    if (op == Op::addi && d.rs1 == d.rd) step[d.rd] += d.imm;
    else inductive[d.rd] = false;
  }
  // The accesses: each base's value at the access = its value at the top + delta (the
  // addis before it). The preheader's arithmetic is exact in 64 bits, and the fast body
  // adds the base register (zero-extended) to the host base, so the base must hold the
  // exact value, never a wrapped one: every in-range offset (0 .. last) minus imm must be
  // a 32-bit value, which bounds the base's values whatever the iteration.
  std::array<int64_t, kRegCount> delta{};
  std::vector<HoistedAccess> found;
  for (uint32_t i = start_; i <= edge; ++i) {
    const Op op = dc_.ops[i];
    const DecodedInsn& d = *at(i);
    if (op == Op::addi && d.rs1 == d.rd) delta[d.rd] += d.imm;
    if (!is_load_store(op) || !inductive[d.rs1]) continue;
    const unsigned lg = scalar_access_log2(op);
    const uint32_t limit = (is_scalar_store(op) ? site_.limits.store : site_.limits.load)[lg];
    const int64_t last = (static_cast<int64_t>(limit) - 1) << lg;
    const int64_t disp = delta[d.rs1] + d.imm;
    const int64_t s = step[d.rs1];
    const bool fits = limit > 0 && last < (int64_t{1} << 31) && d.imm <= 0 && last - d.imm < (int64_t{1} << 32) &&
                      disp >= INT32_MIN && disp <= INT32_MAX && s > INT32_MIN && s < INT32_MAX &&
                      s % (int64_t{1} << lg) == 0;
    if (fits) found.push_back({i, d.rs1, static_cast<int32_t>(disp), s, static_cast<uint32_t>(last), lg});
  }
  if (found.empty()) return;
  back_edge_ = edge;
  hoisted_ = std::move(found);
}

// At the top: rdx = the room the fast body may use, min(r14, iterations in range * the
// body's length); jumps to the checked body when one access of the coming iteration is out
// of range (or misaligned). Uses rax, rcx and rdx only: the cache is as at the top.
void RegionEmitter::emit_preheader() {
  const uint32_t body = back_edge_ - start_ + 1;  // what the back edge charges
  g_.mov(rdx, r14);
  for (const HoistedAccess& h : hoisted_) {
    const int s = find(h.base);
    if (s >= 0) {
      g_.lea(rax, g_.ptr[Xbyak::Reg64(slot_reg(s).getIdx()) + h.disp]);
    } else {
      g_.mov(eax, guest_mem(h.base));  // zero-extends
      g_.add(rax, h.disp);
    }
    g_.cmp(rax, h.last);  // unsigned: an offset below the range is a huge one
    g_.ja(checked_top_, Xbyak::CodeGenerator::T_NEAR);
    if (h.lg != 0) {
      g_.test(al, (1u << h.lg) - 1);
      g_.jnz(checked_top_, Xbyak::CodeGenerator::T_NEAR);
    }
    if (h.step == 0) continue;  // the same address every iteration
    // ecx = the bytes left in the stepping direction; iterations = ecx / |step| + 1.
    if (h.step > 0) {
      g_.mov(ecx, h.last);
      g_.sub(ecx, eax);
    } else {
      g_.mov(ecx, eax);
    }
    const auto stride = static_cast<uint64_t>(h.step > 0 ? h.step : -h.step);
    if (std::has_single_bit(stride)) {
      g_.shr(ecx, std::countr_zero(stride));
    } else {
      // ecx * floor(2^32 / stride) >> 32: at most one short of the quotient (then the
      // preheader runs again one iteration early), never over.
      g_.imul(rcx, rcx, static_cast<uint32_t>((uint64_t{1} << 32) / stride));
      g_.shr(rcx, 32);
    }
    g_.add(rcx, 1);
    g_.imul(rcx, rcx, body);
    g_.cmp(rcx, rdx);
    g_.cmovb(rdx, rcx);
  }
  // Hold back the room the safe iterations do not cover.
  g_.mov(rax, r14);
  g_.sub(rax, rdx);
  g_.mov(g_.qword[rbx + offsetof(Context, loop_stop)], rax);
  g_.mov(r14, rdx);
}

// The preheader, then the body [top, back edge] with the hoisted accesses unchecked;
// leaves the emitter as at the top, for the checked body.
void RegionEmitter::emit_fast_body(Label& after_back_edge) {
  emit_preheader();
  const CacheState top = cache_state();
  fast_ = true;
  g_.L(fast_top_);
  bool transferred = false;
  for (uint32_t i = start_; i <= back_edge_; ++i) transferred = step(i);
  if (!transferred) {  // the loop ended (its back edge not taken): on in the checked code
    fast_end_ = cache_state();
    restore_budget(true);
    g_.jmp(after_back_edge, Xbyak::CodeGenerator::T_NEAR);
  }
  fast_ = false;
  set_cache_state(top);
  g_.L(checked_top_);
}

}  // namespace ipusim::iss::jit
