// The run loop: threaded code over the decoded-instruction cache (see docs/iss.md).
//
// One function, two instantiations. Run<false> is the fast loop: every handler ends by
// jumping straight to the next entry's handler; instructions are not counted one by one
// but per straight-line block at each taken control transfer, which is also the only
// place the quantum budget is checked. Run<true> is the stepping loop: every dispatch
// goes through `step`, which checks the budget exactly, asks the tile whether the
// supervisor may issue (guard) and reports retired instructions (trace).
//
// Compiled with -ffp-contract=off -frounding-math -fno-fast-math: native float operations
// must be exactly one IEEE operation each, in round-to-nearest-even (the only mode the
// fast path uses), with the host's sticky flags collected by the tile.
#include "iss/interp.h"

#include <cmath>
#include <cstring>
#include <type_traits>

#include "iss/fpu.h"
#include "iss/core_state.h"

namespace ipusim::iss {
namespace {

inline uint32_t rotr(uint32_t v, unsigned s) { return (v >> s) | (v << (32 - s)); }
inline float as_float(uint32_t b) {
  float f;
  std::memcpy(&f, &b, 4);
  return f;
}
inline uint32_t as_bits(float f) {
  uint32_t b;
  std::memcpy(&b, &f, 4);
  return b;
}

}  // namespace

#define LIKELY(x) __builtin_expect(!!(x), 1)
#define UNLIKELY(x) __builtin_expect(!!(x), 0)

// noinline/noclone: the fast loop's label addresses are stored in the decoded cache, so
// the function must exist exactly once (a clone or an inlined copy has other labels).
template <bool Step>
__attribute__((noinline, noclone)) void run_loop(Quantum& q) {
#define IPUSIM_ISS_LABEL_ADDR(name) &&L_##name,
#define IPUSIM_ISS_PAIRED_ADDR(name) &&L_##name##_paired,
  // Each op's handler, then its variant for the second of a co-issued pair, then the one
  // handler of the seconds that a jump may enter (fast_loop_labels(), interp.h).
  static const void* const labels[] = {IPUSIM_ISS_OPS(IPUSIM_ISS_LABEL_ADDR) IPUSIM_ISS_OPS(IPUSIM_ISS_PAIRED_ADDR)
                                           && L_paired_jump_target, &&L_hook};
#undef IPUSIM_ISS_LABEL_ADDR
#undef IPUSIM_ISS_PAIRED_ADDR
  static_assert(sizeof(labels) / sizeof(labels[0]) == kFastLoopLabels);
  if (q.thread == nullptr) {  // fast_loop_labels() asks for the table
    q.ip = reinterpret_cast<const DecodedInsn*>(labels);
    return;
  }

  const MemView& M = *q.mem;
  uint32_t* const R = thread_regs(*q.thread);
  uint8_t* const lbase = M.load_base;
  uint8_t* const sbase = M.store_base;
  const uint32_t lim_b = M.load_limit[0], lim_h = M.load_limit[1], lim_w = M.load_limit[2];
  const uint32_t slim_b = M.store_limit[0], slim_h = M.store_limit[1], slim_w = M.store_limit[2];
  const DecodedInsn* const code = M.code;
  const uint32_t code_words = M.code_words;

  const DecodedInsn* ip = q.ip;
  // The first instruction of the current straight-line block. The fast loop only stores
  // it (at taken transfers) and reads it in L_paired_jump_target: volatile keeps it in
  // memory there, so the register goes to `key`, which every taken transfer reads.
  std::conditional_t<Step, const DecodedInsn*, const DecodedInsn* volatile> blk = ip;
  const uint64_t budget16 = q.budget * sizeof(DecodedInsn);
  // The retired count and the budget in one value: the address at which the budget runs
  // out if the current block goes on straight, blk + budget16 - 16 x the instructions of
  // the completed blocks (it may point past the array). A taken transfer checks the
  // budget and closes the block with one subtraction, and EXECUTED() needs no blk.
  uintptr_t key = reinterpret_cast<uintptr_t>(ip) + budget16;
  [[maybe_unused]] const DecodedInsn* prev = nullptr;  // stepping loop: last dispatched
  // Stepping loop: the fast loop's handler of a hooked entry (its entries keep their op; the
  // stepping loop dispatches by op, so it calls the hook itself).
  [[maybe_unused]] const void* const hook_handler = Step ? fast_loop_labels()[kHookLabel] : nullptr;
  [[maybe_unused]] uint64_t prev_n = 0;

#define EXECUTED() ((budget16 + reinterpret_cast<uintptr_t>(ip) - key) / sizeof(DecodedInsn))
#define EXIT(kind)              \
  do {                          \
    q.ip = ip;                  \
    q.executed = EXECUTED();    \
    q.exit = LoopExit::kind;    \
    return;                     \
  } while (0)
#define DISPATCH()                      \
  do {                                  \
    if constexpr (Step) goto step;      \
    else goto *ip->handler;             \
  } while (0)
#define NEXT()  \
  do {          \
    ++ip;       \
    DISPATCH(); \
  } while (0)
// A taken control transfer to `target`: close the block, check the budget (room_: the
// budget's bytes left after this block, signed), go on.
#define TAKE_THEN(target, dispatch)                                                               \
  do {                                                                                            \
    const uintptr_t room_ = key - reinterpret_cast<uintptr_t>(ip) - sizeof(DecodedInsn);          \
    ip = (target);                                                                                \
    blk = ip;                                                                                     \
    key = reinterpret_cast<uintptr_t>(ip) + room_;                                                \
    if constexpr (!Step)                                                                          \
      if (UNLIKELY(static_cast<intptr_t>(room_) <= 0)) EXIT(Budget);                              \
    dispatch;                                                                                     \
  } while (0)
#define TAKE(target) TAKE_THEN(target, DISPATCH())
// Fast loop: the plain handler of the entry at ip, for a block that starts on the second
// of a pair whose paired handler counts it co-issued unconditionally.
#define PLAIN_HANDLER() goto* labels[static_cast<unsigned>(M.ops[ip - code])]
// The same where a hooked entry may start the block (its handler is L_hook).
#define PLAIN_OR_HOOK_HANDLER()                \
  do {                                         \
    if (ip->handler == &&L_hook) goto L_hook;  \
    PLAIN_HANDLER();                           \
  } while (0)
#define REL_TARGET() \
  reinterpret_cast<const DecodedInsn*>(reinterpret_cast<const char*>(ip) + ip->imm)
#define PC() static_cast<uint32_t>((reinterpret_cast<uintptr_t>(ip) - M.pc_key) >> 2)
#define RD R[ip->rd]
#define RS1 R[ip->rs1]
#define RS2 R[ip->rs2]
#define IMM static_cast<uint32_t>(ip->imm)
#define FAULT()            \
  do {                     \
    loop_fault(q, ip);     \
    EXIT(Fault);           \
  } while (0)
// A native float result: NaNs become the canonical NaN, with the exact flags.
#define FP_RESULT(expr, fop)                                    \
  do {                                                          \
    const float r_ = (expr);                                    \
    uint32_t b_ = as_bits(r_);                                  \
    if (UNLIKELY(r_ != r_)) b_ = loop_fp_nan(q, ip, FpOp::fop); \
    RD = b_;                                                    \
    NEXT();                                                     \
  } while (0)
// A conversion's rounding mode: its static rm, or frm for dyn.
#define RM (IMM == fpu::DYN ? R[kFrmReg] : IMM)
#define FA as_float(RS1)
#define FB as_float(RS2)
#define FC as_float(R[ip->rs3])

  // The quantum's first entry starts a block: the second of a pair issues alone there.
  if constexpr (!Step)
    if (M.co_issued[ip - code]) {
      if (ip->handler == &&L_hook) goto L_hook;  // blk == ip: issues alone
      PLAIN_HANDLER();
    }
  DISPATCH();

step: __attribute__((unused));
  if constexpr (Step) {
    const uint64_t n = EXECUTED();
    if (q.trace && prev) loop_trace(q, prev, prev_n);
    prev = nullptr;
    // rpt_end is no instruction: it runs at once, so a quantum never ends on it and the
    // guard, probe and trace never see it.
    if (UNLIKELY(M.ops[ip - code] == Op::rpt_end)) goto L_rpt_end;
    if (M.co_issued[ip - code] && ip != blk) {
      // The second of a co-issued pair, entered from its first (ip != blk: fell through
      // in this quantum): it issues in its first's slot, so no budget, guard or probe
      // stands between them.
      --q.slot_adjust;
    } else {
      if (n >= q.budget || q.slots(n) >= q.slot_limit) EXIT(Budget);
      if (q.guard && !loop_may_issue(q, ip, n)) EXIT(Budget);
    }
    if (UNLIKELY(ip->handler == hook_handler) && !loop_hook(q, ip, n)) EXIT(Fault);
    prev = ip;
    prev_n = n;
    if (q.trace) q.trace_rs1 = R[ip->rs1];
    goto *labels[static_cast<unsigned>(M.ops[ip - code])];
  }
  __builtin_unreachable();

L_illegal:
L_rpt_illegal:
L_fetch_fault:
L_ecall:
L_ebreak:
L_branch_far_taken:
L_jal_far:
  FAULT();
L_nop: NEXT();
L_li: RD = IMM; NEXT();

L_addi: RD = RS1 + IMM; NEXT();
L_slti: RD = static_cast<int32_t>(RS1) < ip->imm; NEXT();
L_sltiu: RD = RS1 < IMM; NEXT();
L_xori: RD = RS1 ^ IMM; NEXT();
L_ori: RD = RS1 | IMM; NEXT();
L_andi: RD = RS1 & IMM; NEXT();
L_slli: RD = RS1 << IMM; NEXT();
L_srli: RD = RS1 >> IMM; NEXT();
L_srai: RD = static_cast<uint32_t>(static_cast<int32_t>(RS1) >> IMM); NEXT();

L_add: RD = RS1 + RS2; NEXT();
L_sub: RD = RS1 - RS2; NEXT();
L_sll: RD = RS1 << (RS2 & 31); NEXT();
L_slt: RD = static_cast<int32_t>(RS1) < static_cast<int32_t>(RS2); NEXT();
L_sltu: RD = RS1 < RS2; NEXT();
L_xor_: RD = RS1 ^ RS2; NEXT();
L_srl: RD = RS1 >> (RS2 & 31); NEXT();
L_sra: RD = static_cast<uint32_t>(static_cast<int32_t>(RS1) >> (RS2 & 31)); NEXT();
L_or_: RD = RS1 | RS2; NEXT();
L_and_: RD = RS1 & RS2; NEXT();

L_mul: RD = RS1 * RS2; NEXT();
L_mulh:
  RD = static_cast<uint32_t>((int64_t{static_cast<int32_t>(RS1)} * static_cast<int32_t>(RS2)) >> 32);
  NEXT();
L_mulhsu:
  RD = static_cast<uint32_t>((int64_t{static_cast<int32_t>(RS1)} * int64_t{RS2}) >> 32);
  NEXT();
L_mulhu: RD = static_cast<uint32_t>((uint64_t{RS1} * RS2) >> 32); NEXT();
L_div: {
  const int32_t a = static_cast<int32_t>(RS1), b = static_cast<int32_t>(RS2);
  RD = b == 0 ? ~0u : (a == INT32_MIN && b == -1) ? RS1 : static_cast<uint32_t>(a / b);
  NEXT();
}
L_divu: {
  const uint32_t a = RS1, b = RS2;
  RD = b == 0 ? ~0u : a / b;
  NEXT();
}
L_rem: {
  const int32_t a = static_cast<int32_t>(RS1), b = static_cast<int32_t>(RS2);
  RD = b == 0 ? RS1 : (a == INT32_MIN && b == -1) ? 0u : static_cast<uint32_t>(a % b);
  NEXT();
}
L_remu: {
  const uint32_t a = RS1, b = RS2;
  RD = b == 0 ? a : a % b;
  NEXT();
}

L_beq: if (RS1 == RS2) TAKE(REL_TARGET()); NEXT();
L_bne: if (RS1 != RS2) TAKE(REL_TARGET()); NEXT();
L_blt: if (static_cast<int32_t>(RS1) < static_cast<int32_t>(RS2)) TAKE(REL_TARGET()); NEXT();
L_bge: if (static_cast<int32_t>(RS1) >= static_cast<int32_t>(RS2)) TAKE(REL_TARGET()); NEXT();
L_bltu: if (RS1 < RS2) TAKE(REL_TARGET()); NEXT();
L_bgeu: if (RS1 >= RS2) TAKE(REL_TARGET()); NEXT();
L_branch_far: {
  const uint32_t a = RS1, b = RS2;
  bool taken = false;
  switch (ip->rs3) {
    case 0: taken = a == b; break;
    case 1: taken = a != b; break;
    case 4: taken = static_cast<int32_t>(a) < static_cast<int32_t>(b); break;
    case 5: taken = static_cast<int32_t>(a) >= static_cast<int32_t>(b); break;
    case 6: taken = a < b; break;
    case 7: taken = a >= b; break;
  }
  if (taken) goto L_branch_far_taken;
  NEXT();
}
L_jal: RD = PC() + 4; TAKE(REL_TARGET());
L_j: TAKE(REL_TARGET());
L_jalr: {
  const uint32_t off = (RS1 + IMM) & ~1u;  // target - code_begin
  if (UNLIKELY(rotr(off, 2) >= code_words)) FAULT();
  RD = PC() + 4;
  const auto* const target = reinterpret_cast<const DecodedInsn*>(reinterpret_cast<const char*>(code) + uintptr_t{off} * 4);
  // A target the loader could not see (program.cpp): the second of a pair issues alone.
  if constexpr (!Step)
    if (UNLIKELY(M.co_issued[off >> 2])) TAKE_THEN(target, PLAIN_OR_HOOK_HANDLER());
  TAKE(target);
}

L_lb: {
  const uint32_t off = RS1 + IMM;
  if (UNLIKELY(off >= lim_b)) FAULT();
  RD = static_cast<uint32_t>(static_cast<int8_t>(lbase[off]));
  NEXT();
}
L_lbu: {
  const uint32_t off = RS1 + IMM;
  if (UNLIKELY(off >= lim_b)) FAULT();
  RD = lbase[off];
  NEXT();
}
L_lh: {
  const uint32_t off = RS1 + IMM;
  if (UNLIKELY(rotr(off, 1) >= lim_h)) FAULT();
  int16_t v;
  std::memcpy(&v, lbase + off, 2);
  RD = static_cast<uint32_t>(v);
  NEXT();
}
L_lhu: {
  const uint32_t off = RS1 + IMM;
  if (UNLIKELY(rotr(off, 1) >= lim_h)) FAULT();
  uint16_t v;
  std::memcpy(&v, lbase + off, 2);
  RD = v;
  NEXT();
}
L_lw:
L_flw: {
  const uint32_t off = RS1 + IMM;
  if (UNLIKELY(rotr(off, 2) >= lim_w)) FAULT();
  uint32_t v;
  std::memcpy(&v, lbase + off, 4);
  RD = v;
  NEXT();
}
L_sb: {
  const uint32_t off = RS1 + IMM;
  if (UNLIKELY(off >= slim_b)) goto store_slow;
  sbase[off] = static_cast<uint8_t>(RS2);
  NEXT();
}
L_sh: {
  const uint32_t off = RS1 + IMM;
  if (UNLIKELY(rotr(off, 1) >= slim_h)) goto store_slow;
  const uint16_t v = static_cast<uint16_t>(RS2);
  std::memcpy(sbase + off, &v, 2);
  NEXT();
}
L_sw:
L_fsw: {
  const uint32_t off = RS1 + IMM;
  if (UNLIKELY(rotr(off, 2) >= slim_w)) goto store_slow;
  const uint32_t v = RS2;
  std::memcpy(sbase + off, &v, 4);
  NEXT();
}
store_slow:
  if (!loop_store_slow(q, ip)) EXIT(Fault);
  NEXT();

L_csr:
  if (!loop_csr(q, ip, EXECUTED())) EXIT(Fault);
  NEXT();

// F arithmetic. Static RNE: native floats. Dyn: native when frm is RNE, else exact.
L_fadd: FP_RESULT(FA + FB, add);
L_fsub: FP_RESULT(FA - FB, sub);
L_fmul: FP_RESULT(FA * FB, mul);
L_fdiv: FP_RESULT(FA / FB, div);
L_fsqrt: FP_RESULT(std::sqrt(FA), sqrt);
L_fmadd: FP_RESULT(std::fma(FA, FB, FC), madd);
L_fmsub: FP_RESULT(std::fma(FA, FB, -FC), msub);
L_fnmsub: FP_RESULT(std::fma(-FA, FB, FC), nmsub);
L_fnmadd: FP_RESULT(std::fma(-FA, FB, -FC), nmadd);
L_fadd_dyn: if (LIKELY(R[kFrmReg] == fpu::RNE)) goto L_fadd; goto L_fp_exact;
L_fsub_dyn: if (LIKELY(R[kFrmReg] == fpu::RNE)) goto L_fsub; goto L_fp_exact;
L_fmul_dyn: if (LIKELY(R[kFrmReg] == fpu::RNE)) goto L_fmul; goto L_fp_exact;
L_fdiv_dyn: if (LIKELY(R[kFrmReg] == fpu::RNE)) goto L_fdiv; goto L_fp_exact;
L_fsqrt_dyn: if (LIKELY(R[kFrmReg] == fpu::RNE)) goto L_fsqrt; goto L_fp_exact;
L_fmadd_dyn: if (LIKELY(R[kFrmReg] == fpu::RNE)) goto L_fmadd; goto L_fp_exact;
L_fmsub_dyn: if (LIKELY(R[kFrmReg] == fpu::RNE)) goto L_fmsub; goto L_fp_exact;
L_fnmsub_dyn: if (LIKELY(R[kFrmReg] == fpu::RNE)) goto L_fnmsub; goto L_fp_exact;
L_fnmadd_dyn: if (LIKELY(R[kFrmReg] == fpu::RNE)) goto L_fnmadd; goto L_fp_exact;
L_fp_exact:
  if (!loop_fp_exact(q, ip)) EXIT(Fault);
  NEXT();

L_fsgnj: RD = (RS1 & 0x7fffffffu) | (RS2 & 0x80000000u); NEXT();
L_fsgnjn: RD = (RS1 & 0x7fffffffu) | (~RS2 & 0x80000000u); NEXT();
L_fsgnjx: RD = RS1 ^ (RS2 & 0x80000000u); NEXT();
L_fmin: RD = fpu::min(RS1, RS2, R[kFflagsReg]); NEXT();
L_fmax: RD = fpu::max(RS1, RS2, R[kFflagsReg]); NEXT();
L_feq: RD = fpu::eq(RS1, RS2, R[kFflagsReg]); NEXT();
L_flt: RD = fpu::lt(RS1, RS2, R[kFflagsReg]); NEXT();
L_fle: RD = fpu::le(RS1, RS2, R[kFflagsReg]); NEXT();
L_fclass: RD = fpu::classify(RS1); NEXT();
L_fmv_x_w:
L_fmv_w_x: RD = RS1; NEXT();
// Conversions. The host's own conversion is exact where it rounds as RISC-V does and
// cannot raise NV: integer -> f32 in RNE (one IEEE rounding, inexact from the host), and
// f32 -> integer in RTZ (C's cast) for an operand whose exponent keeps it in range (so no
// NaN, no overflow; a truncated fraction sets the host's inexact). Everything else
// (other modes, NaN, out of range, -0 and negatives for wu) takes the exact path.
L_fcvt_s_w:
  if (LIKELY(RM == fpu::RNE)) {
    RD = as_bits(static_cast<float>(static_cast<int32_t>(RS1)));
    NEXT();
  }
  goto fp_convert;
L_fcvt_s_wu:
  if (LIKELY(RM == fpu::RNE)) {
    RD = as_bits(static_cast<float>(RS1));
    NEXT();
  }
  goto fp_convert;
L_fcvt_w_s:  // |x| < 2^31: biased exponent below 127 + 31
  if (LIKELY(RM == fpu::RTZ && ((RS1 >> 23) & 0xffu) < 158u)) {
    RD = static_cast<uint32_t>(static_cast<int32_t>(as_float(RS1)));
    NEXT();
  }
  goto fp_convert;
L_fcvt_wu_s:  // +0 <= x < 2^32: sign clear, biased exponent below 127 + 32
  if (LIKELY(RM == fpu::RTZ && (RS1 >> 23) < 159u)) {
    RD = static_cast<uint32_t>(static_cast<int64_t>(as_float(RS1)));
    NEXT();
  }
fp_convert:
  if (!loop_fp_convert(q, ip)) EXIT(Fault);
  NEXT();

// Thread instructions belong to the scheduler: leave with ip on them, not executed.
L_xrun:
L_xjoin:
L_xwexit:
L_xhalt:
L_xsync:
L_xwait:
  EXIT(Event);
L_cputc:
L_cwrite:
  if (!loop_console(q, ip)) EXIT(Fault);
  // A full console sink ends the quantum after this instruction (budget 0; the stepping
  // loop sees it at `step`, after tracing the instruction).
  if constexpr (!Step)
    if (UNLIKELY(q.budget == 0)) {
      ++ip;
      EXIT(Budget);
    }
  NEXT();
L_xdst:
L_xsend:
L_xsrc:
L_xrecv:
L_smaddr:
L_smread:
L_smwrite:
L_hsid:
L_hsread:
L_hswrite:
  if (!loop_exchange(q, ip, EXECUTED())) EXIT(Fault);
  NEXT();

// AMP: one call for every AMP instruction (amp.cpp has the fast paths of amp.ldw and
// amp.mac), through MemView::amp: loop_amp, or loop_amp_datapath for a tile whose
// amp.mac runs on an attached datapath (the co-simulated RTL). Inlining the vector code here, or even one call block per instruction, moved
// GCC's register allocation and alignment of the other handlers enough to cost integer
// code ~3-6% (measured on bench iss_speed matmul): the loop keeps one block per family.
L_amp_ldw16:
L_amp_ldw32:
L_amp_mac16:
L_amp_mac32:
L_amp_st:
L_amp_clr:
  if (!M.amp(q, ip)) EXIT(Fault);
  NEXT();

// Zero-overhead repeat (docs/iss.md): the count is read once, here; a count of 0 skips
// the body, any other runs the body's copy (imm), whose rpt_end entry loops back to the
// copy's start (rs2 = the body's size) until the count runs out, then goes on after the
// original body (imm). rpt_end is no instruction: its block's count leaves it out (the
// fast loop counts a block by pointer difference), and it takes no slot.
L_rpt: {
  const uint32_t n = RS1;
  R[kRptCountReg] = n;
  TAKE(n != 0 ? REL_TARGET() : ip + 1 + ip->rs2);
}
L_rpt_end:
  key += sizeof(DecodedInsn);  // its block's count leaves it out
  if (--R[kRptCountReg] != 0) TAKE(ip - ip->rs2);
  TAKE(REL_TARGET());

// Wide loads and stores, and the vector arithmetic: one out-of-line call per family, for
// the same reason as the AMP's (the other handlers' code stays as it was).
L_ld64:
L_ld128:
L_ld64_pi:
L_ld128_pi:
L_st64:
L_st128:
L_st64_pi:
L_st128_pi:
L_ld128st64_pi:
L_ld64st64_pi:
  if (!loop_wide_memory(q, ip)) EXIT(Fault);
  NEXT();
L_f32v2_add:
L_f32v2_sub:
L_f32v2_mul:
L_f32v2_mac:
L_f32v2_axpy:
L_f16v4_add:
L_f16v4_sub:
L_f16v4_mul:
L_f16v4_mac:
L_f16v4_axpy:
L_f32v2_tof16:
L_f16v2_tof32:
L_f32v4_tof16:
L_f16v4_tof32:
  if (!loop_vector_fp(q, ip)) EXIT(Fault);
  NEXT();

// The second of a co-issued pair (DecodedCode::co_issued; fast loop only) issues in its
// first's slot when entered by falling through from it, alone when a block starts on it
// (a jump target, the quantum's start). The loader gives the per-op variant to the seconds
// no branch, jal or rpt targets: they count one slot less, unconditionally (a quantum
// starting on one, and jalr, whose target only the run knows, dispatch the plain handler
// instead: see the loop's start and L_jalr). The seconds a static jump targets share
// L_paired_jump_target, which tests blk (fell through: blk < ip, the same as != as a block
// only runs forward) and dispatches by the op. q.slot_adjust is in memory (every
// out-of-line call may read it): one read-modify-write.
#define IPUSIM_ISS_PAIRED_HANDLER(name) \
  L_##name##_paired: __attribute__((unused));                \
  --q.slot_adjust;                                            \
  goto L_##name;
  IPUSIM_ISS_OPS(IPUSIM_ISS_PAIRED_HANDLER)
L_paired_jump_target: __attribute__((unused));
  q.slot_adjust -= (reinterpret_cast<uintptr_t>(blk) < reinterpret_cast<uintptr_t>(ip));
  PLAIN_HANDLER();
#undef IPUSIM_ISS_PAIRED_HANDLER
// A hooked entry (DecodedCode::hooks; never reached otherwise): a profiled call or return,
// which the profiler sees before it executes, or a stack check, which may fault before it
// executes. It may be the second of a co-issued pair, in whichever way it was entered, so
// it does the pairing test of L_paired_jump_target.
L_hook: __attribute__((unused));
  if (M.co_issued[ip - code])
    q.slot_adjust -= (reinterpret_cast<uintptr_t>(blk) < reinterpret_cast<uintptr_t>(ip));
  if (UNLIKELY(!loop_hook(q, ip, EXECUTED()))) EXIT(Fault);
  PLAIN_HANDLER();

#undef EXECUTED
#undef EXIT
#undef DISPATCH
#undef NEXT
#undef TAKE
#undef TAKE_THEN
#undef PLAIN_HANDLER
#undef PLAIN_OR_HOOK_HANDLER
#undef REL_TARGET
#undef PC
#undef RD
#undef RS1
#undef RS2
#undef IMM
#undef FAULT
#undef FP_RESULT
#undef RM
#undef FA
#undef FB
#undef FC
}

template void run_loop<false>(Quantum&);
template void run_loop<true>(Quantum&);

const void* const* fast_loop_labels() {
  static const void* const* const table = [] {
    Quantum q;
    run_loop<false>(q);
    return reinterpret_cast<const void* const*>(q.ip);
  }();
  return table;
}

}  // namespace ipusim::iss
