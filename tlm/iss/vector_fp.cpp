// The paired-f32 / quad-f16 arithmetic and the f16/f32 vector conversions (docs/xipu.md
// "Vector arithmetic"): f32v2.add .. f16v4.tof32, called by the run loop for each one.
//
// Every lane is one exact IEEE operation rounded to nearest even (frm is ignored). The f32
// lanes run as native host float operations, as the loop's scalar fast path does (this
// file has the loop's FP compile flags: one IEEE operation each, the host in RNE, its
// sticky flags collected into fflags after the quantum); a NaN in either lane redoes the
// instruction through the exact FPU (fpu.h), which gives the canonical NaN and ORs in
// RISC-V's flags (the native attempt raised the same ones, or none). No AMP run can be
// in progress here (an AMP run is consecutive AMP instructions), so the host status an
// amp.mac saved is not disturbed. f16 lanes and the conversions are integer code
// (f16_math.h), their flags ORed into fflags directly.
//
// The decoder has checked the register alignment (pairs even, quads multiple of 4), so
// nothing here can fault. All operands are read before fd is written: fd may overlap a
// source (f32v4.tof16 f4, f4 reads the quad f4..f7 and writes the pair f4, f5).
#include <bit>
#include <cmath>

#include "iss/core_state.h"
#include "iss/f16_math.h"
#include "iss/fpu.h"
#include "iss/interp.h"

