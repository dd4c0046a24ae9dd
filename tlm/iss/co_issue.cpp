// The pairing rule of co-issue (docs/xipu.md "Timing"), on decoded instructions.
#include "iss/co_issue.h"

#include <bitset>

#include "iss/wide_access.h"

namespace ipusim::iss {
namespace {

// Register-file indexes (decoded.h) an instruction reads and writes. x0 (index 0, reads
// as zero) and the sink (writes to x0) carry no dependence; frm and fflags are left out:
// only CSR instructions, which never pair, write frm, and fflags is accrued (an OR), so
// two FP ops setting flags in one slot give the same flags in either order.
struct Regs {
  std::bitset<kRegCount> read, write;
  void r(unsigned i, unsigned n = 1) {
    for (unsigned k = 0; k < n; ++k) read.set(i + k);
  }
  void w(unsigned i, unsigned n = 1) {
    for (unsigned k = 0; k < n; ++k) write.set(i + k);
  }
  void clean() {
    read.reset(0);
    read.reset(kSinkReg);
    write.reset(0);
    write.reset(kSinkReg);
  }
};

bool fp_op_has_rs3(FpOp f) { return f == FpOp::madd || f == FpOp::msub || f == FpOp::nmsub || f == FpOp::nmadd; }

Regs regs_of(Op op, const DecodedInsn& d) {
  Regs g;
  switch (op) {
    case Op::li: case Op::jal: case Op::jal_far:
      g.w(d.rd);
      break;
    case Op::addi: case Op::slti: case Op::sltiu: case Op::xori: case Op::ori: case Op::andi:
    case Op::slli: case Op::srli: case Op::srai: case Op::jalr:
    case Op::lb: case Op::lh: case Op::lw: case Op::lbu: case Op::lhu: case Op::flw:
    case Op::fmv_x_w: case Op::fmv_w_x: case Op::fclass:
    case Op::fcvt_w_s: case Op::fcvt_wu_s: case Op::fcvt_s_w: case Op::fcvt_s_wu:
      g.w(d.rd);
      g.r(d.rs1);
      break;
    case Op::add: case Op::sub: case Op::sll: case Op::slt: case Op::sltu: case Op::xor_:
    case Op::srl: case Op::sra: case Op::or_: case Op::and_:
    case Op::mul: case Op::mulh: case Op::mulhsu: case Op::mulhu:
    case Op::div: case Op::divu: case Op::rem: case Op::remu:
    case Op::fsgnj: case Op::fsgnjn: case Op::fsgnjx: case Op::fmin: case Op::fmax:
    case Op::feq: case Op::flt: case Op::fle:
    case Op::fadd: case Op::fsub: case Op::fmul: case Op::fdiv:
    case Op::fadd_dyn: case Op::fsub_dyn: case Op::fmul_dyn: case Op::fdiv_dyn:
      g.w(d.rd);
      g.r(d.rs1);
      g.r(d.rs2);
      break;
    case Op::beq: case Op::bne: case Op::blt: case Op::bge: case Op::bltu: case Op::bgeu:
    case Op::branch_far:
    case Op::sb: case Op::sh: case Op::sw: case Op::fsw:
      g.r(d.rs1);
      g.r(d.rs2);
      break;
    case Op::fsqrt: case Op::fsqrt_dyn:
      g.w(d.rd);
      g.r(d.rs1);
      break;
    case Op::fmadd: case Op::fmsub: case Op::fnmsub: case Op::fnmadd:
    case Op::fmadd_dyn: case Op::fmsub_dyn: case Op::fnmsub_dyn: case Op::fnmadd_dyn:
      g.w(d.rd);
      g.r(d.rs1);
      g.r(d.rs2);
      g.r(d.rs3);
      break;
    case Op::fp_exact: {  // imm = FpOp << 8 | rm
      const auto f = static_cast<FpOp>(static_cast<uint32_t>(d.imm) >> 8);
      g.w(d.rd);
      g.r(d.rs1);
      if (f != FpOp::sqrt) g.r(d.rs2);
      if (fp_op_has_rs3(f)) g.r(d.rs3);
      break;
    }
    // Wide memory (wide_access.h): the f registers a pair / quad covers; a post-increment
    // writes its address register(s) (never x0: its address 0 faults).
    case Op::ld64: case Op::ld64_pi: case Op::ld128: case Op::ld128_pi:
    case Op::st64: case Op::st64_pi: case Op::st128: case Op::st128_pi:
    case Op::ld128st64_pi: case Op::ld64st64_pi: {
      const WideAccess a = wide_access(op, d, 0, 0);
      if (a.load_bytes) g.w(d.rd, a.load_bytes / 4u);
      if (a.store_bytes) g.r(a.store_reg, a.store_bytes / 4u);
      g.r(d.rs1);
      if (a.increments) g.w(d.rs1);
      if (a.load_bytes && a.store_bytes) {  // the store's address register
        g.r(d.rs2);
        g.w(d.rs2);
      }
      break;
    }
    case Op::f32v2_add: case Op::f32v2_sub: case Op::f32v2_mul:
    case Op::f16v4_add: case Op::f16v4_sub: case Op::f16v4_mul:
      g.w(d.rd, vector_dest_regs(op));
      g.r(d.rs1, 2);
      g.r(d.rs2, 2);
      break;
    case Op::f32v2_mac: case Op::f16v4_mac:
      g.w(d.rd, vector_dest_regs(op));
      g.r(d.rd, 2);
      g.r(d.rs1, 2);
      g.r(d.rs2, 2);
      break;
    case Op::f32v2_axpy: case Op::f16v4_axpy:
      g.w(d.rd, vector_dest_regs(op));
      g.r(d.rd, 2);
      g.r(d.rs1, 2);
      g.r(d.rs2);
      break;
    case Op::f32v2_tof16: g.w(d.rd, vector_dest_regs(op)); g.r(d.rs1, 2); break;
    case Op::f16v2_tof32: g.w(d.rd, vector_dest_regs(op)); g.r(d.rs1); break;
    case Op::f32v4_tof16: g.w(d.rd, vector_dest_regs(op)); g.r(d.rs1, 4); break;
    case Op::f16v4_tof32: g.w(d.rd, vector_dest_regs(op)); g.r(d.rs1, 2); break;
    default:  // j, nop: no registers; everything else never pairs
      break;
  }
  g.clean();
  return g;
}

}  // namespace

IssueClass issue_class(Op op) {
  if (is_scalar_fp(op) || is_vector_fp(op)) return IssueClass::fp;
  if (is_wide_memory(op)) return IssueClass::integer;
  if (is_rv32im_alu(op) || is_load_store(op)) return IssueClass::integer;
  if (is_branch(op) || op == Op::branch_far || op == Op::jal || op == Op::j || op == Op::jal_far || op == Op::jalr)
    return IssueClass::control;
  return IssueClass::none;
}

bool co_issues(Op a_op, const DecodedInsn& a, Op b_op, const DecodedInsn& b) {
  const IssueClass ca = issue_class(a_op), cb = issue_class(b_op);
  // (b) the first is no control transfer; (d) neither is an instruction that never pairs.
  if (ca == IssueClass::none || ca == IssueClass::control || cb == IssueClass::none) return false;
  // (a) one integer / memory (a control transfer is one), one floating-point.
  if ((ca == IssueClass::fp) == (cb == IssueClass::fp)) return false;
  // (c) no true dependence, no common destination.
  const Regs ra = regs_of(a_op, a), rb = regs_of(b_op, b);
  return (rb.read & ra.write).none() && (rb.write & ra.write).none();
}

std::vector<uint8_t> co_issue_seconds(const DecodedCode& dc) {
  // Left to right: the second of a pair is no first of another (a slot issues two at most).
  std::vector<uint8_t> second(dc.insns.size(), 0);
  for (size_t i = 1; i < dc.words; ++i)
    second[i] = !second[i - 1] && co_issues(dc.ops[i - 1], dc.insns[i - 1], dc.ops[i], dc.insns[i]) ? 1 : 0;
  return second;
}

}  // namespace ipusim::iss
