// The zero-overhead repeat at load time (ISS-internal; docs/iss.md "Zero-overhead loops"):
// which rpt bodies are legal, and the copies of the legal ones that the run loop repeats.
#pragma once

#include <cstdint>

#include "iss/decoded.h"

namespace ipusim::iss {

// Whether an instruction may be in a rpt body: everything but control transfers, rpt,
// ecall / ebreak and the Xipu thread, sync, exchange, console and streaming instructions.
bool rpt_body_allowed(Op op);

// What is wrong with the body of the rpt at code index `index`.
struct RptBodyCheck {
  enum class Problem : uint8_t { none, past_end, not_allowed } problem = Problem::none;
  uint32_t at = 0;  // past_end / not_allowed: the index of the first body word that is wrong
};
RptBodyCheck check_rpt_body(const DecodedCode& dc, uint32_t index);

// For every rpt of dc's words: a legal one gets a copy of its body and an rpt_end entry
// appended to the decoded arrays (and its imm pointing at the copy); an illegal one
// becomes rpt_illegal. `labels`: the fast loop's handler addresses.
void add_rpt_copies(DecodedCode& dc, const void* const* labels);

}  // namespace ipusim::iss
