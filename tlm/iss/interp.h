// The run loop's interface (ISS-internal): one thread's registers, the tile's memory fast
// path, and what a quantum of one thread takes and returns. The loop itself (interp.cpp)
// is a single function using computed goto; everything rare (CSRs, console, slow stores,
// faults, exact FP) is an out-of-line call into the tile (the loop_* functions below).
#pragma once

#include <cstdint>

#include "iss/decoded.h"

namespace ipusim::iss {

class CoreState;
struct Thread;
struct Quantum;

// A thread's architectural registers, in the layout of decoded.h (x, sink, f, frm, fflags).
struct Hart {
  alignas(64) uint32_t regs[kRegCount] = {};
};

// The tile's memory as the fast path sees it: one unsigned compare per access checks
// bounds and alignment together (the offset is rotated right by log2(size), so a
// misaligned offset becomes huge). Stores test the range [store_lo, SRAM end), which
// leaves the code below it read-only; anything failing a check takes the slow path.
bool loop_amp(Quantum& q, const DecodedInsn* ip);

struct MemView {
  uint8_t* load_base = nullptr;   // host address of SRAM_BASE
  uint8_t* store_base = nullptr;  // host address of DecodedCode::store_lo
  uint32_t load_limit[3] = {};    // SRAM bytes >> 0, 1, 2
  uint32_t store_limit[3] = {};   // (SRAM end - store_lo) >> 0, 1, 2
  const DecodedInsn* code = nullptr;
  const Op* ops = nullptr;
  const uint8_t* co_issued = nullptr;  // DecodedCode::co_issued (the stepping loop)
  uint32_t code_words = 0;
  uintptr_t pc_key = 0;  // pc = (uintptr_t(ip) - pc_key) >> 2
  // Every AMP instruction: loop_amp (the ISS's arithmetic), or loop_amp_datapath when the
  // tile has an AMP datapath attached (amp_datapath.h).
  bool (*amp)(Quantum& q, const DecodedInsn* ip) = loop_amp;
  // The wide loads and stores (wide_memory.cpp). Their stores' fast check, for 8 and 16
  // bytes: the store range [store_lo, SRAM end) in units of the access size counted from
  // SRAM_BASE (the first unit rounded up; store_lo itself is only 4-aligned), so that
  // rotr(addr - SRAM_BASE, log2 size) - first < units checks alignment and range at once.
  uint32_t wide_store_first[2] = {}, wide_store_units[2] = {};
  // The issue slots beyond one each wide op takes on this tile (indexed by op - Op::ld64).
  uint8_t wide_extra_slots[static_cast<unsigned>(Op::ld64st64_pi) - static_cast<unsigned>(Op::ld64) + 1] = {};
};

enum class LoopExit : uint8_t {
  Budget,  // the quantum is used up (or the stepping guard refused the next instruction)
  Event,   // ip is an Xipu thread instruction (run/join/wexit/halt/sync/xwait) for the scheduler
  Fault,   // CoreState holds the fault
};

struct Quantum {
  // In.
  CoreState* tile = nullptr;
  Thread* thread = nullptr;
  const MemView* mem = nullptr;
  uint64_t budget = 0;   // instructions; the fast loop checks it at control transfers only
  // Stepping loop: no instruction issues in slot slot_limit or later (a cycle limit: with
  // co-issue and wide accesses, slots and instructions differ).
  uint64_t slot_limit = ~uint64_t{0};
  bool guard = false;    // stepping loop: ask loop_may_issue() before every instruction
  bool probe = false;       // of which: the RunBounds probe sees each instruction
  bool slot_guard = false;  // of which: the supervisor may issue only where a slot is free
                            // and every worker is simulated up to its cycle
  bool trace = false;    // stepping loop: report every retired instruction
  // Stepping loop with trace: rs1's value before the instruction ran (the address of a
  // load whose destination is its own base register is gone after it).
  uint32_t trace_rs1 = 0;
  // In and out: the host's FP status saved by the first amp.mac of a run of AMP
  // instructions, restored after the run's last one (amp.cpp) or, if the quantum ends
  // inside the run, by the scheduler before it collects the host's flags.
  uint32_t amp_saved_fp_status = 0;
  bool amp_fp_saved = false;
  // Out.
  const DecodedInsn* ip = nullptr;  // the next instruction to execute (in and out)
  uint64_t executed = 0;            // instructions retired in this quantum
  // Issue slots beyond one per retired instruction: + the extra slots of an access wider
  // than its memory path takes per cycle, - the co-issued instructions (docs/xipu.md
  // "Timing"). Kept current as the quantum runs: slots(executed) is the slot count so far.
  int64_t slot_adjust = 0;
  uint64_t slots(uint64_t instructions) const { return static_cast<uint64_t>(static_cast<int64_t>(instructions) + slot_adjust); }
  LoopExit exit = LoopExit::Budget;
};

// Runs one quantum of q.thread. Step = false: the fast threaded loop. Step = true: the
// stepping loop (exact per-instruction budget, optional guard and trace).
template <bool Step>
void run_loop(Quantum& q);

// The fast loop's handler addresses (stored in DecodedInsn::handler): [op] the op's
// handler, [kOpCount + op] its variant for the second of a co-issued pair that no jump
// the loader sees enters, [2 x kOpCount] the handler of every second that one may enter
// (interp.cpp, program.cpp).
// [kHookLabel]: a hooked entry (DecodedCode::hooks): a profiled call or return, a stack check.
inline constexpr unsigned kHookLabel = 2 * kOpCount + 1;
inline constexpr unsigned kFastLoopLabels = 2 * kOpCount + 2;
const void* const* fast_loop_labels();

// Out-of-line services of the tile for the loop. `executed` counts the instructions the
// quantum retired before `ip`. A false return means a fault was recorded.
bool loop_csr(Quantum& q, const DecodedInsn* ip, uint64_t executed);
bool loop_console(Quantum& q, const DecodedInsn* ip);
bool loop_store_slow(Quantum& q, const DecodedInsn* ip);
bool loop_fp_exact(Quantum& q, const DecodedInsn* ip);
bool loop_fp_convert(Quantum& q, const DecodedInsn* ip);
uint32_t loop_fp_nan(Quantum& q, const DecodedInsn* ip, FpOp op);
void loop_fault(Quantum& q, const DecodedInsn* ip);  // works out which fault `ip` raises
bool loop_may_issue(Quantum& q, const DecodedInsn* ip, uint64_t executed);
void loop_trace(Quantum& q, const DecodedInsn* ip, uint64_t executed);
// A hooked entry at `ip`, about to execute (DecodedCode::hooks): a profiled call or return
// (profile_sink.h), a stack check; false: the stack check recorded a fault.
bool loop_hook(Quantum& q, const DecodedInsn* ip, uint64_t executed);
bool loop_exchange(Quantum& q, const DecodedInsn* ip, uint64_t executed);  // xdst / send / xsrc / recv, smaddr / smread / smwrite, hsid / hsread / hswrite
// Any AMP instruction: amp.ldw / amp.mac go straight to the arithmetic when the thread
// has its AMP state and the operand is good; everything else (and every fault) takes the
// tile's complete path.
bool loop_amp(Quantum& q, const DecodedInsn* ip);
// The wide loads and stores (ld64 .. ld64st64.pi: wide_memory.cpp) and the paired-f32 /
// quad-f16 arithmetic and conversions (f32v2.add .. f16v4.tof32: vector_fp.cpp).
bool loop_wide_memory(Quantum& q, const DecodedInsn* ip);
bool loop_vector_fp(Quantum& q, const DecodedInsn* ip);
// The same with an AMP datapath attached: every AMP instruction takes the tile's complete
// path, which gives amp.mac's arithmetic to the datapath.
bool loop_amp_datapath(Quantum& q, const DecodedInsn* ip);

}  // namespace ipusim::iss
