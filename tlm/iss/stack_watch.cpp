// The stack watch (docs/memory_report.md): a watched tile runs the Program's code hooked
// after every instruction that may write sp (profile_hooks.cpp), and there, before the next
// instruction executes, the thread's sp is compared with its stack region. The lowest sp
// each context had is its stack's high-water mark; an sp below its region is a `stack
// overflow` fault at once, before any store through it. Both engines run the hooked
// entries in the interpreter (the translator ends its regions before them), so their
// figures and faults are the same.
#include <fmt/format.h>

#include <algorithm>

#include "iss/core_state.h"
#include "iss/disasm.h"

namespace ipusim::iss {

namespace {
constexpr unsigned kSp = 2;
}

CoreState::Hooks& CoreState::hooks() {
  if (!hooks_) hooks_ = std::make_unique<Hooks>();
  return *hooks_;
}

void CoreState::watch_memory(uint32_t supervisor_stack_bytes) {
  hooks().watch = std::make_unique<MemoryWatch>();
  hooks_->watch->supervisor_stack_bytes = supervisor_stack_bytes;
  use_hooks();
}

StackUse CoreState::stack_use(uint32_t thread) const { return watch() ? watch()->stacks[thread] : StackUse{}; }

const BufferUse& CoreState::buffer_use() const {
  static const BufferUse none;
  return watch() ? watch()->buffers : none;
}

// The supervisor's region is known from the start: the top of the SRAM, where crt0 puts sp.
void CoreState::reset_stacks() {
  MemoryWatch& w = *watch();
  w.stacks = {};
  w.buffers = {};
  const uint32_t top = kSramBase + params_.sram_bytes;
  if (w.supervisor_stack_bytes > 0 && w.supervisor_stack_bytes <= params_.sram_bytes)
    w.stacks[0] = StackUse{top - w.supervisor_stack_bytes, top, 0};
}

// A worker's block, where the scheduler puts its sp (wstackbase + id x wstacksize). Its
// lowest sp is kept over its starts: the context's high-water mark for the run.
void CoreState::start_stack(const Thread& w) {
  StackUse& s = watch()->stacks[w.id];
  if (wstack_size_ == 0) return;  // no layout: its lowest sp only
  s.top = wstack_base_ + w.id * wstack_size_;
  s.base = s.top - wstack_size_;
}

std::string CoreState::stack_region_name(uint32_t addr) const {
  for (uint32_t i = 0; i < thread_count(); ++i) {
    const StackUse& s = watch()->stacks[i];
    if (s.top != 0 && addr >= s.base && addr < s.top)
      return i == 0 ? std::string("the supervisor's stack") : fmt::format("worker {}'s stack", i);
  }
  if (wstack_size_ != 0 && addr >= wstack_base_ && addr < wstack_base_ + params_.workers * wstack_size_)
    return fmt::format("worker {}'s stack", (addr - wstack_base_) / wstack_size_ + 1);
  const std::optional<uint32_t> heap = program_->symbol("__heap_start");
  if (heap && addr >= *heap && (wstack_size_ == 0 || addr < wstack_base_)) return "the heap";
  if (addr >= kSramBase && heap && addr < *heap) return "the program's code and data";
  return addr < kSramBase ? "below the SRAM" : "another region";
}

// The union of ranges stays short: a tile's buffers are few, or neighbours that merge.
void CoreState::note_buffer(ExchangePost::Kind kind, uint32_t addr, uint32_t len) {
  if (len == 0) return;
  const bool in = kind == ExchangePost::Kind::Recv || kind == ExchangePost::Kind::SmemRead ||
                  kind == ExchangePost::Kind::StreamRead;
  BufferUse& b = watch()->buffers;
  std::vector<std::pair<uint32_t, uint32_t>>& ranges = in ? b.in : b.out;
  (in ? b.posts_in : b.posts_out) += 1;
  uint32_t begin = addr, end = addr + len;
  // The first range that ends at or after `begin` and those after it that start by `end`
  // merge with [begin, end).
  auto first = std::lower_bound(ranges.begin(), ranges.end(), begin,
                                [](const std::pair<uint32_t, uint32_t>& r, uint32_t b) { return r.second < b; });
  auto last = first;
  while (last != ranges.end() && last->first <= end) {
    begin = std::min(begin, last->first);
    end = std::max(end, last->second);
    ++last;
  }
  first = ranges.erase(first, last);
  ranges.insert(first, {begin, end});
}

bool CoreState::check_stack(Quantum& q, const DecodedInsn* ip) {
  const Thread& t = *q.thread;
  const uint32_t sp = t.hart.regs[kSp];
  StackUse& s = watch()->stacks[t.id];
  if (s.lowest_sp != 0 && sp >= s.lowest_sp) return true;
  s.lowest_sp = sp;
  if (s.top == 0 || sp >= s.base) return true;
  // sp went lower since the thread's last check, so the instruction it ran last (the one
  // before this entry) moved it.
  const uint32_t pc = pc_of(ip);
  const DecodedInsn* writer = entry_for(pc - 4);
  const std::string moved =
      writer ? fmt::format(" after `{}` at 0x{:08x}", disassemble(word_at(writer), pc - 4), pc - 4) : std::string();
  const std::string whose = t.id == 0 ? std::string("the supervisor's") : fmt::format("worker {}'s", t.id);
  raise(t, ip, "stack overflow",
        fmt::format("sp 0x{:08x}{} is {} bytes below {} stack [0x{:08x}, 0x{:08x}) ({} bytes), in {}; stopped before "
                    "anything is stored there",
                    sp, moved, s.base - sp, whose, s.base, s.top, s.top - s.base, stack_region_name(sp)),
        sp);
  return false;
}

}  // namespace ipusim::iss
