// RunBounds: where a run pauses before the tile's next stop (see tile_core.h).
//
// Limits are checked between quanta, and the quantum that would cross one is cut to
// the exact instruction and stepped, so a tile pauses at the same instruction whatever
// the thread quantum (a thread's clock moves 6 cycles per issue slot: a cycle limit is a
// slot count for each thread, which the stepping loop checks before every instruction;
// docs/xipu.md "Timing": the second of a co-issued pair takes no slot, a wide access
// more than one). A probe makes every quantum one instruction
// long, so the threads interleave strictly in (cycle, thread) order and the probe sees
// each instruction before it issues.
#include <algorithm>
#include <iterator>

#include "iss/core_state.h"
#include "iss/wide_access.h"

namespace ipusim::iss {

const char* to_string(PauseReason reason) {
  switch (reason) {
    case PauseReason::CycleLimit: return "cycle limit";
    case PauseReason::InstructionLimit: return "instruction limit";
    case PauseReason::Interrupt: return "interrupt";
    case PauseReason::Probe: return "debugger";
    case PauseReason::ConsoleFull: return "console full";
  }
  return "?";
}

uint64_t CoreState::tile_instret() const {
  uint64_t n = 0;
  for (uint32_t i = 0; i < thread_count(); ++i) n += threads_[i].instret;
  return n;
}

void CoreState::pause(PauseReason reason, const Thread& t, uint64_t cycle, const DecodedInsn* ip) {
  StopInfo s;
  s.reason = StopReason::Paused;
  s.pause = reason;
  s.pause_thread = t.id;
  s.pause_cycle = cycle;
  s.pause_pc = ip ? pc_of(ip) : 0;
  pause_ = s;
}

bool CoreState::pause_before_quantum(const Thread& t) {
  const RunBounds& b = *bounds_;
  if (t.clock >= b.cycle_limit) {
    pause(PauseReason::CycleLimit, t, t.clock, t.ip);
  } else if (b.instruction_limit != RunBounds::kNone && tile_instret() >= b.instruction_limit) {
    pause(PauseReason::InstructionLimit, t, t.clock, t.ip);
  } else if (b.interrupt && b.interrupt->load(std::memory_order_relaxed)) {
    pause(PauseReason::Interrupt, t, t.clock, t.ip);
  }
  return pause_.has_value();
}

// The most issue slots one instruction takes: one plus the most extra slots of a wide
// access on this tile's memory paths (MemView::wide_extra_slots, docs/xipu.md "Timing").
uint64_t CoreState::max_slots_per_insn() const {
  return 1u + *std::max_element(std::begin(mem_.wide_extra_slots), std::end(mem_.wide_extra_slots));
}

void CoreState::bound_quantum(const Thread& t, Quantum& q, bool& step) const {
  const RunBounds& b = *bounds_;
  if (b.cycle_limit != RunBounds::kNone) {
    // Slots issuing before the limit: at clock, clock + 6, ... (clock < limit here); a
    // ceiling that cannot wrap for a limit near 2^64.
    const uint64_t ahead = b.cycle_limit - t.clock;
    const uint64_t room = ahead / kIssueSlots + (ahead % kIssueSlots != 0);
    // The quantum's instructions take at most max_slots_per_insn() slots each.
    if (room <= q.budget * max_slots_per_insn()) {
      q.slot_limit = room;
      step = true;  // the fast loop checks its budget only at taken branches
    }
  }
  if (b.instruction_limit != RunBounds::kNone) {
    const uint64_t done = tile_instret();
    const uint64_t room = b.instruction_limit > done ? b.instruction_limit - done : 0;
    if (room <= q.budget) {
      q.budget = room;
      step = true;
    }
  }
  if (b.probe) {
    q.budget = std::min<uint64_t>(q.budget, 1);
    q.guard = q.probe = true;
    step = true;
  }
}

bool CoreState::probe_stops(const Thread& t, const DecodedInsn* ip, uint64_t cycle) {
  bool stop = probe_stops_at(t, ip, cycle, ip);
  // The second of a co-issued pair issues in ip's slot and is never asked about on its
  // own (the stepping loop): it is shown with its first, always (a debugger's check pass
  // stops before every instruction and must still see a breakpoint on the second), and
  // a stop on it pauses before the pair.
  const DecodedInsn* next = ip + 1;
  if (code().co_issued[code().index_of(next)]) stop = probe_stops_at(t, next, cycle, ip) || stop;
  return stop;
}

bool CoreState::probe_stops_at(const Thread& t, const DecodedInsn* ip, uint64_t cycle, const DecodedInsn* at) {
  DebugProbe::Insn insn;
  insn.thread = t.id;
  insn.cycle = cycle;
  insn.pc = pc_of(ip);
  insn.word = word_at(ip);
  const Op op = code().ops[code().index_of(ip)];
  const uint32_t* R = t.hart.regs;
  switch (op) {
    case Op::lb: case Op::lh: case Op::lw: case Op::lbu: case Op::lhu: case Op::flw:
      insn.load = true;
      insn.address = R[ip->rs1] + static_cast<uint32_t>(ip->imm) + kSramBase;
      insn.size = scalar_access_size(op);
      break;
    case Op::sb: case Op::sh: case Op::sw: case Op::fsw:
      insn.store = true;
      insn.address = insn.store_address = R[ip->rs1] + static_cast<uint32_t>(ip->imm) + code().store_lo;
      insn.size = insn.store_size = scalar_access_size(op);
      break;
    default:
      if (is_wide_memory(op)) {
        const WideAccess w = wide_access(op, *ip, R[ip->rs1], R[ip->rs2]);
        insn.load = w.load_bytes != 0;
        insn.store = w.store_bytes != 0;
        insn.address = insn.load ? w.load_addr : w.store_addr;
        insn.size = insn.load ? w.load_bytes : w.store_bytes;
        insn.store_address = w.store_addr;
        insn.store_size = w.store_bytes;
      }
      break;
  }
  if (!bounds_->probe->stop_before(params_.id, insn)) return false;
  pause(PauseReason::Probe, t, cycle, at);
  return true;
}

}  // namespace ipusim::iss
