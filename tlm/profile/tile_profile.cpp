#include "profile/tile_profile.h"

#include <algorithm>

namespace ipusim::profile {

namespace {
constexpr uint64_t kSlots = 6;  // issue slots a tile's threads share round-robin (kIssueSlots)
}

TileProfile::TileProfile(const iss::Program& program, uint32_t ipu, uint32_t tile, uint32_t threads)
    : program_(program), ipu_(ipu), tile_(tile), threads_(threads), states_(threads), open_interval_(threads, 0) {}

uint32_t TileProfile::function_of(uint32_t pc) const {
  const auto at = program_.code_symbols().locate(pc);
  return at ? pc - at->offset : pc;
}

Costs TileProfile::total() const {
  Costs c;
  for (const ThreadProfile& t : threads_) c += t.total;
  return c;
}

// The workers' slot cycles before tile cycle t, summed over every worker's slot and taken
// in sixths of the overlaps together (so the supervisor's share telescopes to the tile's
// cycles less the workers' exactly).
uint64_t TileProfile::worker_cycles_before(uint64_t t) {
  uint64_t sum = 0;
  size_t kept = 0;
  for (const Interval& i : intervals_) {
    if (i.end <= t) {
      passed_ += i.end - i.start;
      continue;
    }
    if (i.start < t) sum += t - i.start;
    if (i.end == ~uint64_t{0}) open_interval_[i.thread] = kept;
    intervals_[kept++] = i;
  }
  intervals_.resize(kept);
  return (passed_ + sum) / kSlots;
}

void TileProfile::charge(uint32_t thread, uint64_t cycle, uint64_t instret) {
  State& s = states_[thread];
  Costs c;
  c.instructions = instret - s.instret;
  if (thread == 0) {
    const uint64_t w = worker_cycles_before(cycle);
    c.cycles = (cycle - s.cycle) - (w - s.worker_cycles);
    s.worker_cycles = w;
  } else {
    c.cycles = (cycle - s.cycle) / kSlots;
  }
  s.cycle = cycle;
  s.instret = instret;
  ThreadProfile& p = threads_[thread];
  if (!s.stack.empty()) {
    p.self[s.stack.back().function] += c;
    p.contexts[s.stack.back().context].self += c;
  }
  p.total += c;
}

void TileProfile::push(uint32_t thread, uint32_t function, uint32_t call_pc, bool tail) {
  State& s = states_[thread];
  ThreadProfile& p = threads_[thread];
  const uint32_t parent = s.stack.empty() ? 0 : s.stack.back().context;
  const auto [edge, fresh] = s.children.try_emplace({parent, call_pc, function}, uint32_t(p.contexts.size()));
  if (fresh) p.contexts.push_back(Context{parent, function, call_pc, {}});
  s.stack.push_back(Frame{function, call_pc, edge->second, p.total, tail});
  ++s.active[function];
}

void TileProfile::pop(uint32_t thread) {
  State& s = states_[thread];
  ThreadProfile& p = threads_[thread];
  const Frame f = s.stack.back();
  s.stack.pop_back();
  Costs inclusive = p.total;
  inclusive.cycles -= f.at_entry.cycles;
  inclusive.instructions -= f.at_entry.instructions;
  if (--s.active[f.function] == 0) p.inclusive[f.function] += inclusive;
  if (!s.stack.empty()) {
    CallCosts& call = p.calls[{s.stack.back().function, f.call_pc, f.function}];
    ++call.calls;
    call.inclusive += inclusive;
  }
}

void TileProfile::event(const iss::ProfileEvent& e) {
  using Kind = iss::ProfileEvent::Kind;
  if (e.thread >= states_.size()) return;
  State& s = states_[e.thread];
  switch (e.kind) {
    case Kind::start:
      while (!s.stack.empty()) pop(e.thread);
      s.active.clear();
      s.cycle = e.cycle;
      s.instret = e.instret;
      threads_[e.thread].ran = true;
      if (e.thread == 0) {
        s.worker_cycles = worker_cycles_before(e.cycle);
      } else {
        open_interval_[e.thread] = intervals_.size();
        intervals_.push_back(Interval{e.cycle, ~uint64_t{0}, e.thread});
      }
      push(e.thread, function_of(e.target), e.target, false);
      return;
    case Kind::call:
      charge(e.thread, e.cycle, e.instret);
      push(e.thread, function_of(e.target), e.pc, false);
      return;
    case Kind::jump:
      // Through a register: a tail call when it lands on another function's entry, else
      // a jump within the function (a switch's table).
      if (!program_.code_symbols().function_entry(e.target) || s.stack.empty() ||
          s.stack.back().function == e.target)
        return;
      [[fallthrough]];
    case Kind::tail_call:
      charge(e.thread, e.cycle, e.instret);
      push(e.thread, function_of(e.target), e.pc, true);
      return;
    case Kind::ret: {
      charge(e.thread, e.cycle, e.instret);
      bool tail = true;
      while (tail && !s.stack.empty()) {
        tail = s.stack.back().tail;
        pop(e.thread);
      }
      // Returned from the thread's first function (a worker into the runtime's wexit):
      // what runs next is a new outermost function.
      if (s.stack.empty()) push(e.thread, function_of(e.target), e.target, false);
      return;
    }
    case Kind::end:
      charge(e.thread, e.cycle, e.instret);
      while (!s.stack.empty()) pop(e.thread);
      if (e.thread != 0) intervals_[open_interval_[e.thread]].end = e.cycle;
      return;
  }
}

}  // namespace ipusim::profile