namespace ipusim::iss {

namespace {

inline uint16_t lo_half(uint32_t w) { return static_cast<uint16_t>(w); }
inline uint16_t hi_half(uint32_t w) { return static_cast<uint16_t>(w >> 16); }
inline uint32_t halves(uint16_t lo, uint16_t hi) { return uint32_t{hi} << 16 | lo; }

// Lane i of a quad-f16 pair at R[n]: the halves of R[n], then of R[n + 1].
inline uint16_t f16_lane(const uint32_t* R, unsigned n, unsigned i) {
  const uint32_t w = R[n + i / 2];
  return i % 2 == 0 ? lo_half(w) : hi_half(w);
}

enum class Arith { add, sub, mul, mac, axpy };

// Both lanes natively; false (nothing written) when either result is a NaN.
bool f32v2_native(uint32_t* R, const DecodedInsn* ip, Arith k) {
  float out[2];
  const float s = std::bit_cast<float>(R[ip->rs2]);  // axpy's scalar
  for (unsigned i = 0; i < 2; ++i) {
    const float a = std::bit_cast<float>(R[ip->rs1 + i]), acc = std::bit_cast<float>(R[ip->rd + i]);
    switch (k) {
      case Arith::add: out[i] = a + std::bit_cast<float>(R[ip->rs2 + i]); break;
      case Arith::sub: out[i] = a - std::bit_cast<float>(R[ip->rs2 + i]); break;
      case Arith::mul: out[i] = a * std::bit_cast<float>(R[ip->rs2 + i]); break;
      case Arith::mac: out[i] = std::fma(a, std::bit_cast<float>(R[ip->rs2 + i]), acc); break;
      case Arith::axpy: out[i] = std::fma(s, a, acc); break;
    }
  }
  if (out[0] != out[0] || out[1] != out[1]) return false;
  R[ip->rd] = std::bit_cast<uint32_t>(out[0]);
  R[ip->rd + 1] = std::bit_cast<uint32_t>(out[1]);
  return true;
}

// The exact path: fpu:: at RNE, flags into `flags`.
void f32v2(uint32_t* R, const DecodedInsn* ip, Arith k, uint32_t& flags) {
  uint32_t out[2] = {};
  for (unsigned i = 0; i < 2; ++i) {
    const uint32_t a = R[ip->rs1 + i], acc = R[ip->rd + i];
    switch (k) {
      case Arith::add: out[i] = fpu::add(a, R[ip->rs2 + i], fpu::RNE, flags); break;
      case Arith::sub: out[i] = fpu::sub(a, R[ip->rs2 + i], fpu::RNE, flags); break;
      case Arith::mul: out[i] = fpu::mul(a, R[ip->rs2 + i], fpu::RNE, flags); break;
      case Arith::mac: out[i] = fpu::madd(a, R[ip->rs2 + i], acc, fpu::RNE, flags); break;
      case Arith::axpy: out[i] = fpu::madd(R[ip->rs2], a, acc, fpu::RNE, flags); break;
    }
  }
  R[ip->rd] = out[0];
  R[ip->rd + 1] = out[1];
}

void f16v4(uint32_t* R, const DecodedInsn* ip, Arith k, uint32_t& flags) {
  uint16_t out[4] = {};
  const uint16_t s = lo_half(R[ip->rs2]);  // axpy's scalar
  for (unsigned i = 0; i < 4; ++i) {
    const uint16_t a = f16_lane(R, ip->rs1, i), acc = f16_lane(R, ip->rd, i);
    switch (k) {
      case Arith::add: out[i] = f16::add(a, f16_lane(R, ip->rs2, i), flags); break;
      case Arith::sub: out[i] = f16::sub(a, f16_lane(R, ip->rs2, i), flags); break;
      case Arith::mul: out[i] = f16::mul(a, f16_lane(R, ip->rs2, i), flags); break;
      case Arith::mac: out[i] = f16::fma(a, f16_lane(R, ip->rs2, i), acc, flags); break;
      case Arith::axpy: out[i] = f16::fma(s, a, acc, flags); break;
    }
  }
  R[ip->rd] = halves(out[0], out[1]);
  R[ip->rd + 1] = halves(out[2], out[3]);
}

// f32 lanes R[rs1 .. rs1 + 2*words - 1] to f16 lanes in R[rd .. rd + words - 1].
void to_f16(uint32_t* R, const DecodedInsn* ip, unsigned words, uint32_t& flags) {
  uint32_t out[2] = {};
  for (unsigned w = 0; w < words; ++w)
    out[w] = halves(f16::from_f32(R[ip->rs1 + 2 * w], flags), f16::from_f32(R[ip->rs1 + 2 * w + 1], flags));
  for (unsigned w = 0; w < words; ++w) R[ip->rd + w] = out[w];
}

// f16 lanes of R[rs1 .. rs1 + lanes/2 - 1] to f32 lanes in R[rd .. rd + lanes - 1].
void to_f32(uint32_t* R, const DecodedInsn* ip, unsigned lanes, uint32_t& flags) {
  uint32_t out[4];
  for (unsigned i = 0; i < lanes; ++i) out[i] = f16::to_f32(f16_lane(R, ip->rs1, i), flags);
  for (unsigned i = 0; i < lanes; ++i) R[ip->rd + i] = out[i];
}

}  // namespace

bool loop_vector_fp(Quantum& q, const DecodedInsn* ip) {
  uint32_t* R = q.thread->hart.regs;
  const Op op = q.mem->ops[ip - q.mem->code];
  uint32_t flags = 0;
  switch (op) {
    case Op::f32v2_add: if (!f32v2_native(R, ip, Arith::add)) f32v2(R, ip, Arith::add, flags); break;
    case Op::f32v2_sub: if (!f32v2_native(R, ip, Arith::sub)) f32v2(R, ip, Arith::sub, flags); break;
    case Op::f32v2_mul: if (!f32v2_native(R, ip, Arith::mul)) f32v2(R, ip, Arith::mul, flags); break;
    case Op::f32v2_mac: if (!f32v2_native(R, ip, Arith::mac)) f32v2(R, ip, Arith::mac, flags); break;
    case Op::f32v2_axpy: if (!f32v2_native(R, ip, Arith::axpy)) f32v2(R, ip, Arith::axpy, flags); break;
    case Op::f16v4_add: f16v4(R, ip, Arith::add, flags); break;
    case Op::f16v4_sub: f16v4(R, ip, Arith::sub, flags); break;
    case Op::f16v4_mul: f16v4(R, ip, Arith::mul, flags); break;
    case Op::f16v4_mac: f16v4(R, ip, Arith::mac, flags); break;
    case Op::f16v4_axpy: f16v4(R, ip, Arith::axpy, flags); break;
    case Op::f32v2_tof16: to_f16(R, ip, 1, flags); break;
    case Op::f16v2_tof32: to_f32(R, ip, 2, flags); break;
    case Op::f32v4_tof16: to_f16(R, ip, 2, flags); break;
    case Op::f16v4_tof32: to_f32(R, ip, 4, flags); break;
    default:  // the loop calls this for the vector ops only
      loop_fault(q, ip);
      return false;
  }
  R[kFflagsReg] |= flags;
  return true;
}

}  // namespace ipusim::iss
