// The wide loads and stores (docs/xipu.md "Wide loads and stores"): ld64 / ld128 /
// st64 / st128, their post-increment forms and the load-and-store pairs ld128st64.pi /
// ld64st64.pi.
//
// The run loop calls loop_wide_memory for all of them (one call block, see interp.cpp).
// The common case (aligned, in range, a store above the code) is a rotate and compare per
// access against the tile's MemView and a memcpy to or from the register file, whose f
// registers are consecutive words (a pair / quad is its first register's index). Anything
// failing a check goes to wide_slow, out of line: stores below the code (allowed, as for
// sw), and every fault, raised before anything changed.
#include <fmt/format.h>

#include <cstring>

#include "common/problem.h"
#include "iss/core_state.h"
#include "iss/isa_table.h"
#include "iss/wide_access.h"

namespace ipusim::iss {
namespace {

#define UNLIKELY(x) __builtin_expect(!!(x), 0)

inline uint32_t rotr(uint32_t v, unsigned s) { return (v >> s) | (v << (32 - s)); }

constexpr unsigned log2_size(unsigned bytes) { return bytes == 8 ? 3 : 4; }

// True if a load of Bytes at `off` (from SRAM_BASE; `limit`: the SRAM's bytes) is aligned
// and inside: one rotate and compare (a misaligned offset rotates to a huge one).
template <unsigned Bytes>
inline bool load_ok(uint32_t off, uint32_t limit) {
  return rotr(off, log2_size(Bytes)) < (limit >> log2_size(Bytes));
}

// The complete path: checks every access of `ip` in program order (the load first), raises
// the first fault, else performs the instruction (stores below the code included).
__attribute__((noinline, cold)) bool wide_slow(Quantum& q, const DecodedInsn* ip) {
  return q.tile->wide_memory_slow(q, ip);
}

template <unsigned L, bool Pi>
inline bool load(Quantum& q, const DecodedInsn* ip, uint32_t* R, const MemView& M) {
  const uint32_t off = R[ip->rs1] - kSramBase;
  if (UNLIKELY(!load_ok<L>(off, M.load_limit[0]))) return wide_slow(q, ip);
  std::memcpy(&R[ip->rd], M.load_base + off, L);
  if constexpr (Pi) R[ip->rs1] += L;
  return true;
}

// The same for a store: aligned (absolutely: store_lo is only 4-aligned) and in the
// store range, counted in units of Bytes from SRAM_BASE (MemView::wide_store_first).
template <unsigned Bytes>
inline bool store_ok(uint32_t off, const MemView& M) {
  constexpr unsigned k = Bytes == 8 ? 0 : 1;
  return rotr(off, log2_size(Bytes)) - M.wide_store_first[k] < M.wide_store_units[k];
}

template <unsigned S, bool Pi>
inline bool store(Quantum& q, const DecodedInsn* ip, uint32_t* R, const MemView& M) {
  const uint32_t off = R[ip->rs1] - kSramBase;
  if (UNLIKELY(!store_ok<S>(off, M))) return wide_slow(q, ip);
  std::memcpy(M.load_base + off, &R[ip->rs2], S);
  if constexpr (Pi) R[ip->rs1] += S;
  return true;
}

// ld128st64.pi / ld64st64.pi: both checks first, then the load, then the store (so an
// overlapping store never changes what the load reads).
template <unsigned L>
inline bool load_store(Quantum& q, const DecodedInsn* ip, uint32_t* R, const MemView& M) {
  const uint32_t loff = R[ip->rs1] - kSramBase;
  const uint32_t soff = R[ip->rs2] - kSramBase;
  if (UNLIKELY(!load_ok<L>(loff, M.load_limit[0]) || !store_ok<8>(soff, M) || ip->rs1 == ip->rs2))
    return wide_slow(q, ip);
  uint32_t stored[2];
  std::memcpy(stored, &R[ip->rs3], 8);  // fs may be among the loaded registers: read it first
  std::memcpy(&R[ip->rd], M.load_base + loff, L);
  std::memcpy(M.load_base + soff, stored, 8);
  R[ip->rs1] += L;
  R[ip->rs2] += 8;
  return true;
}

}  // namespace

bool loop_wide_memory(Quantum& q, const DecodedInsn* ip) {
  const MemView& M = *q.mem;
  uint32_t* const R = q.thread->hart.regs;
  const Op op = M.ops[ip - M.code];
  bool ok;
  switch (op) {
    case Op::ld64: ok = load<8, false>(q, ip, R, M); break;
    case Op::ld128: ok = load<16, false>(q, ip, R, M); break;
    case Op::ld64_pi: ok = load<8, true>(q, ip, R, M); break;
    case Op::ld128_pi: ok = load<16, true>(q, ip, R, M); break;
    case Op::st64: ok = store<8, false>(q, ip, R, M); break;
    case Op::st128: ok = store<16, false>(q, ip, R, M); break;
    case Op::st64_pi: ok = store<8, true>(q, ip, R, M); break;
    case Op::st128_pi: ok = store<16, true>(q, ip, R, M); break;
    case Op::ld128st64_pi: ok = load_store<16>(q, ip, R, M); break;
    case Op::ld64st64_pi: ok = load_store<8>(q, ip, R, M); break;
    default:  // not a wide op: the loop sends none here
      loop_fault(q, ip);
      return false;
  }
  // Timing (docs/xipu.md "Timing"): the slots beyond one this access takes on the tile's
  // memory paths (worked out per tile at boot). A faulting instruction takes none.
  if (__builtin_expect(ok, 1)) q.slot_adjust += M.wide_extra_slots[static_cast<unsigned>(op) - static_cast<unsigned>(Op::ld64)];
  return ok;
}

// ---- The complete path (CoreState). ----

bool CoreState::wide_memory_slow(Quantum& q, const DecodedInsn* ip) {
  const Thread& t = *q.thread;
  uint32_t* R = q.thread->hart.regs;
  const Op op = code().ops[code().index_of(ip)];
  const WideAccess w = wide_access(op, *ip, R[ip->rs1], R[ip->rs2]);
  if (w.load_bytes && w.store_bytes && ip->rs1 == ip->rs2) {
    raise(t, ip, "illegal instruction",
          fmt::format("{} with {} as both the load and the store address (one register cannot step by two sizes)",
                      isa::xipu_mnemonic(word_at(ip)), x_abi_name(ip->rs1)));
    return false;
  }
  if (w.load_bytes && !check_sram_access(t, ip, "load", w.load_addr, w.load_bytes, false)) return false;
  if (w.store_bytes && !check_sram_access(t, ip, "store", w.store_addr, w.store_bytes, true)) return false;
  // The stored registers are read before the load writes (fs may be among fd's).
  uint32_t stored[4];
  if (w.store_bytes) std::memcpy(stored, &R[w.store_reg], w.store_bytes);
  if (w.load_bytes) std::memcpy(&R[ip->rd], sram_.data() + (w.load_addr - kSramBase), w.load_bytes);
  if (w.store_bytes) std::memcpy(sram_.data() + (w.store_addr - kSramBase), stored, w.store_bytes);
  if (w.increments) {
    R[ip->rs1] += w.load_bytes ? w.load_bytes : w.store_bytes;
    if (w.load_bytes && w.store_bytes) R[ip->rs2] += w.store_bytes;
  }
  return true;
}

}  // namespace ipusim::iss
