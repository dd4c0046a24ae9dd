// Counts the heap bytes a program holds, as the allocator sees them: every operator new /
// delete of the program goes through here (the replacements are in alloc_meter.cpp), and
// each block counts its usable size plus malloc's chunk header, so a 4-byte vector costs
// the 32 bytes it really takes, not 4.
#pragma once

#include <cstddef>

namespace ipusim::bench {

struct AllocMeter {
  static size_t current();    // bytes held now
  static size_t peak();       // most bytes held since the last reset_peak()
  static void reset_peak();   // peak = current
};

}  // namespace ipusim::bench
