// rpt at load time: checking each body and appending the copies the run loop repeats.
//
// A legal `rpt rs1, size` at index i gets, after the decoded array's sentinel, a copy of
// its body (entries i+1 .. i+size) followed by an rpt_end entry. The rpt's handler jumps
// to the copy; rpt_end counts the iteration and jumps back to the copy's start or on to
// i+1+size. The original body stays as it was: code that jumps into it runs it as plain
// code. Copies keep their original's op and word, and DecodedCode::origin maps them back
// to its index, so nothing outside the run loop sees them. Every per-entry array of
// DecodedCode is extended here, entry for entry: an array added to it must be too (its
// values computed on the original words, before this runs).
#include "iss/rpt_copies.h"

namespace ipusim::iss {

bool rpt_body_allowed(Op op) {
  switch (op) {
    case Op::fetch_fault:  // not code: check_rpt_body reports it as running past the end
    case Op::beq: case Op::bne: case Op::blt: case Op::bge: case Op::bltu: case Op::bgeu:
    case Op::branch_far: case Op::jal: case Op::j: case Op::jal_far: case Op::jalr:
    case Op::rpt: case Op::rpt_end: case Op::rpt_illegal:
    case Op::ecall: case Op::ebreak:
    case Op::xrun: case Op::xjoin: case Op::xwexit: case Op::xhalt: case Op::xsync:
    case Op::cputc: case Op::cwrite:
    case Op::xdst: case Op::xsend: case Op::xsrc: case Op::xrecv: case Op::xwait:
    case Op::smaddr: case Op::smread: case Op::smwrite: case Op::hsid: case Op::hsread: case Op::hswrite:
      return false;
    default:
      return true;
  }
}

RptBodyCheck check_rpt_body(const DecodedCode& dc, uint32_t index) {
  RptBodyCheck c;
  const uint32_t size = dc.insns[index].rs2;
  for (uint32_t k = index + 1; k <= index + size; ++k) {
    // A word past the code, or in a gap between executable segments, is no instruction.
    if (k >= dc.words || dc.ops[k] == Op::fetch_fault) return {RptBodyCheck::Problem::past_end, k};
    if (!rpt_body_allowed(dc.ops[k])) return {RptBodyCheck::Problem::not_allowed, k};
  }
  return c;
}

void add_rpt_copies(DecodedCode& dc, const void* const* labels) {
  const auto entry_bytes = static_cast<int32_t>(sizeof(DecodedInsn));
  for (uint32_t i = 0; i < dc.words; ++i) {
    if (dc.ops[i] != Op::rpt) continue;
    if (check_rpt_body(dc, i).problem != RptBodyCheck::Problem::none) {
      dc.ops[i] = Op::rpt_illegal;
      dc.insns[i].handler = labels[static_cast<unsigned>(Op::rpt_illegal)];
      continue;
    }
    const uint32_t size = dc.insns[i].rs2;
    const auto copy = static_cast<uint32_t>(dc.insns.size());
    dc.insns[i].imm = static_cast<int32_t>(copy - i) * entry_bytes;
    for (uint32_t k = i + 1; k <= i + size; ++k) {
      DecodedInsn e = dc.insns[k];
      // An AMP instruction's "the next one is AMP too" (program.cpp): the copy's last is
      // followed by rpt_end, so its run ends there.
      if (is_amp(dc.ops[k]) && k == i + size) e.rs3 = 0;
      dc.insns.push_back(e);
      dc.ops.push_back(dc.ops[k]);
      dc.raw.push_back(dc.raw[k]);
      dc.origin.push_back(k);
    }
    const uint32_t after = i + 1 + size;  // the instruction after the original body
    const auto end = static_cast<uint32_t>(dc.insns.size());
    DecodedInsn e{labels[static_cast<unsigned>(Op::rpt_end)], (static_cast<int32_t>(after) - static_cast<int32_t>(end)) * entry_bytes,
                  0, 0, static_cast<uint8_t>(size), 0};
    dc.insns.push_back(e);
    dc.ops.push_back(Op::rpt_end);
    dc.raw.push_back(0);
    dc.origin.push_back(after);
  }
}

}  // namespace ipusim::iss
