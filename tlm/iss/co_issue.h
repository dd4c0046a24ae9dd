// Co-issue (docs/xipu.md "Timing"): which adjacent instruction pairs issue together in one
// slot. Decided once per decoded program (program.cpp), from the decoded operands, when
// the tile's co_issue is on; the run loops then count a paired second instruction that
// was entered by falling through from its first as no slot of its own (interp.cpp).
// ISS-internal; load time only.
#pragma once

#include <cstdint>
#include <vector>

#include "iss/decoded.h"

namespace ipusim::iss {

// What an instruction is to the pairing rule.
enum class IssueClass : uint8_t {
  none,     // never pairs (thread / sync / exchange / console / streaming / AMP, rpt, CSR, ecall, ...)
  integer,  // integer / memory: RV32I ALU, M, loads and stores (flw / fsw too), wide memory ops
  control,  // branches and jumps: integer, but only as the second of a pair
  fp,       // F computational ops and the vector ops
};
IssueClass issue_class(Op op);

// Whether `b`, the instruction after `a`, issues in `a`'s slot (the whole rule but its
// clause (e): entered by falling through, which the run loops check).
bool co_issues(Op a_op, const DecodedInsn& a, Op b_op, const DecodedInsn& b);

// Per entry of `dc` (dc.words + 1 entries): 1 where the entry is the second of a pair
// with the entry before it. Pairs form left to right: a second is no first of another.
std::vector<uint8_t> co_issue_seconds(const DecodedCode& dc);

}  // namespace ipusim::iss
