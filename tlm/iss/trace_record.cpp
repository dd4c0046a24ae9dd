// What a traced instruction changed (tile_core.h RetiredInsn), worked out from its decoded
// entry after it ran. Only the tracing paths call this: the fast loop knows nothing of it.
#include <cstring>

#include "iss/core_state.h"
#include "iss/wide_access.h"

namespace ipusim::iss {
namespace {

// The ops that write their rd (x0 is decoded to the sink register, not listed here).
bool writes_rd(Op op) {
  if (is_scalar_fp(op)) return true;  // every F computation writes its rd (f or x)
  switch (op) {
    case Op::li: case Op::addi: case Op::slti: case Op::sltiu: case Op::xori: case Op::ori:
    case Op::andi: case Op::slli: case Op::srli: case Op::srai:
    case Op::add: case Op::sub: case Op::sll: case Op::slt: case Op::sltu: case Op::xor_:
    case Op::srl: case Op::sra: case Op::or_: case Op::and_:
    case Op::mul: case Op::mulh: case Op::mulhsu: case Op::mulhu: case Op::div: case Op::divu:
    case Op::rem: case Op::remu:
    case Op::jal: case Op::jalr:
    case Op::lb: case Op::lh: case Op::lw: case Op::lbu: case Op::lhu: case Op::flw:
    case Op::csr:
    case Op::xrun: case Op::cwrite: case Op::amp_mac16: case Op::amp_mac32:
      return true;
    default:
      return false;
  }
}

// Bytes a load or store of RV32IF accesses; 0 for any other op.
unsigned mem_bytes(Op op) {
  switch (op) {
    case Op::lb: case Op::lbu: case Op::sb: return 1;
    case Op::lh: case Op::lhu: case Op::sh: return 2;
    case Op::lw: case Op::flw: case Op::sw: case Op::fsw: return 4;
    default: return 0;
  }
}

bool is_store(Op op) { return op == Op::sb || op == Op::sh || op == Op::sw || op == Op::fsw; }

}  // namespace

// A wide load / store: the registers it wrote and the memory it accessed. Its address
// registers held `rs1_before` and (the pairs, whose rs1 and rs2 differ) R[rs2] - 8.
static void record_wide(RetiredInsn& r, Op op, const DecodedInsn& d, const uint32_t* R, uint32_t rs1_before,
                        const Sram& sram) {
  const uint32_t rs2_before = R[d.rs2] - 8;
  const WideAccess w = wide_access(op, d, rs1_before, rs2_before);
  RetiredInsn::Reg regs[6];
  unsigned n = 0;
  for (unsigned i = 0; i < w.load_bytes / 4u; ++i)
    regs[n++] = {RetiredInsn::Dest::F, static_cast<uint8_t>(d.rd - kFReg0 + i), R[d.rd + i]};
  // An address register x0 cannot be incremented (its access faults), so these are x1..x31.
  if (w.increments) {
    regs[n++] = {RetiredInsn::Dest::X, d.rs1, R[d.rs1]};
    if (w.load_bytes && w.store_bytes) regs[n++] = {RetiredInsn::Dest::X, d.rs2, R[d.rs2]};
  }
  if (n > 0) {
    r.dest = regs[0].kind;
    r.dest_reg = regs[0].reg;
    r.dest_value = regs[0].value;
    r.more_count = static_cast<uint8_t>(n - 1);
    for (unsigned i = 1; i < n; ++i) r.more[i - 1] = regs[i];
  }
  // The stored bytes are read back from SRAM: a pair's fs may be among the registers its
  // load overwrote.
  const uint8_t* const base = sram.data();
  if (w.load_bytes) {
    r.mem_size = w.load_bytes;
    r.mem_addr = w.load_addr;
    if (w.store_bytes) {
      r.store2_size = w.store_bytes;
      r.store2_addr = w.store_addr;
      std::memcpy(r.store2_data, base + (w.store_addr - kSramBase), w.store_bytes);
    }
  } else {
    r.mem_size = w.store_bytes;
    r.mem_store = true;
    r.mem_addr = w.store_addr;
    std::memcpy(r.mem_data, base + (w.store_addr - kSramBase), w.store_bytes);
    std::memcpy(&r.mem_value, r.mem_data, 4);
  }
}

// A vector op's results: its first f register as dest, the others (a pair's second, a
// quad's last three) in `more`.
static void record_vector(RetiredInsn& r, Op op, const DecodedInsn& d, const uint32_t* R) {
  const unsigned n = vector_dest_regs(op);
  r.dest = RetiredInsn::Dest::F;
  r.dest_reg = static_cast<uint8_t>(d.rd - kFReg0);
  r.dest_value = R[d.rd];
  r.more_count = static_cast<uint8_t>(n - 1);
  for (unsigned i = 1; i < n; ++i)
    r.more[i - 1] = {RetiredInsn::Dest::F, static_cast<uint8_t>(d.rd - kFReg0 + i), R[d.rd + i]};
}

void CoreState::trace_retired(const Thread& t, const DecodedInsn* ip, uint64_t cycle, uint32_t rs1_before) {
  const uint32_t* R = t.hart.regs;
  const Op op = code().ops[code().index_of(ip)];
  RetiredInsn r;
  r.thread = t.id;
  r.cycle = cycle;
  r.pc = pc_of(ip);
  r.insn = word_at(ip);
  if (writes_rd(op) && ip->rd != kSinkReg) {
    r.dest = ip->rd < kSinkReg ? RetiredInsn::Dest::X : RetiredInsn::Dest::F;
    r.dest_reg = static_cast<uint8_t>(ip->rd < kSinkReg ? ip->rd : ip->rd - kFReg0);
    r.dest_value = R[ip->rd];
  }
  if (const unsigned size = mem_bytes(op)) {
    r.mem_size = static_cast<uint8_t>(size);
    r.mem_store = is_store(op);
    // The decoder biased the immediate by the base of the fast path's range (interp.cpp).
    r.mem_addr = rs1_before + static_cast<uint32_t>(ip->imm) + (r.mem_store ? code().store_lo : kSramBase);
    if (r.mem_store) {
      r.mem_value = size == 4 ? R[ip->rs2] : R[ip->rs2] & ((1u << (8 * size)) - 1);
      std::memcpy(r.mem_data, &r.mem_value, size);
    }
  }
  if (is_wide_memory(op)) record_wide(r, op, *ip, R, rs1_before, sram_);
  if (is_vector_fp(op)) record_vector(r, op, *ip, R);
  r.fcsr = R[kFrmReg] << 5 | R[kFflagsReg];
  trace_->retire(params_.id, *program_, r);
}

}  // namespace ipusim::iss
