// The decoded-instruction cache shared by every tile that runs one Program (ISS-internal).
//
// Every 4-byte word of the executable range is decoded once, at load, into a 16-byte
// DecodedInsn. The interpreter keeps its "pc" as a pointer into this array and jumps to
// `handler` (a label address of the fast run loop: threaded code). The stepping loop
// (tracing, thread_quantum 1) dispatches through `ops` instead, since its labels differ.
// Operands are pre-processed so handlers do as little as possible; see docs/iss.md.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

namespace ipusim::iss {

// Every handler of the run loop. The decoder picks one per word; `illegal` and
// `fetch_fault` entries fault only if executed.
#define IPUSIM_ISS_OPS(X)                                                                   \
  X(illegal) X(fetch_fault) X(nop) X(li)                                                    \
  X(addi) X(slti) X(sltiu) X(xori) X(ori) X(andi) X(slli) X(srli) X(srai)                   \
  X(add) X(sub) X(sll) X(slt) X(sltu) X(xor_) X(srl) X(sra) X(or_) X(and_)                  \
  X(mul) X(mulh) X(mulhsu) X(mulhu) X(div) X(divu) X(rem) X(remu)                           \
  X(beq) X(bne) X(blt) X(bge) X(bltu) X(bgeu) X(branch_far)                                 \
  X(jal) X(j) X(jal_far) X(jalr)                                                            \
  X(lb) X(lh) X(lw) X(lbu) X(lhu) X(sb) X(sh) X(sw) X(flw) X(fsw)                           \
  X(ecall) X(ebreak) X(csr)                                                                 \
  X(fadd) X(fsub) X(fmul) X(fdiv) X(fsqrt) X(fmadd) X(fmsub) X(fnmsub) X(fnmadd)            \
  X(fadd_dyn) X(fsub_dyn) X(fmul_dyn) X(fdiv_dyn) X(fsqrt_dyn)                              \
  X(fmadd_dyn) X(fmsub_dyn) X(fnmsub_dyn) X(fnmadd_dyn)                                     \
  X(fp_exact)                                                                               \
  X(fsgnj) X(fsgnjn) X(fsgnjx) X(fmin) X(fmax) X(feq) X(flt) X(fle) X(fclass)               \
  X(fmv_x_w) X(fmv_w_x) X(fcvt_w_s) X(fcvt_wu_s) X(fcvt_s_w) X(fcvt_s_wu)                   \
  X(xrun) X(xjoin) X(xwexit) X(xhalt) X(xsync) X(cputc) X(cwrite)                          \
  X(xdst) X(xsend) X(xsrc) X(xrecv) X(xwait)                                                \
  X(smaddr) X(smread) X(smwrite) X(hsid) X(hsread) X(hswrite)                               \
  X(amp_ldw16) X(amp_ldw32) X(amp_mac16) X(amp_mac32) X(amp_st) X(amp_clr)               \
  X(rpt) X(rpt_end) X(rpt_illegal)                                                          \
  X(ld64) X(ld128) X(ld64_pi) X(ld128_pi) X(st64) X(st128) X(st64_pi) X(st128_pi)           \
  X(ld128st64_pi) X(ld64st64_pi)                                                            \
  X(f32v2_add) X(f32v2_sub) X(f32v2_mul) X(f32v2_mac) X(f32v2_axpy)                         \
  X(f16v4_add) X(f16v4_sub) X(f16v4_mul) X(f16v4_mac) X(f16v4_axpy)                         \
  X(f32v2_tof16) X(f16v2_tof32) X(f32v4_tof16) X(f16v4_tof32)

// What a profiled tile's call and return instructions are to the profiler (iss/profile_sink.h):
// the low bits of a hooked entry (DecodedCode::hooks).
enum class ProfileHook : uint8_t {
  none,
  call,      // jal / jalr with rd = ra
  ret,       // jalr x0, 0(ra)
  jump,      // jalr x0 through another register: a tail call when it lands on a function's entry
  tail_call, // j to another function's entry (a sibling call)
};
inline constexpr uint8_t kProfileHookMask = 0x07;
// A stack-watched tile's entries that may run just after sp was written (the entry after
// every instruction that may write x2): the thread's sp is checked against its stack there,
// before the entry executes (docs/memory_report.md).
inline constexpr uint8_t kStackHook = 0x08;

enum class Op : uint16_t {
#define IPUSIM_ISS_OP_ENUM(name) name,
  IPUSIM_ISS_OPS(IPUSIM_ISS_OP_ENUM)
#undef IPUSIM_ISS_OP_ENUM
      count
};
inline constexpr unsigned kOpCount = static_cast<unsigned>(Op::count);

// Register file layout of a thread (indexes into Hart::regs). Writes to x0 are decoded
// to kSinkReg so no handler tests rd == 0; f registers follow, then frm and fflags so a
// handler reaches them from the same base pointer.
inline constexpr unsigned kSinkReg = 32;
inline constexpr unsigned kFReg0 = 33;
inline constexpr unsigned kFrmReg = 65;
inline constexpr unsigned kFflagsReg = 66;
// The remaining iterations of the thread's current rpt (rpt_copies.cpp; docs/iss.md): in
// the register file's padding, so the loop reaches it from the same base pointer.
inline constexpr unsigned kRptCountReg = 67;
inline constexpr unsigned kRegCount = 68;

// The arithmetic of fp_exact (imm = sub-op << 8 | rounding mode) and of the dyn variants.
enum class FpOp : uint8_t { add, sub, mul, div, sqrt, madd, msub, nmsub, nmadd };

struct DecodedInsn {
  const void* handler;  // label of the fast run loop for this op
  // li: the value; ALU-imm: the immediate; loads: imm - SRAM_BASE; stores: imm - store
  // range start; jalr: imm - code_begin; branches / jal / j: the target's byte offset
  // within the decoded array; *_far: the target pc; FP: rm | FpOp << 8; AMP ldw / mac:
  // -SRAM_BASE (the fast path's offset bias).
  int32_t imm;
  uint8_t rd, rs1, rs2, rs3;  // register-file indexes (see above); branch_far: rs3 = funct3;
                              // AMP: rs3 = 1 if the next word is an AMP instruction too;
                              // rpt: rs2 = the body's size, imm = the byte offset of its copy;
                              // rpt_end: rs2 = the body's size, imm = the byte offset of the
                              // instruction after the original body
};
static_assert(sizeof(DecodedInsn) == 16, "the interpreter relies on 16-byte entries");

inline bool is_amp(Op op) { return op >= Op::amp_ldw16 && op <= Op::amp_clr; }
// RV32IM's computational ops: nop, li, the ALU ops (immediate and register) and the M
// extension, contiguous in IPUSIM_ISS_OPS from nop to remu.
inline bool is_rv32im_alu(Op op) { return op >= Op::nop && op <= Op::remu; }
// The six conditional branches (not branch_far), contiguous from beq to bgeu.
inline bool is_branch(Op op) { return op >= Op::beq && op <= Op::bgeu; }
// The scalar loads and stores, flw / fsw included, contiguous from lb to fsw.
inline bool is_load_store(Op op) { return op >= Op::lb && op <= Op::fsw; }
static_assert(static_cast<unsigned>(Op::remu) - static_cast<unsigned>(Op::nop) == 28 &&
                  static_cast<unsigned>(Op::bgeu) - static_cast<unsigned>(Op::beq) == 5 &&
                  static_cast<unsigned>(Op::fsw) - static_cast<unsigned>(Op::lb) == 9,
              "the ranges above: 2 + 9 + 10 + 8 ALU ops, 6 branches, 5 loads + 3 stores + flw / fsw");
inline bool is_scalar_store(Op op) { return op == Op::sb || op == Op::sh || op == Op::sw || op == Op::fsw; }
// A scalar load's or store's size (is_load_store): log2 of its bytes, and its bytes.
inline unsigned scalar_access_log2(Op op) {
  switch (op) {
    case Op::lb: case Op::lbu: case Op::sb: return 0;
    case Op::lh: case Op::lhu: case Op::sh: return 1;
    default: return 2;  // lw, flw, sw, fsw
  }
}
inline unsigned scalar_access_size(Op op) { return 1u << scalar_access_log2(op); }
// The F extension's computational ops (fadd.s .. fcvt.s.wu; not flw / fsw): every one
// writes its rd.
inline bool is_scalar_fp(Op op) { return op >= Op::fadd && op <= Op::fcvt_s_wu; }
// The wide loads and stores (custom-2, funct3 0..2) and the vector arithmetic (3..5).
inline bool is_wide_memory(Op op) { return op >= Op::ld64 && op <= Op::ld64st64_pi; }
inline bool is_vector_fp(Op op) { return op >= Op::f32v2_add && op <= Op::f16v4_tof32; }
// The f registers a vector op writes from its rd: a pair, except f32v2.tof16 (one word of
// two halves) and f16v4.tof32 (a quad).
inline unsigned vector_dest_regs(Op op) {
  return op == Op::f32v2_tof16 ? 1u : op == Op::f16v4_tof32 ? 4u : 2u;
}

// The decoded array: one entry per word of [begin, begin + 4 * words), the fetch-fault
// sentinel, then, for every valid rpt, a copy of its body followed by an rpt_end entry
// (rpt_copies.cpp, docs/iss.md "Zero-overhead loops"). A copy stands for its original word:
// index_of() and pc_of() give the original's, so faults, traces, the debugger and every
// lookup by index see the body's own pcs.
struct DecodedCode {
  uint32_t begin = 0;       // pc of insns[0]
  uint32_t words = 0;       // decoded words; insns[words] is a fetch-fault sentinel
  uint32_t store_lo = 0;    // stores below this go to the slow path (code is read-only)
  std::vector<DecodedInsn> insns;  // words + 1 entries, then the rpt bodies' copies
  std::vector<Op> ops;             // the op of each entry (stepping loop, tools)
  std::vector<uint32_t> raw;       // the instruction word of each entry (0 for the sentinel)
  // For entry words + 1 + k (a copy): the index of the word it copies; for an rpt_end
  // entry, the index of the instruction after the original body.
  std::vector<uint32_t> origin;
  // Co-issue (docs/xipu.md "Timing"; co_issue.h): 1 where the entry is the second of a
  // pair with the entry before it (all 0 when the tile's co_issue is off). Such an entry's
  // handler is the fast loop's paired variant of its op (fast_loop_labels()[kOpCount + op]),
  // or its jump-target handler ([2 x kOpCount]) where a branch, jal or rpt may enter it.
  // An rpt body's copy keeps its original's value (rpt_copies.cpp); rpt_end's is 0.
  std::vector<uint8_t> co_issued;
  // A hooked copy only (Program::hooked, profile_hooks.cpp: a profiled or stack-watched
  // tile's): per entry, what the profiler sees there (ProfileHook, kProfileHookMask) and
  // whether the stack watch checks sp there (kStackHook); a non-zero entry has the fast
  // loop's hook handler (fast_loop_labels()[kHookLabel]) and the translator leaves it to
  // the interpreter. Empty in the shared caches, which no hook touches.
  std::vector<uint8_t> hooks;
  // The translator's code for this cache (tlm/iss/jit, jit::CodeCaches), made by the first
  // tile that runs it with TileParams::Core::jit and shared by every other with the same
  // memory limits (one in a system: its tiles have one SRAM size).
  mutable std::mutex jit_mutex;
  mutable std::vector<std::shared_ptr<void>> jit_caches;

  // The index of the code word `ip` stands for (its own index for an original word).
  uint32_t index_of(const DecodedInsn* ip) const {
    const auto i = static_cast<uint32_t>(ip - insns.data());
    return i <= words ? i : origin[i - words - 1];
  }
  uint32_t pc_of(const DecodedInsn* ip) const { return begin + index_of(ip) * 4u; }
};

}  // namespace ipusim::iss
