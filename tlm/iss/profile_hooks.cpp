// A profiled tile's decoded code (docs/profiling.md): a copy of the shared cache whose
// calls and returns have the fast loop's profile handler, so the profiler hears of them
// and of nothing else. The shared caches stay as they are: a tile that is not profiled
// runs exactly the code it ran before.
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

std::unique_ptr<DecodedCode> profiled_copy(const DecodedCode& dc, const CodeSymbols& symbols) {
  auto p = std::make_unique<DecodedCode>();
  p->begin = dc.begin;
  p->words = dc.words;
  p->store_lo = dc.store_lo;
  p->insns = dc.insns;
  p->ops = dc.ops;
  p->raw = dc.raw;
  p->origin = dc.origin;
  p->co_issued = dc.co_issued;
  p->profile_hooks.assign(dc.insns.size(), 0);
  const void* const handler = fast_loop_labels()[kProfileLabel];
  // Calls and returns are never in an rpt body (rpt_body_allowed), so the originals are all.
  for (uint32_t i = 0; i < dc.words; ++i) {
    const ProfileHook h = hook_of(dc, symbols, i);
    if (h == ProfileHook::none) continue;
    p->profile_hooks[i] = static_cast<uint8_t>(h);
    p->insns[i].handler = handler;
  }
  return p;
}

}  // namespace

const DecodedCode& Program::profiled(bool co_issue) const {
  std::lock_guard lock(profiled_mutex_);
  std::unique_ptr<DecodedCode>& p = profiled_[co_issue ? 1 : 0];
  if (!p) p = profiled_copy(decoded(co_issue), code_symbols_);
  return *p;
}

}  // namespace ipusim::iss
