// What a run measured of one tile's memory (docs/memory_report.md): each thread's stack
// and its lowest sp, the heap's break at the end, and the exchange buffers the tile's
// postings named. The platform fills it from the ISS's memory watch; plain values.
#pragma once

#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

namespace ipusim::memreport {

struct ThreadStack {
  uint32_t thread = 0;         // 0 = supervisor, 1.. = workers
  uint32_t base = 0, top = 0;  // its region [base, top); 0, 0: not known (a worker never started)
  uint32_t lowest_sp = 0;      // 0: it never wrote sp
  // Bytes of its region below top that sp reached: the high-water mark.
  uint32_t high_water() const { return lowest_sp && top && lowest_sp < top ? top - lowest_sp : 0; }
};

struct TileMemory {
  uint32_t ipu = 0, tile = 0;
  uint32_t sram_bytes = 0;
  std::vector<ThreadStack> stacks;       // supervisor, workers 1..
  std::optional<uint32_t> heap_break;    // the runtime's sbrk break at the end (unset: never moved)
  std::optional<uint32_t> heap_limit;    // the runtime's heap limit (wstackbase), as crt0 set it
  std::vector<std::pair<uint32_t, uint32_t>> buffers_in, buffers_out;  // [begin, end), disjoint
  uint64_t posts_in = 0, posts_out = 0;
  bool stack_overflow = false;           // the run stopped on this tile's stack overflow
};

}  // namespace ipusim::memreport
