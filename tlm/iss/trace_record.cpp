// What a traced instruction changed (tile_core.h RetiredInsn), worked out from its decoded
// entry after it ran. Only the tracing paths call this: the fast loop knows nothing of it.
#include "iss/core_state.h"

namespace ipusim::iss {
namespace {

// The ops that write their rd (x0 is decoded to the sink register, not listed here).
bool writes_rd(Op op) {
  switch (op) {
    case Op::li: case Op::addi: case Op::slti: case Op::sltiu: case Op::xori: case Op::ori:
    case Op::andi: case Op::slli: case Op::srli: case Op::srai:
    case Op::add: case Op::sub: case Op::sll: case Op::slt: case Op::sltu: case Op::xor_:
    case Op::srl: case Op::sra: case Op::or_: case Op::and_:
    case Op::mul: case Op::mulh: case Op::mulhsu: case Op::mulhu: case Op::div: case Op::divu:
    case Op::rem: case Op::remu:
    case Op::jal: case Op::jalr:
    case Op::lb: case Op::lh: case Op::lw: case Op::lbu: case Op::lhu: case Op::flw:
    case Op::csr:
    case Op::fadd: case Op::fsub: case Op::fmul: case Op::fdiv: case Op::fsqrt:
    case Op::fmadd: case Op::fmsub: case Op::fnmsub: case Op::fnmadd:
    case Op::fadd_dyn: case Op::fsub_dyn: case Op::fmul_dyn: case Op::fdiv_dyn: case Op::fsqrt_dyn:
    case Op::fmadd_dyn: case Op::fmsub_dyn: case Op::fnmsub_dyn: case Op::fnmadd_dyn:
    case Op::fp_exact:
    case Op::fsgnj: case Op::fsgnjn: case Op::fsgnjx: case Op::fmin: case Op::fmax:
    case Op::feq: case Op::flt: case Op::fle: case Op::fclass:
    case Op::fmv_x_w: case Op::fmv_w_x:
    case Op::fcvt_w_s: case Op::fcvt_wu_s: case Op::fcvt_s_w: case Op::fcvt_s_wu:
    case Op::xrun: case Op::cwrite: case Op::amp_mac16: case Op::amp_mac32:
      return true;
    default:
      return false;
  }
}

// Bytes a load or store of RV32IF accesses; 0 for any other op.
unsigned mem_bytes(Op op) {
  switch (op) {
    case Op::lb: case Op::lbu: case Op::sb: return 1;
    case Op::lh: case Op::lhu: case Op::sh: return 2;
    case Op::lw: case Op::flw: case Op::sw: case Op::fsw: return 4;
    default: return 0;
  }
}

bool is_store(Op op) { return op == Op::sb || op == Op::sh || op == Op::sw || op == Op::fsw; }

}  // namespace

void CoreState::trace_retired(const Thread& t, const DecodedInsn* ip, uint64_t cycle, uint32_t rs1_before) {
  const uint32_t* R = t.hart.regs;
  const Op op = code().ops[code().index_of(ip)];
  RetiredInsn r;
  r.thread = t.id;
  r.cycle = cycle;
  r.pc = pc_of(ip);
  r.insn = word_at(ip);
  if (writes_rd(op) && ip->rd != kSinkReg) {
    r.dest = ip->rd < kSinkReg ? RetiredInsn::Dest::X : RetiredInsn::Dest::F;
    r.dest_reg = static_cast<uint8_t>(ip->rd < kSinkReg ? ip->rd : ip->rd - kFReg0);
    r.dest_value = R[ip->rd];
  }
  if (const unsigned size = mem_bytes(op)) {
    r.mem_size = static_cast<uint8_t>(size);
    r.mem_store = is_store(op);
    // The decoder biased the immediate by the base of the fast path's range (interp.cpp).
    r.mem_addr = rs1_before + static_cast<uint32_t>(ip->imm) + (r.mem_store ? code().store_lo : kSramBase);
    if (r.mem_store) r.mem_value = size == 4 ? R[ip->rs2] : R[ip->rs2] & ((1u << (8 * size)) - 1);
  }
  r.fcsr = R[kFrmReg] << 5 | R[kFflagsReg];
  trace_->retire(params_.id, *program_, r);
}

}  // namespace ipusim::iss
