// The target description gdb reads with qXfer:features:read:target.xml: an RV32IMF tile
// thread, numbered as debug_target.h's register numbers (x0..x31 = 0..31, pc = 32,
// f0..f31 = 33..64, CSR n = 65 + n). One self-contained file, no <xi:include>, so gdb
// needs a single transfer and no other annex exists.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "debug/debug_target.h"

namespace ipusim::debug {

// The whole document: architecture riscv:rv32 and the features org.gnu.gdb.riscv.cpu,
// .fpu (with fflags / frm / fcsr at 66..68, as gdb's own 32bit-fpu.xml) and .csr (every
// other CSR of `csrs`, by the target's names).
std::string target_xml(const std::vector<DebugTarget::CsrDesc>& csrs);

// The registers target_xml() describes, for `p` / `P` / `g` bounds: true if `regno` is
// one of them.
bool described_register(const std::vector<DebugTarget::CsrDesc>& csrs, uint32_t regno);

// A qXfer read window of a document ("offset,length" already parsed): "m" + part while
// more follows, "l" + part for the last one (gdb's qXfer reply convention).
std::string xfer_window(std::string_view document, uint64_t offset, uint64_t length);

}  // namespace ipusim::debug
