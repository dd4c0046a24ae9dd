// The run's state machine: which step of a run may follow which, in one place
// (docs/platform.md "How a run proceeds"). The Platform takes its events as its lifecycle
// calls come (boot, start, hold, continue, finish, reset: `ipusim run` once, the host
// interface's RunDomain as the host's commands come); an event a state does not allow is
// a model error, thrown as RunStateError naming the state and the event, never a silent
// no-op. It also counts the tiles booted since the last reset (one count, one reset).
//
//   Idle --boot--> Loaded --boot--> Loaded --start--> Running
//   Running --hold(Paused)--> Paused        Paused / StreamWait --resume--> Running
//   Running --hold(StreamWait)--> StreamWait
//   Running / Paused / StreamWait --end--> Ended
//   any --reset--> Idle
//
// Plain C++ (no SystemC).
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

namespace ipusim {

enum class RunState : uint8_t {
  Idle,        // nothing booted since the last reset
  Loaded,      // tiles booted (or a program loaded onto a selection), no run started
  Running,     // started, or continued
  Paused,      // every IPU holds a sync release: continues at resume
  StreamWait,  // copies wait on host streams: continues at resume, once the host served them
  Ended,       // finished (halted, failed, aborted): nothing but a reset follows
};

enum class RunEvent : uint8_t {
  Boot,        // a tile booted (or a program loaded)
  Start,       // the run starts from the booted state
  Pause,       // the run stops at held sync releases
  WaitStream,  // the run stops with copies waiting on host streams
  Resume,      // a paused run goes on
  End,         // the run is over
  Reset,       // every tile unbooted, the figures cleared
};

const char* state_name(RunState state);  // "idle", "loaded", "running", "paused", "stream wait", "ended"
const char* event_name(RunEvent event);  // "boot", "start", "pause", "wait stream", "resume", "end", "reset"

// An event the state does not allow: "run state: 'start' in state 'ended' (allowed: reset)".
class RunStateError : public std::logic_error {
 public:
  RunStateError(RunState state, RunEvent event);
  RunState state() const { return state_; }
  RunEvent event() const { return event_; }

 private:
  RunState state_;
  RunEvent event_;
};

class RunStateMachine {
 public:
  RunState state() const { return state_; }
  // Whether `state` allows `event`, and the state it leads to (throws RunStateError if
  // not allowed).
  static bool allowed(RunState state, RunEvent event);
  static RunState next(RunState state, RunEvent event);
  bool allows(RunEvent event) const { return allowed(state_, event); }
  // Takes the event: throws RunStateError (and stays) if the state does not allow it.
  void take(RunEvent event);
  // A run is in progress: Running, Paused or StreamWait.
  bool in_run() const {
    return state_ == RunState::Running || state_ == RunState::Paused || state_ == RunState::StreamWait;
  }
  // Boot with `new_tiles` tiles booted that were not (a tile booted again counts once).
  void boot(uint32_t new_tiles);
  // Tiles booted since the last reset.
  uint32_t booted() const { return booted_; }

 private:
  RunState state_ = RunState::Idle;
  uint32_t booted_ = 0;
};

}  // namespace ipusim
