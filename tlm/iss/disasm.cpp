// Disassembler (see disasm.h). Independent of the decoder so a message can show any word,
// but it accepts exactly the encodings the decoder accepts (the unit tests check both).
#include "iss/disasm.h"

#include "common/problem.h"

#include <fmt/format.h>

#include "iss/decode.h"
#include "iss/isa_table.h"

namespace ipusim::iss {
namespace {

const char* const kRmNames[8] = {"rne", "rtz", "rdn", "rup", "rmm", "rm5", "rm6", "dyn"};

std::string word(uint32_t w) { return fmt::format(".word 0x{:08x}", w); }
// The ABI names, from the one table (common/problem.h) that fault dumps use too.
const char* X(uint32_t r) { return x_abi_name(r); }
const char* F(uint32_t r) { return f_abi_name(r); }
// objdump appends the rounding mode only when it is not the default (dyn).
std::string rm_suffix(uint32_t rm) { return rm == 7 ? std::string() : fmt::format(", {}", kRmNames[rm]); }

std::string csr_text(uint32_t csr) {
  const char* name = csr_name(csr);
  return name ? std::string(name) : fmt::format("0x{:03x}", csr);
}

std::string dis_op_fp(uint32_t w) {
  const uint32_t f3 = rv::funct3(w), rs2 = rv::rs2(w), rd = rv::rd(w), rs1 = rv::rs1(w);
  auto arith = [&](const char* m) {
    return rv::rm_valid(f3) ? fmt::format("{} {}, {}, {}{}", m, F(rd), F(rs1), F(rs2), rm_suffix(f3)) : word(w);
  };
  switch (rv::funct7(w)) {
    case 0x00: return arith("fadd.s");
    case 0x04: return arith("fsub.s");
    case 0x08: return arith("fmul.s");
    case 0x0c: return arith("fdiv.s");
    case 0x2c:
      if (rs2 != 0 || !rv::rm_valid(f3)) return word(w);
      return fmt::format("fsqrt.s {}, {}{}", F(rd), F(rs1), rm_suffix(f3));
    case 0x10: {
      static const char* const m[3] = {"fsgnj.s", "fsgnjn.s", "fsgnjx.s"};
      if (f3 > 2) return word(w);
      return fmt::format("{} {}, {}, {}", m[f3], F(rd), F(rs1), F(rs2));
    }
    case 0x14:
      if (f3 > 1) return word(w);
      return fmt::format("{} {}, {}, {}", f3 ? "fmax.s" : "fmin.s", F(rd), F(rs1), F(rs2));
    case 0x50: {
      static const char* const m[3] = {"fle.s", "flt.s", "feq.s"};
      if (f3 > 2) return word(w);
      return fmt::format("{} {}, {}, {}", m[f3], X(rd), F(rs1), F(rs2));
    }
    case 0x60:
      if (rs2 > 1 || !rv::rm_valid(f3)) return word(w);
      return fmt::format("{} {}, {}{}", rs2 ? "fcvt.wu.s" : "fcvt.w.s", X(rd), F(rs1), rm_suffix(f3));
    case 0x68:
      if (rs2 > 1 || !rv::rm_valid(f3)) return word(w);
      return fmt::format("{} {}, {}{}", rs2 ? "fcvt.s.wu" : "fcvt.s.w", F(rd), X(rs1), rm_suffix(f3));
    case 0x70:
      if (rs2 != 0 || f3 > 1) return word(w);
      return fmt::format("{} {}, {}", f3 ? "fclass.s" : "fmv.x.w", X(rd), F(rs1));
    case 0x78:
      if (rs2 != 0 || f3 != 0) return word(w);
      return fmt::format("fmv.w.x {}, {}", F(rd), X(rs1));
  }
  return word(w);
}

// Xipu: from the same table as the decoder (isa_table.h), so both accept the same words.
// Operands in assembly order; an optional imm operand (the AMP's bank) is left out when 0.
std::string dis_xipu(uint32_t w) {
  const isa::XipuInsn* x = isa::find_xipu(w);
  if (!x) return word(w);
  std::string out = x->mnemonic;
  const char* sep = " ";
  for (unsigned i = 0; i < x->count; ++i) {
    const isa::Operand& o = x->operands[i];
    const uint32_t v = isa::operand_value(o, w);
    if (o.optional && v == 0) continue;
    out += sep;
    out += o.kind == isa::Kind::xreg ? X(v) : o.kind == isa::Kind::imm ? std::to_string(v) : F(v);
    sep = ", ";
  }
  return out;
}

}  // namespace

const char* xreg_name(unsigned r) { return r < 32 ? x_abi_name(r) : "?"; }
const char* freg_name(unsigned r) { return r < 32 ? f_abi_name(r) : "?"; }

const char* csr_name(uint32_t csr) {
  const isa::Csr* c = isa::find_csr(csr);
  return c ? c->name : nullptr;
}

std::string disassemble(uint32_t w, uint32_t pc) {
  if ((w & 3) != 3) return word(w);
  const uint32_t rd = rv::rd(w), rs1 = rv::rs1(w), rs2 = rv::rs2(w), f3 = rv::funct3(w);
  switch (rv::opcode(w)) {
    case rv::kLui: return fmt::format("lui {}, 0x{:x}", X(rd), w >> 12);
    case rv::kAuipc: return fmt::format("auipc {}, 0x{:x}", X(rd), w >> 12);
    case rv::kJal: return fmt::format("jal {}, 0x{:x}", X(rd), pc + static_cast<uint32_t>(rv::imm_j(w)));
    case rv::kJalr:
      if (f3 != 0) return word(w);
      return fmt::format("jalr {}, {}({})", X(rd), rv::imm_i(w), X(rs1));
    case rv::kBranch: {
      static const char* const m[8] = {"beq", nullptr, nullptr, nullptr, "blt", "bge", "bltu", "bgeu"};
      const char* mn = f3 == 1 ? "bne" : m[f3];
      if (!mn) return word(w);
      return fmt::format("{} {}, {}, 0x{:x}", mn, X(rs1), X(rs2), pc + static_cast<uint32_t>(rv::imm_b(w)));
    }
    case rv::kLoad: {
      static const char* const m[8] = {"lb", "lh", "lw", nullptr, "lbu", "lhu", nullptr, nullptr};
      if (!m[f3]) return word(w);
      return fmt::format("{} {}, {}({})", m[f3], X(rd), rv::imm_i(w), X(rs1));
    }
    case rv::kLoadFp:
      if (f3 != 2) return word(w);
      return fmt::format("flw {}, {}({})", F(rd), rv::imm_i(w), X(rs1));
    case rv::kStore: {
      static const char* const m[3] = {"sb", "sh", "sw"};
      if (f3 > 2) return word(w);
      return fmt::format("{} {}, {}({})", m[f3], X(rs2), rv::imm_s(w), X(rs1));
    }
    case rv::kStoreFp:
      if (f3 != 2) return word(w);
      return fmt::format("fsw {}, {}({})", F(rs2), rv::imm_s(w), X(rs1));
    case rv::kOpImm: {
      static const char* const m[8] = {"addi", "slli", "slti", "sltiu", "xori", "srli", "ori", "andi"};
      if (f3 == 1 || f3 == 5) {
        const uint32_t f7 = rv::funct7(w);
        if (f3 == 1 && f7 != 0) return word(w);
        if (f3 == 5 && f7 != 0 && f7 != 0x20) return word(w);
        return fmt::format("{} {}, {}, {}", f3 == 1 ? "slli" : f7 ? "srai" : "srli", X(rd), X(rs1), rs2);
      }
      return fmt::format("{} {}, {}, {}", m[f3], X(rd), X(rs1), rv::imm_i(w));
    }
    case rv::kOp: {
      static const char* const base[8] = {"add", "sll", "slt", "sltu", "xor", "srl", "or", "and"};
      static const char* const mul[8] = {"mul", "mulh", "mulhsu", "mulhu", "div", "divu", "rem", "remu"};
      const char* mn = nullptr;
      switch (rv::funct7(w)) {
        case 0x00: mn = base[f3]; break;
        case 0x01: mn = mul[f3]; break;
        case 0x20: mn = f3 == 0 ? "sub" : f3 == 5 ? "sra" : nullptr; break;
      }
      if (!mn) return word(w);
      return fmt::format("{} {}, {}, {}", mn, X(rd), X(rs1), X(rs2));
    }
    case rv::kMiscMem: return f3 == 0 ? std::string("fence") : word(w);
    case rv::kSystem: {
      if (f3 == 0) return w == 0x73 ? std::string("ecall") : w == 0x00100073 ? std::string("ebreak") : word(w);
      static const char* const m[8] = {nullptr, "csrrw", "csrrs", "csrrc", nullptr, "csrrwi", "csrrsi", "csrrci"};
      if (!m[f3]) return word(w);
      const std::string csr = csr_text(w >> 20);
      if (f3 >= 5) return fmt::format("{} {}, {}, {}", m[f3], X(rd), csr, rs1);
      return fmt::format("{} {}, {}, {}", m[f3], X(rd), csr, X(rs1));
    }
    case rv::kMadd: case rv::kMsub: case rv::kNmsub: case rv::kNmadd: {
      static const char* const m[4] = {"fmadd.s", "fmsub.s", "fnmsub.s", "fnmadd.s"};
      if ((rv::funct7(w) & 3) != 0 || !rv::rm_valid(f3)) return word(w);
      return fmt::format("{} {}, {}, {}, {}{}", m[(rv::opcode(w) >> 2) & 3], F(rd), F(rs1), F(rs2),
                         F(rv::rs3(w)), rm_suffix(f3));
    }
    case rv::kOpFp: return dis_op_fp(w);
  }
  return dis_xipu(w);  // the custom majors, or nothing
}

}  // namespace ipusim::iss
