// The single-precision arithmetic of a region: the interpreter's fast path, natively.
#include "iss/jit/region_emitter.h"

namespace ipusim::iss::jit {

namespace {

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

}  // namespace

void RegionEmitter::fp_arith(uint32_t i, Op op) {
  const DecodedInsn& d = *at(i);
  const bool dyn = op >= Op::fadd_dyn && op <= Op::fnmadd_dyn;
  const FpOp fop = fp_op_of(op);
  Label& result = new_label();  // eax holds rd's new value (the exact path: already stored)
  Label& nan = new_label();
  Label* exact = nullptr;
  // The operands first, then a dyn op's frm check: one cache state where both out-of-line
  // paths start and where they rejoin.
  read(d.rs1);
  if (fop != FpOp::sqrt) read(d.rs2);
  if (is_fused(op)) read(d.rs3);
  if (dyn) {
    exact = &new_label();
    g_.cmp(g_.dword[rbp + 4 * kFrmReg], 0);
    g_.jne(*exact);
  }
  fp_operand(xmm0, d.rs1);
  if (fop != FpOp::sqrt) fp_operand(xmm1, d.rs2);
  if (is_fused(op)) fp_operand(xmm2, d.rs3);
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
  const Snapshot snap = snapshot();  // the cache where the out-of-line paths start and rejoin
  write(d.rd, eax);
  set_mirror(d.rd, xmm0);  // xmm0 = eax on every path into `result`
  stubs_.push_back([this, &nan, &result, i, fop, snap] {
    g_.L(nan);
    g_.mov(edx, static_cast<uint32_t>(fop));  // loop_fp_nan's third argument (kept by the write-back)
    stub_call(i, reinterpret_cast<const void*>(&loop_fp_nan), snap, false);
    g_.movd(xmm0, eax);
    g_.jmp(result);
  });
  if (exact) {
    stubs_.push_back([this, exact, &result, i, rd = d.rd, snap] {
      g_.L(*exact);
      stub_call(i, reinterpret_cast<const void*>(&loop_fp_exact), snap, true);
      g_.mov(eax, guest_mem(rd));
      g_.movd(xmm0, eax);
      g_.jmp(result);
    });
  }
}

}  // namespace ipusim::iss::jit
