// The fuzzer's fast_loop_labels(): the run loop (interp.cpp, with amp.cpp) is GCC-only
// code (computed goto tables built by GCC's vector builtins) and never runs in the fuzzer,
// which only loads programs. The loader stores each op's handler address in the decoded
// cache; here each op, each op's co-issued variant and the co-issued jump-target handler
// get a distinct address of their own.
#include "iss/decoded.h"
#include "iss/interp.h"

namespace ipusim::iss {

const void* const* fast_loop_labels() {
  static char handlers[kFastLoopLabels];
  static const void* labels[kFastLoopLabels];
  for (unsigned i = 0; i < kFastLoopLabels; ++i) labels[i] = &handlers[i];
  return labels;
}

}  // namespace ipusim::iss
