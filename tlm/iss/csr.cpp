// Zicsr instructions over the CSRs of docs/xipu.md: the F extension's fflags / frm /
// fcsr, the counters (per thread: cycle of the reading instruction's issue, instret
// before it) and the Xipu identity and per-tile CSRs. Unknown CSRs, and writes to
// read-only ones, are illegal instructions.
#include <fmt/format.h>

#include "iss/decode.h"
#include "iss/disasm.h"
#include "iss/fpu.h"
#include "iss/tile_state.h"

namespace ipusim::iss {

bool TileState::csr(Quantum& q, const DecodedInsn* ip, uint64_t executed) {
  Thread& t = *q.thread;
  uint32_t* R = t.hart.regs;
  const uint32_t w = word_at(ip);
  const uint32_t num = w >> 20, f3 = rv::funct3(w), src = rv::rs1(w);
  const uint32_t operand = f3 >= 5 ? src : R[src];  // csrr*i: the 5-bit immediate
  // csrrs/csrrc with x0 (or a zero immediate) only read.
  const bool writes = (f3 & 3) == 1 || src != 0;
  const uint64_t cycle = t.clock + kIssueSlots * executed;
  const uint64_t instret = t.instret + executed;

  auto illegal = [&](const std::string& why) {
    raise(t, ip, "illegal instruction", why);
    return false;
  };
  // Fold in the host flags of the native FP fast path before fflags is seen or replaced.
  if (num <= 3) {
    R[kFflagsReg] |= fpu::host_flags_read();
    fpu::host_flags_clear();
  }

  uint32_t old = 0;
  bool read_only = false;
  switch (num) {
    case 0x001: old = R[kFflagsReg]; break;
    case 0x002: old = R[kFrmReg]; break;
    case 0x003: old = R[kFrmReg] << 5 | R[kFflagsReg]; break;
    case 0xc00: case 0xc01: old = static_cast<uint32_t>(cycle); read_only = true; break;
    case 0xc80: case 0xc81: old = static_cast<uint32_t>(cycle >> 32); read_only = true; break;
    case 0xc02: old = static_cast<uint32_t>(instret); read_only = true; break;
    case 0xc82: old = static_cast<uint32_t>(instret >> 32); read_only = true; break;
    case 0xcc0: old = params_.id.tile; read_only = true; break;
    case 0xcc1: old = params_.id.ipu; read_only = true; break;
    case 0xcc2: old = t.id; read_only = true; break;
    case 0xcc3: old = params_.id.tiles_per_ipu; read_only = true; break;
    case 0xcc4: old = params_.id.ipus; read_only = true; break;
    case 0xcc5: old = params_.workers; read_only = true; break;
    case 0xcc6: old = kSramBase; read_only = true; break;
    case 0xcc7: old = params_.sram_bytes; read_only = true; break;
    case 0xcc8: old = superstep_; read_only = true; break;
    case 0xcc9: old = params_.amp_f16_macs / 4; read_only = true; break;
    case 0xcca: old = params_.amp_f32_macs / 4; read_only = true; break;
    case 0xccb: old = kAmpBanks; read_only = true; break;
    case 0x8c0: old = wstack_base_; break;
    case 0x8c1: old = wstack_size_; break;
    case 0x8c2: old = wexit_pc_; break;
    default: return illegal(fmt::format("unknown CSR 0x{:03x}", num));
  }
  if (writes) {
    if (read_only) return illegal(fmt::format("write to read-only CSR {}", csr_name(num)));
    uint32_t v = operand;
    if ((f3 & 3) == 2) v = old | operand;
    if ((f3 & 3) == 3) v = old & ~operand;
    switch (num) {
      case 0x001: R[kFflagsReg] = v & 0x1f; break;
      case 0x002: R[kFrmReg] = v & 7; break;
      case 0x003: R[kFflagsReg] = v & 0x1f; R[kFrmReg] = (v >> 5) & 7; break;
      case 0x8c0: wstack_base_ = v; break;
      case 0x8c1: wstack_size_ = v; break;
      case 0x8c2: wexit_pc_ = v; break;
    }
  }
  R[ip->rd] = old;
  return true;
}

}  // namespace ipusim::iss
