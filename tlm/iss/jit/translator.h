// One region of decoded instructions into x86-64 code (translator.cpp; docs/iss.md
// "Translator (--iss jit)"). Internal to tlm/iss/jit.
#pragma once

#include <atomic>
#include <cstdint>

#include <xbyak/xbyak.h>

#include "iss/decoded.h"
#include "iss/jit/jit.h"

namespace ipusim::iss::jit {

struct RegionSite {
  const DecodedCode& code;
  const Limits& limits;                     // the bounds checks' limits
  const std::atomic<const void*>* entries;  // the cache's table: chaining to other regions
  const void* leave;                        // the common exit to the driver
};

// Emits the region starting at entry `start` at the assembler's current position and
// returns its address, or nullptr when the region would be empty (the first instruction
// is one the interpreter runs). `hoisted` says whether the region is a loop whose bounds
// checks went to its preheader (loop_hoist.cpp). Throws Xbyak::Error when the arena is full.
const void* translate_region(Xbyak::CodeGenerator& g, const RegionSite& site, uint32_t start, bool& hoisted);

// True for the ops translate_region emits natively or as a call to a loop service.
bool translatable(Op op);

}  // namespace ipusim::iss::jit
