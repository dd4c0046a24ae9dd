// The fuzzer's fast_loop_labels(): the run loop (interp.cpp, with amp.cpp) is GCC-only
// code (computed goto tables built by GCC's vector builtins) and never runs in the fuzzer,
// which only loads programs. The loader stores each op's handler address in the decoded
// cache; here each op, and each op's co-issued variant, gets a distinct address of its own.
#include "iss/decoded.h"
#include "iss/interp.h"

namespace ipusim::iss {

const void* const* fast_loop_labels() {
  static char handlers[2 * kOpCount];
  static const void* labels[2 * kOpCount];
  for (unsigned i = 0; i < 2 * kOpCount; ++i) labels[i] = &handlers[i];
  return labels;
}

}  // namespace ipusim::iss
