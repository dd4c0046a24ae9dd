// Zicsr instructions over the CSRs of docs/xipu.md (numbers from the ISA source,
// hw/isa/xipu.yaml, via ipu/xipu_isa.h): the F extension's fflags / frm / fcsr, the
// counters (per thread: cycle of the reading instruction's issue, instret before it) and
// the Xipu identity and per-tile CSRs. Unknown CSRs, and writes to read-only ones, are
// illegal instructions; the write switch accepts exactly the CSRs the source marks rw (a
// test checks it against isa_table.h).
#include <fmt/format.h>
#include <ipu/xipu_isa.h>

#include "iss/decode.h"
#include "iss/disasm.h"
#include "iss/fpu.h"
#include "iss/core_state.h"

namespace ipusim::iss {

std::optional<uint32_t> CoreState::csr_value(const Thread& t, uint32_t num, uint64_t cycle, uint64_t instret) const {
  const uint32_t* R = t.hart.regs;
  switch (num) {
    case IPU_CSR_FFLAGS: return R[kFflagsReg];
    case IPU_CSR_FRM: return R[kFrmReg];
    case IPU_CSR_FCSR: return R[kFrmReg] << 5 | R[kFflagsReg];
    case IPU_CSR_CYCLE: case IPU_CSR_TIME: return static_cast<uint32_t>(cycle);
    case IPU_CSR_CYCLEH: case IPU_CSR_TIMEH: return static_cast<uint32_t>(cycle >> 32);
    case IPU_CSR_INSTRET: return static_cast<uint32_t>(instret);
    case IPU_CSR_INSTRETH: return static_cast<uint32_t>(instret >> 32);
    case IPU_CSR_TILE: return params_.id.tile;
    case IPU_CSR_IPU: return params_.id.ipu;
    case IPU_CSR_THREAD: return t.id;
    case IPU_CSR_NTILES: return params_.id.tiles_per_ipu;
    case IPU_CSR_NIPUS: return params_.id.ipus;
    case IPU_CSR_NWORKERS: return params_.workers;
    case IPU_CSR_SRAMBASE: return kSramBase;
    case IPU_CSR_SRAMSIZE: return params_.sram_bytes;
    case IPU_CSR_SUPERSTEP: return superstep_;
    case IPU_CSR_AMPROWS16: return params_.amp_f16_macs / 4;
    case IPU_CSR_AMPROWS32: return params_.amp_f32_macs / 4;
    case IPU_CSR_AMPBANKS: return kAmpBanks;
    case IPU_CSR_WSTACKBASE: return wstack_base_;
    case IPU_CSR_WSTACKSIZE: return wstack_size_;
    case IPU_CSR_WEXITPC: return wexit_pc_;
    default: return std::nullopt;
  }
}

bool CoreState::csr(Quantum& q, const DecodedInsn* ip, uint64_t executed) {
  Thread& t = *q.thread;
  uint32_t* R = t.hart.regs;
  const uint32_t w = word_at(ip);
  const uint32_t num = w >> 20, f3 = rv::funct3(w), src = rv::rs1(w);
  const uint32_t operand = f3 >= 5 ? src : R[src];  // csrr*i: the 5-bit immediate
  // csrrs/csrrc with x0 (or a zero immediate) only read.
  const bool writes = (f3 & 3) == 1 || src != 0;
  const uint64_t cycle = t.clock + kIssueSlots * q.slots(executed);
  const uint64_t instret = t.instret + executed;

  auto illegal = [&](const std::string& why) {
    raise(t, ip, "illegal instruction", why);
    return false;
  };
  // Fold in the host flags of the native FP fast path before fflags is seen or replaced.
  if (num <= IPU_CSR_FCSR) {
    R[kFflagsReg] |= fpu::host_flags_read();
    fpu::host_flags_clear();
  }

  const std::optional<uint32_t> value = csr_value(t, num, cycle, instret);
  if (!value) return illegal(fmt::format("unknown CSR 0x{:03x}", num));
  const uint32_t old = *value;
  if (writes) {
    // The writable CSRs are those of the switch below; every other one is read-only. The
    // ISA source (hw/isa/xipu.yaml) stays the authority: a test (csr_test.cpp) checks that
    // this switch accepts exactly the CSRs its table marks rw.
    uint32_t v = operand;
    if ((f3 & 3) == 2) v = old | operand;
    if ((f3 & 3) == 3) v = old & ~operand;
    switch (num) {
      case IPU_CSR_FFLAGS: R[kFflagsReg] = v & 0x1f; break;
      case IPU_CSR_FRM: R[kFrmReg] = v & 7; break;
      case IPU_CSR_FCSR: R[kFflagsReg] = v & 0x1f; R[kFrmReg] = (v >> 5) & 7; break;
      case IPU_CSR_WSTACKBASE: wstack_base_ = v; break;
      case IPU_CSR_WSTACKSIZE: wstack_size_ = v; break;
      case IPU_CSR_WEXITPC: wexit_pc_ = v; break;
      default: return illegal(fmt::format("write to read-only CSR {}", csr_name(num)));
    }
  }
  R[ip->rd] = old;
  return true;
}

}  // namespace ipusim::iss
