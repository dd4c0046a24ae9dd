// What a profiled tile tells its profiler (docs/profiling.md): each thread's start and end,
// and its calls and returns, each with the thread's clock and instructions retired just
// after that instruction. Nothing between them: the profiler charges what a thread did
// between two events to the function on top of its stack, so the run loops report only
// calls and returns (a profiled tile's DecodedCode::hooks), never per instruction.
#pragma once

#include <cstdint>

#include "iss/decoded.h"

namespace ipusim::iss {

struct ProfileEvent {
  enum class Kind : uint8_t {
    start,      // a thread starts at `target` (the supervisor at reset, a worker at `run`)
    call,       // a call at `pc` to `target`
    ret,        // a return at `pc` to `target`
    jump,       // jalr x0 at `pc` through a register other than ra, to `target`
    tail_call,  // j at `pc` to `target`, the entry of another function
    end,        // the thread ended (a worker's wexit, the supervisor's halt)
  };
  Kind kind = Kind::start;
  uint32_t thread = 0;   // 0 = supervisor, 1.. = workers
  uint32_t pc = 0, target = 0;
  uint64_t cycle = 0;    // the thread's clock after the instruction (its next issue cycle)
  uint64_t instret = 0;  // the thread's instructions retired, the instruction included
};

// Given to a TileCore with TileCore::set_profile; called on the tile's host thread.
class ProfileSink {
 public:
  virtual ~ProfileSink() = default;
  virtual void event(const ProfileEvent& e) = 0;
};

}  // namespace ipusim::iss
