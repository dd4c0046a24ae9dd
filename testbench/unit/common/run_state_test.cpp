// The run's state machine (common/run_state.h): every legal transition leads where the
// table says, every other event is a RunStateError naming the state and the event, and
// the booted count has one reset.
#include "common/run_state.h"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <utility>

namespace ipusim {
namespace {

constexpr RunState kStates[] = {RunState::Idle,   RunState::Loaded,     RunState::Running,
                                RunState::Paused, RunState::StreamWait, RunState::Ended};
constexpr RunEvent kEvents[] = {RunEvent::Boot,   RunEvent::Start, RunEvent::Pause, RunEvent::WaitStream,
                                RunEvent::Resume, RunEvent::End,   RunEvent::Reset};

// The legal transitions, written out independently of the implementation's table.
const std::map<std::pair<RunState, RunEvent>, RunState>& legal() {
  using S = RunState;
  using E = RunEvent;
  static const std::map<std::pair<S, E>, S> table = {
      {{S::Idle, E::Boot}, S::Loaded},          {{S::Idle, E::Reset}, S::Idle},
      {{S::Loaded, E::Boot}, S::Loaded},        {{S::Loaded, E::Start}, S::Running},
      {{S::Loaded, E::Reset}, S::Idle},         {{S::Running, E::Pause}, S::Paused},
      {{S::Running, E::WaitStream}, S::StreamWait}, {{S::Running, E::End}, S::Ended},
      {{S::Running, E::Reset}, S::Idle},        {{S::Paused, E::Resume}, S::Running},
      {{S::Paused, E::End}, S::Ended},          {{S::Paused, E::Reset}, S::Idle},
      {{S::StreamWait, E::Resume}, S::Running}, {{S::StreamWait, E::End}, S::Ended},
      {{S::StreamWait, E::Reset}, S::Idle},     {{S::Ended, E::Reset}, S::Idle},
  };
  return table;
}

// A machine brought to `state` by legal events only.
RunStateMachine in_state(RunState state) {
  RunStateMachine m;
  switch (state) {
    case RunState::Idle: break;
    case RunState::Loaded: m.boot(1); break;
    case RunState::Running: m.boot(1); m.take(RunEvent::Start); break;
    case RunState::Paused: m.boot(1); m.take(RunEvent::Start); m.take(RunEvent::Pause); break;
    case RunState::StreamWait: m.boot(1); m.take(RunEvent::Start); m.take(RunEvent::WaitStream); break;
    case RunState::Ended: m.boot(1); m.take(RunEvent::Start); m.take(RunEvent::End); break;
  }
  EXPECT_EQ(m.state(), state);
  return m;
}

TEST(RunStateMachine, EveryLegalTransitionLeadsWhereTheTableSays) {
  for (const auto& [from_event, to] : legal()) {
    const auto [from, event] = from_event;
    RunStateMachine m = in_state(from);
    EXPECT_TRUE(m.allows(event)) << state_name(from) << " " << event_name(event);
    m.take(event);
    EXPECT_EQ(m.state(), to) << state_name(from) << " --" << event_name(event) << "-->";
  }
}

TEST(RunStateMachine, EveryOtherEventIsAnErrorNamingStateAndEvent) {
  int illegal = 0;
  for (RunState from : kStates)
    for (RunEvent event : kEvents) {
      if (legal().contains({from, event})) continue;
      ++illegal;
      RunStateMachine m = in_state(from);
      EXPECT_FALSE(m.allows(event));
      try {
        m.take(event);
        ADD_FAILURE() << "'" << event_name(event) << "' in state '" << state_name(from) << "' was taken";
      } catch (const RunStateError& e) {
        EXPECT_EQ(e.state(), from);
        EXPECT_EQ(e.event(), event);
        const std::string what = e.what();
        EXPECT_NE(what.find(std::string("'") + event_name(event) + "' in state '" + state_name(from) + "'"),
                  std::string::npos)
            << what;
      }
      EXPECT_EQ(m.state(), from) << "an illegal event changed the state";
    }
  EXPECT_EQ(illegal, 6 * 7 - int(legal().size()));
}

TEST(RunStateMachine, TheErrorListsWhatTheStateAllows) {
  RunStateMachine m = in_state(RunState::Ended);
  try {
    m.take(RunEvent::Start);
    FAIL() << "a second start was taken";
  } catch (const RunStateError& e) {
    EXPECT_STREQ(e.what(), "run state: 'start' in state 'ended' (allowed: reset)");
  }
}

TEST(RunStateMachine, BootedCountsNewTilesOnceAndResetZeroesIt) {
  RunStateMachine m;
  EXPECT_EQ(m.booted(), 0u);
  m.boot(0);  // a program loaded onto an empty selection: loaded, none booted
  EXPECT_EQ(m.state(), RunState::Loaded);
  EXPECT_EQ(m.booted(), 0u);
  m.boot(3);
  m.boot(1);
  EXPECT_EQ(m.booted(), 4u);
  m.take(RunEvent::Start);
  EXPECT_THROW(m.boot(1), RunStateError);  // no boot during a run
  EXPECT_EQ(m.booted(), 4u);
  m.take(RunEvent::End);
  EXPECT_EQ(m.booted(), 4u);  // the run's end keeps the count (its results name them)
  m.take(RunEvent::Reset);
  EXPECT_EQ(m.booted(), 0u);
  EXPECT_EQ(m.state(), RunState::Idle);
}

TEST(RunStateMachine, InRunIsRunningPausedOrStreamWait) {
  for (RunState s : kStates)
    EXPECT_EQ(in_state(s).in_run(), s == RunState::Running || s == RunState::Paused || s == RunState::StreamWait)
        << state_name(s);
}

}  // namespace
}  // namespace ipusim
