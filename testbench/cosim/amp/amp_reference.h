// The ISS's AMP (tlm/iss/amp_math.h) on one operand set: the reference the RTL array is
// held to, bit for bit.
#pragma once

#include <cstdint>
#include <vector>

#include "amp_operands.h"

namespace ipusim::cosim::amp_test {

// The bank's accumulators after the amp.mac, as amp.st stores them (NaNs canonical).
std::vector<uint32_t> iss_mac(const MacOperands& m);

}  // namespace ipusim::cosim::amp_test
