// The AMP instructions (docs/xipu.md, custom-1): the run loop's calls for them, operand
// checks, faults and the per-thread state. amp.ldw and amp.mac have a fast entry (the
// thread's state exists, the operand is aligned and inside SRAM: one rotate-compare, as
// for loads, then the arithmetic); everything else, amp.st, amp.clr, a thread's first
// AMP instruction and every fault, goes through CoreState::amp. Compiled with the run
// loop's floating-point flags (see amp_math.h).
#include <fmt/format.h>

#include <algorithm>
#include <cstring>

#include "iss/amp_datapath.h"
#include "iss/amp_math.h"
#include "iss/decode.h"
#include "iss/host_fp_status.h"
#include "iss/isa_table.h"
#include "iss/core_state.h"

namespace ipusim::iss {

namespace {

inline uint32_t rotr(uint32_t v, unsigned s) { return (v >> s) | (v << (32 - s)); }

// amp.mac's arithmetic (and the f16 conversion) raises host flags that must not reach
// fflags: the first such instruction of a run of consecutive AMP instructions saves the
// host's status, the run's last instruction (decoded: rs3 = 0) restores it. Nothing but
// AMP instructions executes in between, so no other flag is lost; a quantum that ends
// inside a run (stepping budget, guard, fault) is restored by the scheduler. Restoring
// (LDMXCSR) costs more than an amp.mac, hence once per run.
inline void enter_run(Quantum& q) {
  if (!q.amp_fp_saved) {
    q.amp_saved_fp_status = host_fp_status_save();
    q.amp_fp_saved = true;
  }
}
template <bool F16>
inline void mac_in_run(Quantum& q, AmpState& s, uint32_t bank, const uint8_t* x) {
  enter_run(q);
  amp::multiply_accumulate(s, bank, amp::load_inputs<F16>(x));
}
inline void ldw_in_run(Quantum& q, AmpState& s, const uint8_t* w, bool f16) {
  if (f16) {
    enter_run(q);
    amp::ldw_f16(s, w);
  } else {
    amp::ldw_f32(s, w);  // a copy of bits: no flags
  }
}
inline void end_of_run(Quantum& q, const DecodedInsn* ip) {
  if (q.amp_fp_saved && ip->rs3 == 0) {
    host_fp_status_restore(q.amp_saved_fp_status);
    q.amp_fp_saved = false;
  }
}

// amp.ldw / amp.mac of type T. The decoded immediate is -SRAM_BASE, so `off` is the
// operand's offset in SRAM; amp.mac's decoded rs2 is its accumulator bank.
template <AmpType T, bool Mac>
inline bool amp_fast(Quantum& q, const DecodedInsn* ip) {
  Thread& t = *q.thread;
  uint32_t* R = t.hart.regs;
  AmpState* s = t.amp.get();
  const MemView& M = *q.mem;
  const uint32_t a = R[ip->rs1], off = a + static_cast<uint32_t>(ip->imm);
  if (s != nullptr) {
    if constexpr (Mac) {
      constexpr unsigned kShift = T == AmpType::F16 ? 3 : 4;  // 8- or 16-byte inputs, aligned
      if (s->type == T && rotr(off, kShift) < (M.load_limit[2] >> (kShift - 2))) {
        mac_in_run<T == AmpType::F16>(q, *s, ip->rs2, M.load_base + off);
        R[ip->rd] = a + (1u << kShift);
        end_of_run(q, ip);
        return true;
      }
    } else if (rotr(off, 2) < (T == AmpType::F16 ? s->ldw_limit16 : s->ldw_limit32)) {
      ldw_in_run(q, *s, M.load_base + off, T == AmpType::F16);
      end_of_run(q, ip);
      return true;
    }
  }
  const bool ok = q.tile->amp(q, ip);
  if (ok) end_of_run(q, ip);
  return ok;
}

}  // namespace

bool loop_amp(Quantum& q, const DecodedInsn* ip) {
  switch (q.mem->ops[ip - q.mem->code]) {  // every AMP instruction ends with end_of_run
    case Op::amp_ldw16: return amp_fast<AmpType::F16, false>(q, ip);
    case Op::amp_ldw32: return amp_fast<AmpType::F32, false>(q, ip);
    case Op::amp_mac16: return amp_fast<AmpType::F16, true>(q, ip);
    case Op::amp_mac32: return amp_fast<AmpType::F32, true>(q, ip);
    default: {
      const bool ok = q.tile->amp(q, ip);
      if (ok) end_of_run(q, ip);
      return ok;
    }
  }
}

bool loop_amp_datapath(Quantum& q, const DecodedInsn* ip) {
  const bool ok = q.tile->amp(q, ip);
  if (ok) end_of_run(q, ip);
  return ok;
}

std::string sram_range_text(uint32_t sram_bytes);  // loop_services.cpp

void CoreState::set_amp_datapath(AmpDatapath* datapath) {
  amp_datapath_ = datapath;
  mem_.amp = datapath ? loop_amp_datapath : loop_amp;
}

AmpState& CoreState::amp_state(Thread& t) {
  if (!t.amp) {
    t.amp = std::make_unique<AmpState>();
    AmpState& s = *t.amp;
    s.rows16 = params_.amp_f16_macs / 4;
    s.rows32 = params_.amp_f32_macs / 4;
    // rotr(off, 2) < limit <=> off is 4-aligned and off + bytes <= SRAM bytes.
    const uint32_t sram = params_.sram_bytes;
    auto limit = [&](uint32_t bytes) { return bytes == 0 || bytes > sram ? 0u : ((sram - bytes) >> 2) + 1; };
    s.ldw_limit16 = limit(s.rows16 * 8);
    s.ldw_limit32 = limit(s.rows32 * 16);
    s.clr_rows = (std::max(s.rows16, s.rows32) + 7) / 8 * 8;
  }
  return *t.amp;
}

bool CoreState::amp(Quantum& q, const DecodedInsn* ip) {
  Thread& t = *q.thread;
  uint32_t* R = t.hart.regs;
  const Op op = code().ops[code().index_of(ip)];
  const bool f32 = rv::funct7(word_at(ip)) == IPU_AMP_F32;
  const char* type = f32 ? "f32" : "f16";
  const uint32_t rows = (f32 ? params_.amp_f32_macs : params_.amp_f16_macs) / 4;
  const auto mn = [&] { return isa::xipu_mnemonic(word_at(ip)); };  // for fault messages only
  auto fail = [&](const char* kind, const std::string& detail) {
    raise(t, ip, kind, detail);
    return false;
  };
  if (rows == 0)
    return fail("illegal instruction", fmt::format("{}: this tile has no {} AMP (amp_{}_macs = 0)", mn(), type, type));
  AmpState& s = amp_state(t);
  const uint32_t addr = R[ip->rs1];

  // The host address of an operand of `bytes` at addr, or nullptr after raising its fault.
  auto operand = [&](const char* what, uint32_t bytes, uint32_t align, bool store) -> uint8_t* {
    const auto text = [&] { return fmt::format("{} {} of {} bytes at 0x{:08x}", mn(), what, bytes, addr); };
    if (addr & (align - 1)) {
      fail("misaligned access", fmt::format("{} (needs {}-byte alignment)", text(), align));
      return nullptr;
    }
    if (addr < kSramBase || addr - kSramBase + uint64_t{bytes} > params_.sram_bytes) {
      fail("access fault", fmt::format("{} outside SRAM {}", text(), sram_range_text(params_.sram_bytes)));
      return nullptr;
    }
    if (store)
      for (const Segment& seg : program_->segments())
        if (seg.executable && uint64_t{addr} + bytes > seg.vaddr && addr < uint64_t{seg.vaddr} + seg.mem_size) {
          fail("access fault",
               fmt::format("{} into code [0x{:08x}, 0x{:08x})", text(), seg.vaddr, seg.vaddr + seg.mem_size));
          return nullptr;
        }
    return sram_.data() + (addr - kSramBase);
  };

  switch (op) {
    case Op::amp_ldw16:
    case Op::amp_ldw32: {
      const uint32_t bytes = rows * (f32 ? 16 : 8);
      const uint8_t* p = operand("weights", bytes, 4, false);
      if (!p) return false;
      ldw_in_run(q, s, p, !f32);
      if (amp_datapath_) std::memcpy(s.w_raw, p, bytes);  // the datapath converts f16 itself
      return true;
    }
    case Op::amp_mac16:
    case Op::amp_mac32: {
      const AmpType want = f32 ? AmpType::F32 : AmpType::F16;
      if (s.type == AmpType::None)
        return fail("illegal instruction", fmt::format("{} with no weights loaded (amp.ldw.{} first)", mn(), type));
      if (s.type != want) {
        const char* other = f32 ? "f16" : "f32";
        return fail("illegal instruction",
                    fmt::format("{} with {} weights loaded (the last amp.ldw was amp.ldw.{})", mn(), other, other));
      }
      const uint32_t bytes = f32 ? 16 : 8;
      const uint8_t* p = operand("inputs", bytes, bytes, false);
      if (!p) return false;
      if (amp_datapath_)
        amp_datapath_->mac(!f32, rows, s.w_raw, p, s.acc[ip->rs2]);
      else if (f32)
        mac_in_run<false>(q, s, ip->rs2, p);
      else
        mac_in_run<true>(q, s, ip->rs2, p);
      R[ip->rd] = addr + bytes;
      return true;
    }
    case Op::amp_st: {
      uint8_t* p = operand("accumulators", rows * 4, 4, true);
      if (!p) return false;
      amp::store_accumulators(s, ip->rs2, p, rows);
      return true;
    }
    case Op::amp_clr:
      amp::clear_accumulators(s);
      return true;
    default:
      return fail("internal error", "not an AMP instruction");
  }
}

}  // namespace ipusim::iss
