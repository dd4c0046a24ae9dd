// The paired-f32 / quad-f16 arithmetic (docs/xipu.md "Vector arithmetic"). FOUNDATION
// STUB: replaced by the implementation.
#include "iss/interp.h"

namespace ipusim::iss {

bool loop_vector_fp(Quantum& q, const DecodedInsn* ip) {
  loop_fault(q, ip);
  return false;
}

}  // namespace ipusim::iss
