// The run loop's out-of-line services (see interp.h): the rare paths it leaves its fast
// handlers for. Each either completes the instruction or records a fault.
#include <fmt/format.h>

#include "iss/disasm.h"
#include "iss/fpu.h"
#include "iss/host_fp_status.h"
#include "iss/core_state.h"
#include "iss/jit/lockstep.h"
#include "iss/rpt_copies.h"

namespace ipusim::iss {

bool loop_csr(Quantum& q, const DecodedInsn* ip, uint64_t executed) { return q.tile->csr(q, ip, executed); }
bool loop_hook(Quantum& q, const DecodedInsn* ip, uint64_t executed) { return q.tile->hook(q, ip, executed); }
bool loop_console(Quantum& q, const DecodedInsn* ip) { return q.tile->console(q, ip); }
bool loop_store_slow(Quantum& q, const DecodedInsn* ip) { return q.tile->store_slow(q, ip); }
bool loop_fp_exact(Quantum& q, const DecodedInsn* ip) { return q.tile->fp_exact(q, ip); }
bool loop_fp_convert(Quantum& q, const DecodedInsn* ip) { return q.tile->fp_convert(q, ip); }
uint32_t loop_fp_nan(Quantum& q, const DecodedInsn* ip, FpOp op) { return q.tile->fp_nan(q, ip, op); }
void loop_fault(Quantum& q, const DecodedInsn* ip) { q.tile->fault_at(q, ip); }
bool loop_may_issue(Quantum& q, const DecodedInsn* ip, uint64_t executed) { return q.tile->may_issue(q, ip, executed); }
void loop_trace(Quantum& q, const DecodedInsn* ip, uint64_t executed) { q.tile->trace(q, ip, executed); }

namespace {

// Runs a call-out to foreign code (a sink) in the middle of a quantum without letting its
// host floating-point flags leak into the thread's fflags.
template <typename F>
void foreign_call(Thread& t, F&& f) {
  t.hart.regs[kFflagsReg] |= fpu::host_flags_read();
  f();
  fpu::host_flags_clear();
}

}  // namespace

std::string sram_range_text(uint32_t sram_bytes) {
  return fmt::format("[0x{:08x}, 0x{:08x})", kSramBase, kSramBase + sram_bytes);
}

namespace {

// Why the rpt at code index `index` is illegal (its body, rpt_copies.cpp).
std::string rpt_body_problem(const DecodedCode& dc, uint32_t index) {
  const RptBodyCheck c = check_rpt_body(dc, index);
  const uint32_t size = dc.insns[index].rs2;
  const uint32_t pc = dc.begin + 4 * c.at;
  if (c.problem == RptBodyCheck::Problem::past_end)
    return fmt::format("its body of {} instructions runs past the end of the code (0x{:08x} is not code)", size, pc);
  return fmt::format("its body of {} instructions holds `{}` at 0x{:08x} (a rpt body is straight-line: no "
                     "control transfer, rpt, ecall / ebreak, thread, sync, exchange, console or streaming instruction)",
                     size, disassemble(dc.raw[c.at], pc), pc);
}

}  // namespace

void CoreState::fault_at(Quantum& q, const DecodedInsn* ip) {
  const Thread& t = *q.thread;
  const uint32_t* R = t.hart.regs;
  const DecodedCode& dc = code();
  const Op op = dc.ops[dc.index_of(ip)];
  const std::string code_range = fmt::format("[0x{:08x}, 0x{:08x})", dc.begin, dc.begin + 4 * dc.words);
  auto jump_fault = [&](uint32_t target) {
    if (target & 3)
      raise(t, ip, "misaligned access", fmt::format("jump to 0x{:08x} (not 4-byte aligned)", target), target);
    else
      raise(t, ip, "access fault", fmt::format("jump to 0x{:08x} outside code {}", target, code_range), target);
  };
  if (is_load_store(op) && !is_scalar_store(op)) {
    const unsigned size = scalar_access_size(op);
    const uint32_t addr = R[ip->rs1] + static_cast<uint32_t>(ip->imm) + kSramBase;
    if (addr & (size - 1))
      return raise(t, ip, "misaligned access", fmt::format("load of {} bytes at 0x{:08x}", size, addr), addr);
    return raise(t, ip, "access fault",
                 fmt::format("load of {} bytes at 0x{:08x} outside SRAM {}", size, addr, sram_range_text(params_.sram_bytes)),
                 addr);
  }
  switch (op) {
    case Op::illegal: return raise(t, ip, "illegal instruction", "undefined encoding");
    case Op::rpt_illegal: return raise(t, ip, "illegal instruction", rpt_body_problem(dc, dc.index_of(ip)));
    case Op::fetch_fault:
      return raise(t, ip, "access fault", fmt::format("fetch at 0x{:08x} outside code {}", dc.pc_of(ip), code_range));
    case Op::ecall: return raise(t, ip, "ecall", "there is no OS on a tile");
    case Op::ebreak: return raise(t, ip, "ebreak", "there is no debugger attached");
    case Op::branch_far:
    case Op::jal_far: return jump_fault(static_cast<uint32_t>(ip->imm));
    case Op::jalr: return jump_fault(((R[ip->rs1] + static_cast<uint32_t>(ip->imm)) & ~1u) + dc.begin);
    default: return raise(t, ip, "internal error", "fault raised by a non-faulting instruction");
  }
}

// The checks of a slow-path access, in RISC-V's order (misaligned before out of SRAM),
// each a fault naming the access: alignment, inside SRAM, and for a store outside code.
bool CoreState::check_sram_access(const Thread& t, const DecodedInsn* ip, const char* what, uint32_t addr,
                                  unsigned size, bool is_store) {
  if (addr & (size - 1)) {
    raise(t, ip, "misaligned access", fmt::format("{} of {} bytes at 0x{:08x}", what, size, addr), addr);
    return false;
  }
  if (addr < kSramBase || addr - kSramBase + uint64_t{size} > params_.sram_bytes) {
    raise(t, ip, "access fault",
          fmt::format("{} of {} bytes at 0x{:08x} outside SRAM {}", what, size, addr, sram_range_text(params_.sram_bytes)),
          addr);
    return false;
  }
  if (!is_store) return true;
  for (const Segment& s : program_->segments()) {
    if (s.executable && addr + uint64_t{size} > s.vaddr && addr < uint64_t{s.vaddr} + s.mem_size) {
      raise(t, ip, "access fault",
            fmt::format("store of {} bytes at 0x{:08x} into code [0x{:08x}, 0x{:08x})", size, addr, s.vaddr,
                        s.vaddr + s.mem_size),
            addr);
      return false;
    }
  }
  return true;
}

// A store that failed the fast check: below the code, in a gap between code segments,
// or a fault.
bool CoreState::store_slow(Quantum& q, const DecodedInsn* ip) {
  const Thread& t = *q.thread;
  const uint32_t* R = t.hart.regs;
  const Op op = code().ops[code().index_of(ip)];
  const unsigned size = scalar_access_size(op);
  const uint32_t addr = R[ip->rs1] + static_cast<uint32_t>(ip->imm) + code().store_lo;
  if (!check_sram_access(t, ip, "store", addr, size, true)) return false;
  const uint32_t v = R[ip->rs2];
  std::memcpy(sram_.data() + (addr - kSramBase), &v, size);  // little-endian host
  return true;
}

bool CoreState::console(Quantum& q, const DecodedInsn* ip) {
  Thread& t = *q.thread;
  uint32_t* R = t.hart.regs;
  const Op op = code().ops[code().index_of(ip)];
  auto put = [&](char c) {
    if (c == '\n' || t.line.size() >= 4096) foreign_call(t, [&] { emit_line(t); });
    if (c != '\n') t.line.push_back(c);
  };
  // A full sink ends the quantum here when no other thread runs (nothing to interleave
  // with); else the quantum ends as it would, and run() pauses after it.
  const auto end_quantum_if_full = [&] {
    if (console_full_ && t.id == 0 && !any_worker_running()) q.budget = 0;
  };
  if (op == Op::cputc) {
    put(static_cast<char>(R[ip->rs1] & 0xff));
    end_quantum_if_full();
    return true;
  }
  const uint32_t addr = R[ip->rs1], len = R[ip->rs2];
  if (addr < kSramBase || addr - kSramBase + uint64_t{len} > params_.sram_bytes) {
    raise(t, ip, "access fault",
          fmt::format("cwrite of {} bytes at 0x{:08x} outside SRAM {}", len, addr, sram_range_text(params_.sram_bytes)),
          addr);
    return false;
  }
  const uint8_t* p = sram_.data() + (addr - kSramBase);
  for (uint32_t i = 0; i < len; ++i) put(static_cast<char>(p[i]));
  R[ip->rd] = len;
  end_quantum_if_full();
  return true;
}

void CoreState::emit_line(Thread& t) {
  bool accepted = true;
  if (console_) {
    accepted = console_->line(params_.id, t.id, t.line);
    if (!accepted) console_full_ = true;
  } else if (t.id == 0) {
    fmt::print("[ipu {} tile {}] {}\n", params_.id.ipu, params_.id.tile, t.line);
  } else {
    fmt::print("[ipu {} tile {} thread {}] {}\n", params_.id.ipu, params_.id.tile, t.id, t.line);
  }
  if (lockstep_) lockstep_->real_line(t.id, t.line, accepted);  // the shadow's line is compared with it
  t.line.clear();
}

void CoreState::flush_line(Thread& t) {
  if (!t.line.empty()) emit_line(t);
}

void CoreState::trace(Quantum& q, const DecodedInsn* ip, uint64_t executed) {
  Thread& t = *q.thread;
  if (q.amp_fp_saved) {  // inside a run of AMP instructions: its flags are not the thread's
    host_fp_status_restore(q.amp_saved_fp_status);
    q.amp_fp_saved = false;
  }
  // `ip` has run: q.slot_adjust counts its own extra slots already, which come after its issue.
  uint64_t slots = q.slots(executed);
  if (const Op op = mem_.ops[code().index_of(ip)]; is_wide_memory(op))
    slots -= mem_.wide_extra_slots[static_cast<unsigned>(op) - static_cast<unsigned>(Op::ld64)];
  foreign_call(t, [&] { trace_retired(t, ip, t.clock + kIssueSlots * slots, q.trace_rs1); });
}

void CoreState::raise(const Thread& t, const DecodedInsn* ip, std::string kind, std::string detail,
                      std::optional<uint64_t> address) {
  Fault f;
  f.code = ProblemCode::TileFault;
  f.ipu = params_.id.ipu;
  f.tile = params_.id.tile;
  f.address = address;
  f.kind = std::move(kind);
  f.detail = std::move(detail);
  f.thread = t.id;
  f.pc = pc_of(ip);
  f.insn = word_at(ip);
  f.disasm = disassemble(f.insn, f.pc);
  // The registers as the faulting instruction found them (it wrote nothing), for the
  // fault's register dump and core files.
  f.registers = thread_registers(t, f.pc);
  for (uint32_t i = 0; i < threads_.live(thread_count()); ++i) flush_line(threads_[i]);
  StopInfo s;
  s.reason = StopReason::Fault;
  s.fault = std::make_shared<const Fault>(std::move(f));
  stopped_ = std::move(s);
}

// ---- Floating point: the exact (fpu::) paths. ----

namespace {

uint32_t exact(FpOp op, uint32_t a, uint32_t b, uint32_t c, uint32_t rm, uint32_t& flags) {
  switch (op) {
    case FpOp::add: return fpu::add(a, b, rm, flags);
    case FpOp::sub: return fpu::sub(a, b, rm, flags);
    case FpOp::mul: return fpu::mul(a, b, rm, flags);
    case FpOp::div: return fpu::div(a, b, rm, flags);
    case FpOp::sqrt: return fpu::sqrt(a, rm, flags);
    case FpOp::madd: return fpu::madd(a, b, c, rm, flags);
    case FpOp::msub: return fpu::msub(a, b, c, rm, flags);
    case FpOp::nmsub: return fpu::nmsub(a, b, c, rm, flags);
    case FpOp::nmadd: return fpu::nmadd(a, b, c, rm, flags);
  }
  return fpu::kCanonicalNan;
}

}  // namespace

// Resolves a rounding-mode field (7 = dyn: frm); a reserved mode is an illegal instruction.
static bool resolve_rm(CoreState& tile, const Thread& t, const DecodedInsn* ip, uint32_t& rm) {
  if (rm == fpu::DYN) rm = t.hart.regs[kFrmReg];
  if (rm <= fpu::RMM) return true;
  tile.raise(t, ip, "illegal instruction", fmt::format("dynamic rounding mode with frm = {} (reserved)", rm));
  return false;
}

bool CoreState::fp_exact(Quantum& q, const DecodedInsn* ip) {
  Thread& t = *q.thread;
  uint32_t* R = t.hart.regs;
  uint32_t rm = static_cast<uint32_t>(ip->imm) & 0xff;
  if (!resolve_rm(*this, t, ip, rm)) return false;
  const auto op = static_cast<FpOp>(static_cast<uint32_t>(ip->imm) >> 8);
  R[ip->rd] = exact(op, R[ip->rs1], R[ip->rs2], R[ip->rs3], rm, R[kFflagsReg]);
  return true;
}

uint32_t CoreState::fp_nan(Quantum& q, const DecodedInsn* ip, FpOp op) {
  uint32_t* R = q.thread->hart.regs;
  return exact(op, R[ip->rs1], R[ip->rs2], R[ip->rs3], fpu::RNE, R[kFflagsReg]);
}

bool CoreState::fp_convert(Quantum& q, const DecodedInsn* ip) {
  Thread& t = *q.thread;
  uint32_t* R = t.hart.regs;
  uint32_t rm = static_cast<uint32_t>(ip->imm);
  if (!resolve_rm(*this, t, ip, rm)) return false;
  const uint32_t a = R[ip->rs1];
  uint32_t& flags = R[kFflagsReg];
  uint32_t r = 0;
  switch (code().ops[static_cast<size_t>(ip - code().insns.data())]) {  // a copy in an rpt body has its own entry
    case Op::fcvt_w_s: r = static_cast<uint32_t>(fpu::cvt_w_s(a, rm, flags)); break;
    case Op::fcvt_wu_s: r = fpu::cvt_wu_s(a, rm, flags); break;
    case Op::fcvt_s_w: r = fpu::cvt_s_w(static_cast<int32_t>(a), rm, flags); break;
    case Op::fcvt_s_wu: r = fpu::cvt_s_wu(a, rm, flags); break;
    default: break;
  }
  R[ip->rd] = r;
  return true;
}

}  // namespace ipusim::iss
