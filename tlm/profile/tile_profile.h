// One profiled tile (docs/profiling.md): each thread's costs per function and per call
// site, from the ISS's start / call / return / end events (iss/profile_sink.h). What a
// thread does between two events is charged to the function on top of its stack.
//
// A cost is tile cycles and instructions. A worker's cycle is one cycle of the issue slot
// it holds: a sixth of its clock's advance. The supervisor owns every slot no worker
// holds, so its cycles over a stretch are its clock's advance less the workers' slot
// cycles in it. So a tile's threads add up to its cycles exactly.
#pragma once

#include <cstdint>
#include <map>
#include <tuple>
#include <vector>

#include "iss/profile_sink.h"
#include "iss/program.h"

namespace ipusim::profile {

struct Costs {
  uint64_t cycles = 0, instructions = 0;
  Costs& operator+=(const Costs& o) {
    cycles += o.cycles;
    instructions += o.instructions;
    return *this;
  }
};

struct CallCosts {
  uint64_t calls = 0;
  Costs inclusive;  // of the callee, from the call to its return
};

// A calling context: a function reached through one chain of calls from the thread's
// outermost function (pprof's samples are these stacks). contexts[0] is the root, above
// every outermost function.
struct Context {
  uint32_t parent = 0;    // index in ThreadProfile::contexts
  uint32_t function = 0;  // its entry pc
  uint32_t call_pc = 0;   // the call (or tail call) that entered it; an outermost function's entry
  Costs self;             // exclusive costs in this context
};

// One thread's profile; functions are named by their entry pc.
struct ThreadProfile {
  std::map<uint32_t, Costs> self;       // exclusive, per function
  std::map<uint32_t, Costs> inclusive;  // per function, its outermost activations only (recursion counted once)
  // (caller's entry, call pc, callee's entry) -> calls and the callee's inclusive costs
  std::map<std::tuple<uint32_t, uint32_t, uint32_t>, CallCosts> calls;
  std::vector<Context> contexts{Context{}};  // the calling-context tree, [0] the root
  Costs total;
  bool ran = false;
};

class TileProfile : public iss::ProfileSink {
 public:
  TileProfile(const iss::Program& program, uint32_t ipu, uint32_t tile, uint32_t threads);
  void event(const iss::ProfileEvent& e) override;

  uint32_t ipu() const { return ipu_; }
  uint32_t tile() const { return tile_; }
  const iss::Program& program() const { return program_; }
  const std::vector<ThreadProfile>& threads() const { return threads_; }
  Costs total() const;
  // The entry of the function holding `pc` (pc itself where no symbol holds it).
  uint32_t function_of(uint32_t pc) const;

 private:
  struct Frame {
    uint32_t function = 0, call_pc = 0;
    uint32_t context = 0;  // in ThreadProfile::contexts
    Costs at_entry;     // the thread's total when the frame opened
    bool tail = false;  // entered by a tail call: leaves with the frame below it
  };
  struct State {
    std::vector<Frame> stack;
    uint64_t cycle = 0, instret = 0;  // at the last event
    uint64_t worker_cycles = 0;       // supervisor: the workers' slot cycles up to `cycle`
    std::map<uint32_t, uint32_t> active;  // function -> frames of it on the stack
    // (parent context, call pc, function) -> its context: the tree's edges
    std::map<std::tuple<uint32_t, uint32_t, uint32_t>, uint32_t> children;
  };
  struct Interval {  // a worker's issue slot, [start, end)
    uint64_t start = 0, end = ~uint64_t{0};
    uint32_t thread = 0;
  };

  void charge(uint32_t thread, uint64_t cycle, uint64_t instret);
  void push(uint32_t thread, uint32_t function, uint32_t call_pc, bool tail);
  void pop(uint32_t thread);
  uint64_t worker_cycles_before(uint64_t t);

  const iss::Program& program_;
  uint32_t ipu_, tile_;
  std::vector<ThreadProfile> threads_;
  std::vector<State> states_;
  // The workers' slots the supervisor has not passed the end of; those it has are summed
  // in passed_ (the supervisor's clock only grows).
  std::vector<Interval> intervals_;
  uint64_t passed_ = 0;
  std::vector<size_t> open_interval_;  // per thread: its interval in intervals_
};

}  // namespace ipusim::profile
