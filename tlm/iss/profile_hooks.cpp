// A hooked tile's decoded code: a copy of the shared cache whose calls and returns have the
// fast loop's hook handler when the tile is profiled (docs/profiling.md), so the profiler
// hears of them and of nothing else, and whose entries after each write of sp have it when
// the tile's stacks are watched (docs/memory_report.md). The shared caches stay as they
// are: a tile with no hook runs exactly the code it ran before.
#include <mutex>

#include "iss/decoded.h"
#include "iss/interp.h"
#include "iss/program.h"

namespace ipusim::iss {

namespace {

constexpr uint8_t kRa = 1;

ProfileHook hook_of(const DecodedCode& dc, const CodeSymbols& symbols, uint32_t i) {
  const DecodedInsn& d = dc.insns[i];
  switch (dc.ops[i]) {
    case Op::jal:
      return d.rd == kRa ? ProfileHook::call : ProfileHook::none;
    case Op::jalr:
      if (d.rd == kRa) return ProfileHook::call;
      if (d.rd != kSinkReg) return ProfileHook::none;  // a link through another register: no call
      return d.rs1 == kRa ? ProfileHook::ret : ProfileHook::jump;
    case Op::j: {
      // A sibling call: a jump to another function's entry (GCC's tail calls within reach).
      const uint32_t pc = dc.begin + 4 * i;
      const uint32_t target = dc.begin + 4 * static_cast<uint32_t>(i + d.imm / static_cast<int32_t>(sizeof(DecodedInsn)));
      if (!symbols.function_entry(target)) return ProfileHook::none;
      return symbols.function_at(pc) != symbols.function_at(target) ? ProfileHook::tail_call : ProfileHook::none;
    }
    default:
      return ProfileHook::none;
  }
}

// Whether the entry may write sp (x2): its rd is x2, or a wide access may increment x2.
// Too many is harmless (the check at the next entry finds sp unchanged), too few is not.
bool may_write_sp(const DecodedCode& dc, uint32_t i) {
  constexpr uint8_t kSp = 2;
  const DecodedInsn& d = dc.insns[i];
  return d.rd == kSp || (is_wide_memory(dc.ops[i]) && (d.rs1 == kSp || d.rs2 == kSp));
}

// The entries a stack-watched thread may run just after writing sp: the one after each
// entry that may write it (never a jump: the next entry is the next one executed), and
// for the last instruction of an rpt body's copy, where rpt_end follows (no instruction:
// it is never hooked), the two places rpt_end goes on to.
void mark_stack_hooks(const DecodedCode& dc, std::vector<uint8_t>& hooks) {
  const auto size = static_cast<uint32_t>(dc.insns.size());
  for (uint32_t i = 0; i + 1 < size; ++i) {
    if (i == dc.words || !may_write_sp(dc, i)) continue;  // dc.words: the sentinel
    if (dc.ops[i + 1] != Op::rpt_end) {
      hooks[i + 1] |= kStackHook;
      continue;
    }
    const uint32_t body = dc.insns[i + 1].rs2;
    hooks[i + 1 - body] |= kStackHook;  // the copy's first entry
    hooks[dc.origin[i + 1]] |= kStackHook;  // the instruction after the original body
  }
}

std::unique_ptr<DecodedCode> hooked_copy(const DecodedCode& dc, const CodeSymbols& symbols, bool profile, bool stack) {
  auto p = std::make_unique<DecodedCode>();
  p->begin = dc.begin;
  p->words = dc.words;
  p->store_lo = dc.store_lo;
  p->insns = dc.insns;
  p->ops = dc.ops;
  p->raw = dc.raw;
  p->origin = dc.origin;
  p->co_issued = dc.co_issued;
  p->hooks.assign(dc.insns.size(), 0);
  // Calls and returns are never in an rpt body (rpt_body_allowed), so the originals are all.
  if (profile)
    for (uint32_t i = 0; i < dc.words; ++i) p->hooks[i] = static_cast<uint8_t>(hook_of(dc, symbols, i));
  if (stack) mark_stack_hooks(dc, p->hooks);
  const void* const handler = fast_loop_labels()[kHookLabel];
  for (size_t i = 0; i < p->hooks.size(); ++i)
    if (p->hooks[i]) p->insns[i].handler = handler;
  return p;
}

}  // namespace

const DecodedCode& Program::hooked(bool co_issue, bool profile, bool stack) const {
  if (!profile && !stack) return decoded(co_issue);
  std::lock_guard lock(hooked_mutex_);
  std::unique_ptr<DecodedCode>& p = hooked_[co_issue ? 1 : 0][(profile ? 1 : 0) + (stack ? 2 : 0) - 1];
  if (!p) p = hooked_copy(decoded(co_issue), code_symbols_, profile, stack);
  return *p;
}

}  // namespace ipusim::iss
