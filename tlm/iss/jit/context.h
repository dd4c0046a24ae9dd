// What translated code and the driver (run_jit.cpp) share while a quantum runs: the
// context translated code reaches through rbx, and how a region tells the driver why it
// returned. Internal to tlm/iss/jit.
#pragma once

#include <atomic>
#include <cstdint>

#include "iss/interp.h"

namespace ipusim::iss::jit {

// Why translated code returned to the driver.
enum class ExitKind : uint32_t {
  Taken,  // a taken control transfer to exit_index; room already charged (<= 0: budget spent)
  Fall,   // fell through to exit_index, which the interpreter runs (no control transfer)
  Fault,  // the instruction at exit_index faulted; the fault is recorded
};

struct Context {
  // In (the enter stub loads them into callee-saved registers).
  uint32_t* regs = nullptr;           // rbp: the thread's register file (decoded.h layout)
  uint8_t* load_base = nullptr;       // r12: MemView::load_base
  uint8_t* store_base = nullptr;      // r13: MemView::store_base
  int64_t room = 0;                   // r14: budget - instructions retired (in and out)
  Quantum* q = nullptr;               // r15
  uint32_t code_words = 0;            // jalr's target check
  int64_t budget = 0;                 // the quantum's: budget - room = instructions retired
  // While a loop's fast body runs (loop_hoist.cpp): the budget held back from r14, which
  // then counts down the iterations the preheader found in range.
  int64_t loop_stop = 0;
  // Out.
  uint32_t exit_index = 0;
  ExitKind exit_kind = ExitKind::Fall;
};

// The host code of one translated region: entered with the Context in rdi, the region's
// code in rsi; returns when a region exits to the driver.
using EnterFn = void (*)(Context* ctx, const void* code);

}  // namespace ipusim::iss::jit
