// The generated rows (xipu_ops.inc, xipu_csrs.inc) and linear lookups over them: the
// tables are a few dozen rows and are searched at load (decode) and on rare paths only.
#include "iss/isa_table.h"

#include <ipu/xipu_isa.h>

namespace ipusim::iss::isa {
namespace {

constexpr XipuInsn kXipuInsns[] = {
#include "iss/xipu_ops.inc"
};

constexpr Csr kCsrs[] = {
#include "iss/xipu_csrs.inc"
};

bool operands_in_range(const XipuInsn& x, uint32_t word) {
  for (unsigned i = 0; i < x.count; ++i) {
    const Operand& o = x.operands[i];
    const uint32_t v = operand_value(o, word);
    if ((o.below != 0 && v >= o.below) || v < o.min) return false;
    if ((o.kind == Kind::fpair && v % 2 != 0) || (o.kind == Kind::fquad && v % 4 != 0)) return false;
  }
  return true;
}

}  // namespace

const XipuInsn* find_xipu(uint32_t word) {
  for (const XipuInsn& x : kXipuInsns)
    if ((word & x.mask) == x.match) return operands_in_range(x, word) ? &x : nullptr;  // encodings never overlap (isagen checks)
  return nullptr;
}

std::span<const Csr> csrs() { return kCsrs; }

const Csr* find_csr(uint32_t number) {
  for (const Csr& c : kCsrs)
    if (c.number == number) return &c;
  return nullptr;
}

}  // namespace ipusim::iss::isa
