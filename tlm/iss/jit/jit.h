// The translator's interface to the rest of the ISS (docs/iss.md "Translator (--iss jit)").
// run_jit has exactly the contract of run_loop<false> (interp.h): the same q.ip, q.executed,
// q.slot_adjust, q.exit and faults for every quantum, only faster on translated code.
#pragma once

#include <cstdint>
#include <memory>

#include "iss/interp.h"

namespace ipusim::iss {

struct DecodedCode;

namespace jit {

class CodeCache;

// False where the translator is not built (a host other than x86-64, or no Xbyak): a tile
// asking for it runs the interpreter.
bool available();

// A tile's load and store limits (MemView's, by log2 access size): translated code checks
// against them as immediates, so a translation serves the tiles with the same limits.
struct Limits {
  uint32_t load[3] = {};
  uint32_t store[3] = {};
  bool operator==(const Limits&) const = default;
};

// The translations of one DecodedCode for tiles with `limits`, shared by every such tile
// running it (made on first use, thread-safe). Translates a straight-line region once its
// entry has been reached `hot_entries` times (the first such tile's setting).
std::shared_ptr<CodeCache> cache_for(const DecodedCode& code, uint32_t hot_entries, const Limits& limits);

// What translating cost so far.
struct Stats {
  uint64_t translate_ns = 0;  // steady_clock time spent translating
  uint64_t regions = 0;       // regions translated
  uint64_t code_bytes = 0;    // host code emitted
  uint64_t hoisted_loops = 0;  // loop regions whose bounds checks went to a preheader (loop_hoist.cpp)
};
Stats stats(const CodeCache& cache);

}  // namespace jit

// One quantum of q.thread on translated code (the fast loop's contract). `tile_stats`
// collects the translations this call made.
void run_jit(Quantum& q, jit::CodeCache& cache, jit::Stats& tile_stats);

}  // namespace ipusim::iss
