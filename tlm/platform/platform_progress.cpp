// Platform::progress: how far a run has got (run_progress.h), from counters the run keeps.
#include <algorithm>

#include "platform/platform.h"

namespace ipusim::platform {

// Between batches no tile computes, so reading the cores here races with nothing. A
// POD16's 23552 tiles take ~0.1 ms, a few times a second.
RunProgress Platform::progress(double host_seconds) const {
  RunProgress p;
  p.host_seconds = host_seconds;
  p.simulated_seconds = double(sim_time_ps()) * 1e-12;
  p.supersteps = accounts_.count();
  p.instructions = total_instructions();
  return p;
}

}  // namespace ipusim::platform
