#include "common/run_state.h"

#include <array>

namespace ipusim {

namespace {

constexpr RunState kNone = RunState(0xFF);

// The transition table: kNext[state][event], kNone where the state does not allow it.
constexpr size_t kStates = 6, kEvents = 7;
using S = RunState;
constexpr std::array<std::array<RunState, kEvents>, kStates> kNext{{
    //            Boot       Start       Pause      WaitStream     Resume      End       Reset
    /* Idle */ {{S::Loaded, kNone, kNone, kNone, kNone, kNone, S::Idle}},
    /* Loaded */ {{S::Loaded, S::Running, kNone, kNone, kNone, kNone, S::Idle}},
    /* Running */ {{kNone, kNone, S::Paused, S::StreamWait, kNone, S::Ended, S::Idle}},
    /* Paused */ {{kNone, kNone, kNone, kNone, S::Running, S::Ended, S::Idle}},
    /* StreamWait */ {{kNone, kNone, kNone, kNone, S::Running, S::Ended, S::Idle}},
    /* Ended */ {{kNone, kNone, kNone, kNone, kNone, kNone, S::Idle}},
}};

std::string message(RunState state, RunEvent event) {
  std::string allowed;
  for (size_t e = 0; e < kEvents; ++e)
    if (RunStateMachine::allowed(state, RunEvent(e))) {
      if (!allowed.empty()) allowed += ", ";
      allowed += event_name(RunEvent(e));
    }
  return std::string("run state: '") + event_name(event) + "' in state '" + state_name(state) + "' (allowed: " +
         allowed + ")";
}

}  // namespace

const char* state_name(RunState state) {
  switch (state) {
    case RunState::Idle: return "idle";
    case RunState::Loaded: return "loaded";
    case RunState::Running: return "running";
    case RunState::Paused: return "paused";
    case RunState::StreamWait: return "stream wait";
    case RunState::Ended: return "ended";
  }
  return "?";
}

const char* event_name(RunEvent event) {
  switch (event) {
    case RunEvent::Boot: return "boot";
    case RunEvent::Start: return "start";
    case RunEvent::Pause: return "pause";
    case RunEvent::WaitStream: return "wait stream";
    case RunEvent::Resume: return "resume";
    case RunEvent::End: return "end";
    case RunEvent::Reset: return "reset";
  }
  return "?";
}

RunStateError::RunStateError(RunState state, RunEvent event)
    : std::logic_error(message(state, event)), state_(state), event_(event) {}

bool RunStateMachine::allowed(RunState state, RunEvent event) {
  return size_t(state) < kStates && size_t(event) < kEvents && kNext[size_t(state)][size_t(event)] != kNone;
}

RunState RunStateMachine::next(RunState state, RunEvent event) {
  if (!allowed(state, event)) throw RunStateError(state, event);
  return kNext[size_t(state)][size_t(event)];
}

void RunStateMachine::take(RunEvent event) {
  state_ = next(state_, event);
  if (event == RunEvent::Reset) booted_ = 0;
}

void RunStateMachine::boot(uint32_t new_tiles) {
  take(RunEvent::Boot);
  booted_ += new_tiles;
}

}  // namespace ipusim
