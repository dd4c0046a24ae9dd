// The translator's run loop: one quantum with the fast loop's contract (interp.h), over
// translated regions where there are translations and the interpreter elsewhere.
//
// Accounting as in the fast loop: the budget is checked only at taken control transfers
// (translated code charges Context::room there), so a quantum ends at exactly the
// instruction the interpreter's would. Code without a translation runs in run_loop<false>
// one block at a time: with a budget of 1 it returns at its first taken transfer (every
// block retires at least one instruction before it: a block never starts on rpt_end,
// which the driver runs itself), where the driver checks the real budget.
#include <algorithm>
#include <cstdint>
#include <limits>

#include "iss/core_state.h"
#include "iss/jit/code_cache.h"
#include "iss/jit/jit.h"

namespace ipusim::iss {

namespace {

// Runs the interpreter from q.ip to its first taken control transfer (or an event, a
// fault, a full console). Services read the quantum's progress from `executed`, which the
// interpreter counts from this call's start: the instructions retired before it are lent
// to the thread's instret and the slot adjust for the call, so CSR reads and exchange
// postings see the same cycle and instret as in one interpreted quantum.
void interpret_block(Quantum& q, uint64_t done, uint64_t budget) {
  Thread& t = *q.thread;
  // A quantum of budget 0 ends after a console instruction too (L_cputc): keep it 0.
  q.budget = budget == 0 ? 0 : 1;
  t.instret += done;
  q.slot_adjust += static_cast<int64_t>(done);
  run_loop<false>(q);
  t.instret -= done;
  q.slot_adjust -= static_cast<int64_t>(done);
}

}  // namespace

void run_jit(Quantum& q, jit::CodeCache& cache, jit::Stats& tile_stats) {
  const MemView& M = *q.mem;
  uint32_t* const R = thread_regs(*q.thread);
  const uint64_t budget = q.budget;
  const auto room_max = static_cast<uint64_t>(std::numeric_limits<int64_t>::max());

  jit::Context ctx;
  ctx.regs = R;
  ctx.load_base = M.load_base;
  ctx.store_base = M.store_base;
  ctx.q = &q;
  ctx.code_words = M.code_words;
  ctx.budget = static_cast<int64_t>(std::min(budget, room_max));
  const jit::EnterFn enter = cache.enter();

  const DecodedInsn* ip = q.ip;
  uint64_t done = 0;  // instructions retired in this quantum before ip
  auto finish = [&](LoopExit exit) {
    q.ip = ip;
    q.executed = done;
    q.exit = exit;
  };
  for (;;) {
    const auto index = static_cast<uint32_t>(ip - M.code);
    if (M.ops[index] == Op::rpt_end) {
      // No instruction (L_rpt_end): loops back to the body's copy or leaves after the
      // original body; a taken transfer that retires nothing.
      ip = --R[kRptCountReg] != 0 ? ip - ip->rs2
                                  : reinterpret_cast<const DecodedInsn*>(reinterpret_cast<const char*>(ip) + ip->imm);
      if (done >= budget) return finish(LoopExit::Budget);
      continue;
    }
    const void* region = cache.translation(index);
    if (region == nullptr && !cache.interpreted(index)) region = cache.count_entry(index, tile_stats);
    if (region != nullptr) {
      ctx.room = ctx.budget - static_cast<int64_t>(std::min(done, room_max));
      enter(&ctx, region);
      done = static_cast<uint64_t>(ctx.budget - ctx.room);
      ip = M.code + ctx.exit_index;
      switch (ctx.exit_kind) {
        case jit::ExitKind::Taken:
          if (ctx.room <= 0) return finish(LoopExit::Budget);
          continue;
        case jit::ExitKind::Fall:
          continue;
        case jit::ExitKind::Fault:
          return finish(LoopExit::Fault);
      }
    }
    q.ip = ip;
    interpret_block(q, done, budget);
    const bool console_full = q.budget == 0;  // loop_console asks for the quantum's end (or budget 0)
    q.budget = console_full ? 0 : budget;
    ip = q.ip;
    done += q.executed;
    if (q.exit != LoopExit::Budget) return finish(q.exit);
    if (console_full || done >= budget) return finish(LoopExit::Budget);
  }
}

}  // namespace ipusim::iss
