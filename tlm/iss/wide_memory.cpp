// The wide loads and stores (docs/xipu.md "Wide loads and stores"). FOUNDATION STUB:
// replaced by the implementation.
#include "iss/interp.h"

namespace ipusim::iss {

bool loop_wide_memory(Quantum& q, const DecodedInsn* ip) {
  loop_fault(q, ip);
  return false;
}

}  // namespace ipusim::iss
