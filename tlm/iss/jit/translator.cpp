// One region of decoded instructions into x86-64 code (docs/iss.md "Translator").
//
// A region is straight-line code from one entry: it runs on through not-taken branches
// and ends after an unconditional transfer, before an instruction the interpreter runs,
// or at kMaxRegion instructions. The emitter (region_emitter.h) does the instructions;
// this file picks the region and dispatches each instruction to its family.
#include "iss/jit/translator.h"

#include <xbyak/xbyak_util.h>

#include "iss/jit/region_emitter.h"

namespace ipusim::iss::jit {

namespace {

constexpr uint32_t kMaxRegion = 128;

bool host_has_fma() {
  static const bool has = Xbyak::util::Cpu().has(Xbyak::util::Cpu::tFMA);
  return has;
}

bool ends_region(Op op) {
  return op == Op::j || op == Op::jal || op == Op::jalr || op == Op::rpt || op == Op::rpt_end;
}

}  // namespace

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
      write_back(snapshot());
      apply_pairs(pairs_);
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
      fp_convert(i, op);
      return false;
    case Op::feq: case Op::flt: case Op::fle:
      fp_compare(op, d);
      return false;
    case Op::fmin: case Op::fmax:
      fp_min_max(i, op);
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


bool translatable(Op op) {
  if (is_rv32im_alu(op) || is_branch(op) || is_load_store(op)) return true;
  switch (op) {
    case Op::jal: case Op::j: case Op::jalr:
    case Op::fsgnj: case Op::fsgnjn: case Op::fsgnjx: case Op::fmv_x_w: case Op::fmv_w_x:
    case Op::fmin: case Op::fmax: case Op::feq: case Op::flt: case Op::fle:
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

const void* translate_region(Xbyak::CodeGenerator& g, const RegionSite& site, uint32_t start, bool& hoisted) {
  const DecodedCode& dc = site.code;
  const auto size = static_cast<uint32_t>(dc.insns.size());
  uint32_t end = start;
  bool transfers = false;
  // A hooked tile's hooked entries (profiled calls and returns, stack checks) run in the
  // interpreter, which calls the hook.
  const bool hooks = !dc.hooks.empty();
  while (end < size && end - start < kMaxRegion && translatable(dc.ops[end]) && !(hooks && dc.hooks[end])) {
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
  RegionEmitter emitter(g, site, start, end);
  const void* entry = emitter.emit();
  hoisted = emitter.hoisted_loop();
  return entry;
}

}  // namespace ipusim::iss::jit
