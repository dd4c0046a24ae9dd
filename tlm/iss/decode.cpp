// Instruction decoder (see decode.h). Operands are pre-processed here so the run loop's
// handlers stay minimal: x0 destinations become the sink register, f registers are
// offset into the shared register file, memory immediates are biased by the base of the
// range their fast check tests, and static jump targets become offsets in the decoded array.
#include "iss/decode.h"

#include "iss/isa_table.h"
#include "iss/tile_core.h"

namespace ipusim::iss {
namespace {

uint8_t xd(uint32_t r) { return static_cast<uint8_t>(r == 0 ? kSinkReg : r); }
uint8_t xs(uint32_t r) { return static_cast<uint8_t>(r); }
uint8_t fr(uint32_t r) { return static_cast<uint8_t>(kFReg0 + r); }

Decoded make(Op op, uint8_t rd = 0, uint8_t rs1 = 0, uint8_t rs2 = 0, int32_t imm = 0,
             uint8_t rs3 = 0) {
  Decoded d;
  d.op = op;
  d.insn.imm = imm;
  d.insn.rd = rd;
  d.insn.rs1 = rs1;
  d.insn.rs2 = rs2;
  d.insn.rs3 = rs3;
  return d;
}

int32_t wrap(uint32_t v) { return static_cast<int32_t>(v); }

bool in_code(uint32_t target, const DecodeLayout& l) {
  return (target & 3) == 0 && target - l.code_begin < l.code_words * 4ull;
}

// Byte offset, in the decoded array, of the entry for `target` relative to the one for `pc`.
int32_t decoded_offset(uint32_t target, uint32_t pc) {
  return wrap(target - pc) * static_cast<int32_t>(sizeof(DecodedInsn) / 4);
}

Decoded decode_branch(uint32_t w, uint32_t pc, const DecodeLayout& l) {
  static constexpr Op kOps[8] = {Op::beq, Op::bne, Op::illegal, Op::illegal,
                                 Op::blt, Op::bge, Op::bltu,    Op::bgeu};
  const uint32_t f3 = rv::funct3(w);
  if (kOps[f3] == Op::illegal) return {};
  const uint32_t target = pc + static_cast<uint32_t>(rv::imm_b(w));
  if (!in_code(target, l))
    return make(Op::branch_far, 0, xs(rv::rs1(w)), xs(rv::rs2(w)), wrap(target),
                static_cast<uint8_t>(f3));
  return make(kOps[f3], 0, xs(rv::rs1(w)), xs(rv::rs2(w)), decoded_offset(target, pc));
}

Decoded decode_jal(uint32_t w, uint32_t pc, const DecodeLayout& l) {
  const uint32_t target = pc + static_cast<uint32_t>(rv::imm_j(w));
  if (!in_code(target, l)) return make(Op::jal_far, xd(rv::rd(w)), 0, 0, wrap(target));
  if (rv::rd(w) == 0) return make(Op::j, 0, 0, 0, decoded_offset(target, pc));
  return make(Op::jal, xd(rv::rd(w)), 0, 0, decoded_offset(target, pc));
}

Decoded decode_load(uint32_t w, bool fp) {
  const int32_t imm = wrap(static_cast<uint32_t>(rv::imm_i(w)) - kSramBase);
  if (fp) return rv::funct3(w) == 2 ? make(Op::flw, fr(rv::rd(w)), xs(rv::rs1(w)), 0, imm) : Decoded{};
  static constexpr Op kOps[8] = {Op::lb,  Op::lh,  Op::lw,      Op::illegal,
                                 Op::lbu, Op::lhu, Op::illegal, Op::illegal};
  const Op op = kOps[rv::funct3(w)];
  if (op == Op::illegal) return {};
  return make(op, xd(rv::rd(w)), xs(rv::rs1(w)), 0, imm);
}

Decoded decode_store(uint32_t w, bool fp, const DecodeLayout& l) {
  const int32_t imm = wrap(static_cast<uint32_t>(rv::imm_s(w)) - l.store_lo);
  if (fp) return rv::funct3(w) == 2 ? make(Op::fsw, 0, xs(rv::rs1(w)), fr(rv::rs2(w)), imm) : Decoded{};
  static constexpr Op kOps[8] = {Op::sb,      Op::sh,      Op::sw,      Op::illegal,
                                 Op::illegal, Op::illegal, Op::illegal, Op::illegal};
  const Op op = kOps[rv::funct3(w)];
  if (op == Op::illegal) return {};
  return make(op, 0, xs(rv::rs1(w)), xs(rv::rs2(w)), imm);
}

Decoded decode_op_imm(uint32_t w) {
  const uint8_t rd = xd(rv::rd(w)), rs1 = xs(rv::rs1(w));
  const int32_t imm = rv::imm_i(w);
  const int32_t shamt = static_cast<int32_t>(rv::rs2(w));
  switch (rv::funct3(w)) {
    case 0: return make(Op::addi, rd, rs1, 0, imm);
    case 2: return make(Op::slti, rd, rs1, 0, imm);
    case 3: return make(Op::sltiu, rd, rs1, 0, imm);
    case 4: return make(Op::xori, rd, rs1, 0, imm);
    case 6: return make(Op::ori, rd, rs1, 0, imm);
    case 7: return make(Op::andi, rd, rs1, 0, imm);
    case 1: return rv::funct7(w) == 0 ? make(Op::slli, rd, rs1, 0, shamt) : Decoded{};
    case 5:
      if (rv::funct7(w) == 0) return make(Op::srli, rd, rs1, 0, shamt);
      if (rv::funct7(w) == 0x20) return make(Op::srai, rd, rs1, 0, shamt);
      return {};
  }
  return {};
}

Decoded decode_op(uint32_t w) {
  static constexpr Op kBase[8] = {Op::add, Op::sll, Op::slt, Op::sltu,
                                  Op::xor_, Op::srl, Op::or_, Op::and_};
  static constexpr Op kMul[8] = {Op::mul, Op::mulh, Op::mulhsu, Op::mulhu,
                                 Op::div, Op::divu, Op::rem,    Op::remu};
  const uint32_t f3 = rv::funct3(w);
  Op op = Op::illegal;
  switch (rv::funct7(w)) {
    case 0x00: op = kBase[f3]; break;
    case 0x01: op = kMul[f3]; break;
    case 0x20: op = f3 == 0 ? Op::sub : f3 == 5 ? Op::sra : Op::illegal; break;
  }
  if (op == Op::illegal) return {};
  return make(op, xd(rv::rd(w)), xs(rv::rs1(w)), xs(rv::rs2(w)));
}

Decoded decode_system(uint32_t w) {
  const uint32_t f3 = rv::funct3(w);
  if (f3 == 0) {
    if (w == 0x00000073u) return make(Op::ecall);
    if (w == 0x00100073u) return make(Op::ebreak);
    return {};
  }
  if (f3 == 4) return {};
  return make(Op::csr, xd(rv::rd(w)), xs(rv::rs1(w)));
}

// fadd/fsub/fmul/fdiv/fsqrt and the fused ops: a native fast handler for static RNE, one
// that checks frm for dyn, and the exact (fpu::) handler for every other static mode.
Decoded decode_fp_arith(FpOp fop, Op rne, Op dyn, uint32_t w, bool three) {
  const uint32_t rm = rv::funct3(w);
  if (!rv::rm_valid(rm)) return {};
  const Op op = rm == 0 ? rne : rm == 7 ? dyn : Op::fp_exact;
  const int32_t imm = static_cast<int32_t>(static_cast<uint32_t>(fop) << 8 | rm);
  return make(op, fr(rv::rd(w)), fr(rv::rs1(w)), fr(rv::rs2(w)), imm,
              three ? fr(rv::rs3(w)) : uint8_t{0});
}

Decoded decode_fma(uint32_t w) {
  if ((rv::funct7(w) & 3) != 0) return {};  // fmt: only single precision
  switch (rv::opcode(w)) {
    case rv::kMadd: return decode_fp_arith(FpOp::madd, Op::fmadd, Op::fmadd_dyn, w, true);
    case rv::kMsub: return decode_fp_arith(FpOp::msub, Op::fmsub, Op::fmsub_dyn, w, true);
    case rv::kNmsub: return decode_fp_arith(FpOp::nmsub, Op::fnmsub, Op::fnmsub_dyn, w, true);
    case rv::kNmadd: return decode_fp_arith(FpOp::nmadd, Op::fnmadd, Op::fnmadd_dyn, w, true);
  }
  return {};
}

Decoded decode_op_fp(uint32_t w) {
  const uint32_t f3 = rv::funct3(w), rs2 = rv::rs2(w);
  const uint32_t rm = f3;
  switch (rv::funct7(w)) {
    case 0x00: return decode_fp_arith(FpOp::add, Op::fadd, Op::fadd_dyn, w, false);
    case 0x04: return decode_fp_arith(FpOp::sub, Op::fsub, Op::fsub_dyn, w, false);
    case 0x08: return decode_fp_arith(FpOp::mul, Op::fmul, Op::fmul_dyn, w, false);
    case 0x0c: return decode_fp_arith(FpOp::div, Op::fdiv, Op::fdiv_dyn, w, false);
    case 0x2c: return rs2 == 0 ? decode_fp_arith(FpOp::sqrt, Op::fsqrt, Op::fsqrt_dyn, w, false) : Decoded{};
    case 0x10: {
      static constexpr Op kOps[3] = {Op::fsgnj, Op::fsgnjn, Op::fsgnjx};
      if (f3 > 2) return {};
      return make(kOps[f3], fr(rv::rd(w)), fr(rv::rs1(w)), fr(rs2));
    }
    case 0x14:
      if (f3 > 1) return {};
      return make(f3 == 0 ? Op::fmin : Op::fmax, fr(rv::rd(w)), fr(rv::rs1(w)), fr(rs2));
    case 0x50: {
      static constexpr Op kOps[3] = {Op::fle, Op::flt, Op::feq};
      if (f3 > 2) return {};
      return make(kOps[f3], xd(rv::rd(w)), fr(rv::rs1(w)), fr(rs2));
    }
    case 0x60:
      if (rs2 > 1 || !rv::rm_valid(rm)) return {};
      return make(rs2 == 0 ? Op::fcvt_w_s : Op::fcvt_wu_s, xd(rv::rd(w)), fr(rv::rs1(w)), 0,
                  static_cast<int32_t>(rm));
    case 0x68:
      if (rs2 > 1 || !rv::rm_valid(rm)) return {};
      return make(rs2 == 0 ? Op::fcvt_s_w : Op::fcvt_s_wu, fr(rv::rd(w)), xs(rv::rs1(w)), 0,
                  static_cast<int32_t>(rm));
    case 0x70:
      if (rs2 != 0) return {};
      if (f3 == 0) return make(Op::fmv_x_w, xd(rv::rd(w)), fr(rv::rs1(w)));
      if (f3 == 1) return make(Op::fclass, xd(rv::rd(w)), fr(rv::rs1(w)));
      return {};
    case 0x78:
      if (rs2 != 0 || f3 != 0) return {};
      return make(Op::fmv_w_x, fr(rv::rd(w)), xs(rv::rs1(w)));
  }
  return {};
}

// Xipu (custom-0 and custom-1): the generated table (isa_table.h, from hw/isa/xipu.yaml)
// names the op and where its operands are; here they become register-file indexes like
// every other op's. An imm operand (the AMP's bank) is stored as its value, already
// checked against its limit by the lookup.
Decoded decode_xipu(uint32_t w) {
  const isa::XipuInsn* x = isa::find_xipu(w);
  if (!x) return {};
  Decoded d = make(x->op);
  for (unsigned i = 0; i < x->count; ++i) {
    const isa::Operand& o = x->operands[i];
    const uint32_t v = isa::operand_value(o, w);
    uint8_t& slot = o.field == isa::Field::rd    ? d.insn.rd
                    : o.field == isa::Field::rs1 ? d.insn.rs1
                    : o.field == isa::Field::rs2 ? d.insn.rs2
                                                 : d.insn.rs3;
    switch (o.kind) {
      case isa::Kind::xreg: slot = o.field == isa::Field::rd ? xd(v) : xs(v); break;
      case isa::Kind::freg:
      case isa::Kind::fpair:
      case isa::Kind::fquad: slot = fr(v); break;
      case isa::Kind::imm: slot = static_cast<uint8_t>(v); break;
    }
  }
  // amp.ldw / amp.mac read rs1 + imm on the loop's fast path: bias it by -SRAM_BASE like a load.
  if (x->op == Op::amp_ldw16 || x->op == Op::amp_ldw32 || x->op == Op::amp_mac16 || x->op == Op::amp_mac32)
    d.insn.imm = wrap(0u - kSramBase);
  return d;
}

}  // namespace

Decoded decode(uint32_t w, uint32_t pc, const DecodeLayout& l) {
  if ((w & 3) != 3) return {};  // compressed encodings: no C extension
  switch (rv::opcode(w)) {
    case rv::kLui: return make(Op::li, xd(rv::rd(w)), 0, 0, rv::imm_u(w));
    case rv::kAuipc: return make(Op::li, xd(rv::rd(w)), 0, 0, wrap(pc + rv::imm_u(w)));
    case rv::kJal: return decode_jal(w, pc, l);
    case rv::kJalr:
      if (rv::funct3(w) != 0) return {};
      return make(Op::jalr, xd(rv::rd(w)), xs(rv::rs1(w)), 0,
                  wrap(static_cast<uint32_t>(rv::imm_i(w)) - l.code_begin));
    case rv::kBranch: return decode_branch(w, pc, l);
    case rv::kLoad: return decode_load(w, false);
    case rv::kLoadFp: return decode_load(w, true);
    case rv::kStore: return decode_store(w, false, l);
    case rv::kStoreFp: return decode_store(w, true, l);
    case rv::kOpImm: return decode_op_imm(w);
    case rv::kOp: return decode_op(w);
    case rv::kMiscMem: return rv::funct3(w) == 0 ? make(Op::nop) : Decoded{};  // fence; no Zifencei
    case rv::kSystem: return decode_system(w);
    case rv::kMadd: case rv::kMsub: case rv::kNmsub: case rv::kNmadd: return decode_fma(w);
    case rv::kOpFp: return decode_op_fp(w);
  }
  return decode_xipu(w);  // the custom majors, or nothing
}

}  // namespace ipusim::iss
