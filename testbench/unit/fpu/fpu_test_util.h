// Shared helpers of the FPU unit tests: bit-pattern constants, readable flag and value
// printing, and the table that names every fpu.h operation so tests can loop over them.
#pragma once

#include <bit>
#include <cstdio>
#include <cstdint>
#include <string>

#include "iss/fpu.h"

namespace ipusim::iss::fpu::test {

inline constexpr uint32_t kPosZero = 0x0000'0000u, kNegZero = 0x8000'0000u;
inline constexpr uint32_t kPosInf = 0x7f80'0000u, kNegInf = 0xff80'0000u;
inline constexpr uint32_t kQNan = 0x7fc0'0000u, kSNan = 0x7f80'0001u;
inline constexpr uint32_t kNegQNanPayload = 0xffc1'2345u, kSNanPayload = 0x7fa0'0042u;
inline constexpr uint32_t kMinSub = 0x0000'0001u, kMaxSub = 0x007f'ffffu;
inline constexpr uint32_t kMinNormal = 0x0080'0000u, kMaxFinite = 0x7f7f'ffffu;
inline constexpr uint32_t kOne = 0x3f80'0000u, kTwo = 0x4000'0000u;

inline uint32_t bits(float f) { return std::bit_cast<uint32_t>(f); }
inline float value(uint32_t b) { return std::bit_cast<float>(b); }
inline uint32_t neg(uint32_t b) { return b ^ 0x8000'0000u; }
inline bool is_nan_bits(uint32_t b) { return (b & 0x7fff'ffffu) > 0x7f80'0000u; }

inline std::string flag_names(uint32_t flags) {
  std::string s;
  const char* names[] = {"NX", "UF", "OF", "DZ", "NV"};
  for (int i = 4; i >= 0; --i)
    if (flags & (1u << i)) s += std::string(s.empty() ? "" : "|") + names[i];
  return s.empty() ? "none" : s;
}

inline std::string hex(uint32_t v) {
  char buf[16];
  snprintf(buf, sizeof buf, "0x%08x", v);
  return buf;
}

inline const char* mode_name(uint32_t rm) {
  static const char* names[] = {"RNE", "RTZ", "RDN", "RUP", "RMM"};
  return rm < 5 ? names[rm] : "rm?";
}

inline constexpr uint32_t kModes[] = {RNE, RTZ, RDN, RUP, RMM};

// Every fpu.h operation behind one signature, so data-driven tests can dispatch by name.
// Operands a, b, c are raw bits (integers for the int-to-float conversions).
enum class Op {
  Add, Sub, Mul, Div, Sqrt, Madd, Msub, Nmsub, Nmadd, Min, Max, Eq, Lt, Le, Class,
  CvtWS, CvtWuS, CvtSW, CvtSWu
};

struct OpInfo {
  Op op;
  const char* name;  // the RISC-V mnemonic without ".s" decorations
  int operands;      // 1, 2 or 3
  bool rounds;       // takes a rounding mode
};

inline constexpr OpInfo kOps[] = {
    {Op::Add, "fadd", 2, true},       {Op::Sub, "fsub", 2, true},
    {Op::Mul, "fmul", 2, true},       {Op::Div, "fdiv", 2, true},
    {Op::Sqrt, "fsqrt", 1, true},     {Op::Madd, "fmadd", 3, true},
    {Op::Msub, "fmsub", 3, true},     {Op::Nmsub, "fnmsub", 3, true},
    {Op::Nmadd, "fnmadd", 3, true},   {Op::Min, "fmin", 2, false},
    {Op::Max, "fmax", 2, false},      {Op::Eq, "feq", 2, false},
    {Op::Lt, "flt", 2, false},        {Op::Le, "fle", 2, false},
    {Op::Class, "fclass", 1, false},  {Op::CvtWS, "fcvt.w.s", 1, true},
    {Op::CvtWuS, "fcvt.wu.s", 1, true}, {Op::CvtSW, "fcvt.s.w", 1, true},
    {Op::CvtSWu, "fcvt.s.wu", 1, true},
};

inline const OpInfo* find_op(const std::string& name) {
  for (const OpInfo& info : kOps)
    if (name == info.name) return &info;
  return nullptr;
}

inline uint32_t apply(Op op, uint32_t a, uint32_t b, uint32_t c, uint32_t rm, uint32_t& flags) {
  switch (op) {
    case Op::Add: return add(a, b, rm, flags);
    case Op::Sub: return sub(a, b, rm, flags);
    case Op::Mul: return mul(a, b, rm, flags);
    case Op::Div: return div(a, b, rm, flags);
    case Op::Sqrt: return fpu::sqrt(a, rm, flags);
    case Op::Madd: return madd(a, b, c, rm, flags);
    case Op::Msub: return msub(a, b, c, rm, flags);
    case Op::Nmsub: return nmsub(a, b, c, rm, flags);
    case Op::Nmadd: return nmadd(a, b, c, rm, flags);
    case Op::Min: return fpu::min(a, b, flags);
    case Op::Max: return fpu::max(a, b, flags);
    case Op::Eq: return eq(a, b, flags);
    case Op::Lt: return lt(a, b, flags);
    case Op::Le: return le(a, b, flags);
    case Op::Class: return classify(a);
    case Op::CvtWS: return static_cast<uint32_t>(cvt_w_s(a, rm, flags));
    case Op::CvtWuS: return cvt_wu_s(a, rm, flags);
    case Op::CvtSW: return cvt_s_w(static_cast<int32_t>(a), rm, flags);
    case Op::CvtSWu: return cvt_s_wu(a, rm, flags);
  }
  return 0;
}

}  // namespace ipusim::iss::fpu::test
